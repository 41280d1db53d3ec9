/**
 * A reader's waiting work of every kind (issue 39, docs/decisions/060-record-kinds.md): each
 * registered kind that declares `waiting` is asked for the work it puts on the reader, so a kind
 * added later is on "Waiting on me" through its registry entry alone. The kinds are asked at once;
 * each answers its first `limit` lines and how many it has in all.
 */
import type { Actor } from "../authz/authz.server";
import { kindsWith, type WaitingWork } from "../record-kind/record-kind";

/** One kind's waiting work for the reader, with the kind's name and label. */
export type KindWaitingWork = WaitingWork & { kind: string; label: string };

/**
 * The reader's waiting work, kind by kind in the registry's order, every kind that declares it
 * included (with nothing waiting too) but those in `except`: a page that lays some kinds out in
 * sections of its own names them there and is given the others.
 */
export async function waitingWork(
  actor: Actor,
  options: { limit?: number; today: string; except?: readonly string[] },
): Promise<KindWaitingWork[]> {
  const kinds = kindsWith("waiting").filter((kind) => !options.except?.includes(kind.name));
  return Promise.all(
    kinds.map(async (kind) => ({
      kind: kind.name,
      label: kind.label,
      ...(await kind.waiting(actor, { limit: options.limit, today: options.today })),
    })),
  );
}
