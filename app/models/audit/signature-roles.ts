/**
 * The role a signature manifestation names (docs/decisions/023-temporary-changes-and-delegation.md):
 * a delegate signs as "acting <role>" in the absent holder's place. Plain functions, no server
 * code: the record pages read them in the browser too.
 */

/** The role a delegate signs as, in the absent holder's place: "acting Approver". */
export const actingRole = (role: string) => `acting ${role}`;

/** Whether manifestation `m` fills the slot `role`: its holder's signature, or their delegate's. */
export const fillsSlot = (m: { role: string; signerId: string }, role: string, signerId?: string | null) =>
  (m.role === role || m.role === actingRole(role)) && (!signerId || m.signerId === signerId);
