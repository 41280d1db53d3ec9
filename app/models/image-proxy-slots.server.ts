/**
 * How many image-proxy fetches run at once in this process: per user and in all
 * (IMAGE_PROXY_MAX_PER_USER, IMAGE_PROXY_MAX_CONCURRENT; docs/security.md). A fetch holds its slot
 * until its body has been passed on to the client, so fifty tabs asking for large images cannot
 * hold fifty downloads open.
 */
import { DomainError } from "~/utils/errors";

export const PROXY_BUSY = "Too many images are being fetched at once; try again in a moment";

const holder = globalThis as typeof globalThis & { __cmProxySlots?: { total: number; perUser: Map<string, number> } };
const slots = () => (holder.__cmProxySlots ??= { total: 0, perUser: new Map() });

/** Takes a slot for `userId`, or throws 429; the returned function gives it back (once). */
export function acquireProxySlot(userId: string, limits: { perUser: number; overall: number }): () => void {
  const state = slots();
  const mine = state.perUser.get(userId) ?? 0;
  if (mine >= limits.perUser || state.total >= limits.overall) {
    throw new DomainError(429, PROXY_BUSY, undefined, { "Retry-After": "1" });
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
}

/** In use now (tests). */
export function proxySlotsInUse(): { total: number; perUser: Record<string, number> } {
  const state = slots();
  return { total: state.total, perUser: Object.fromEntries(state.perUser) };
}
