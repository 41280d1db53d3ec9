/**
 * The PCR's waiting work as its registry entry gives it (docs/decisions/060-record-kinds.md): the
 * signatures waiting on a reader (`pendingPcrSignatures`, pcr-signing.server.ts, which says which
 * slots and parties wait on whom), each one line of "Waiting on me".
 */
import type { Actor } from "../authz/authz.server";
import { getUserById, toPublicUser } from "../people/user.server";
import type { WaitingItem, WaitingWork } from "../record-kind/record-kind";
import { pendingPcrSignatures } from "./pcr-signing.server";

/** The PCR signatures waiting on the reader, in the order the signing lists them: the PCR kind's `waiting`. */
export async function waitingPcrSignatures(actor: Actor, options: { limit?: number }): Promise<WaitingWork> {
  // The signing reads the signer as an account (its name signs); the registry passes the reader as an actor.
  const account = await getUserById(actor._id);
  if (!account) return { items: [], total: 0 };
  const items = (await pendingPcrSignatures(toPublicUser(account))).map((signature): WaitingItem => ({
    kind: "pcr",
    recordId: signature.pcrId,
    text: `PCR ${signature.serialNum}: your signature as ${signature.role}`,
    path: `/pcrs/${signature.pcrId}`,
    waitingSince: signature.waitingSince,
    dueOn: null,
    badge: null,
    detail: null,
  }));
  return { items: options.limit === undefined ? items : items.slice(0, options.limit), total: items.length };
}
