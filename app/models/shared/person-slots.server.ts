/**
 * How many of one kind of long-running work (image fetches, CSV exports, uploads, PDFs) run at
 * once in this process: per person and in all. A piece of work takes a slot before it starts and
 * gives it back when it ends, however it ends; past either limit the request is refused with a
 * 429 and a message saying what to wait for (docs/security.md, "Slow clients").
 */
import { DomainError } from "~/utils/errors";

type State = { total: number; perUser: Map<string, number> };
export type SlotLimits = { perUser: number; overall: number };

// On globalThis: a process that loads this module twice (the dev server's reloads) keeps one count.
const holder = globalThis as typeof globalThis & { __cmSlots?: Map<string, State> };
const stateOf = (kind: string): State => {
  holder.__cmSlots ??= new Map();
  let state = holder.__cmSlots.get(kind);
  if (!state) holder.__cmSlots.set(kind, (state = { total: 0, perUser: new Map() }));
  return state;
};

export type SlotGroup = {
  /** Takes a slot for `userId`, or throws 429 (`busy`); the returned function gives it back (once). */
  acquire(userId: string, limits: SlotLimits): () => void;
  /** In use now (tests). */
  inUse(): { total: number; perUser: Record<string, number> };
};

/** The slots of one kind of work; `busy` is the 429's message, `retryAfter` its Retry-After. */
export function slotGroup(kind: string, busy: (limits: SlotLimits) => string, retryAfter = 1): SlotGroup {
  return {
    acquire(userId, limits) {
      const state = stateOf(kind);
      const mine = state.perUser.get(userId) ?? 0;
      if (mine >= limits.perUser || state.total >= limits.overall) {
        throw new DomainError(429, busy(limits), undefined, { "Retry-After": String(retryAfter) });
      }
      state.total++;
      state.perUser.set(userId, mine + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        state.total--;
        const left = (state.perUser.get(userId) ?? 1) - 1;
        if (left > 0) state.perUser.set(userId, left);
        else state.perUser.delete(userId);
      };
    },
    inUse() {
      const state = stateOf(kind);
      return { total: state.total, perUser: Object.fromEntries(state.perUser) };
    },
  };
}
