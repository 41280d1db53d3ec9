import type { PublicUser } from "./user.server";

export type PendingAction = { type: string; moc: unknown };

/**
 * The caller's pending work, derived from the records (clarifications section 3). Records that
 * can wait on a user arrive with the MOC workflow; until then nobody has anything pending.
 */
export async function pendingActions(_user: PublicUser): Promise<PendingAction[]> {
  return [];
}
