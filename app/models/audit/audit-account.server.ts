/**
 * What a person's audit chain (kind "user", keyed like every chain) says their account may do,
 * and the check that the account still is what it says (docs/decisions/025-keyed-audit-chain.md,
 * "Accounts against their trail").
 *
 * Every write of a role, department, access level, position or active flag appends an entry to the
 * person's chain in the same transaction (user.server.ts `auditFieldChanges`): "Changed role" from
 * "user" to "admin", and so on. The entry that creates an account (an action starting with
 * "Created") and the one that records an account older than its chain carry the whole account in
 * their comment (`describeAccount`). Replaying a chain therefore gives the account's rights as the
 * app last wrote them; `verifyAuditTrail` compares them with the `users` row, in the snapshot it
 * reads the chains from. A right changed in the table (or in a backup) without its entry differs
 * from the replay, and the entry cannot be forged or removed without AUDIT_KEY (keyed hashes,
 * heads, seals). The cost is one more query (the users' rights) and one pass over entries the
 * verification reads anyway.
 */

/** The account fields that decide what a person may do (app/models/authz/authz.server.ts), as the trail records them. */
export const ACCOUNT_RIGHTS = ["role", "department", "access", "position", "active"] as const;
export type AccountRight = (typeof ACCOUNT_RIGHTS)[number];

/** An account's rights as text, the way entries record them (`position` null for none; `active` "true"/"false"). */
export type AccountRights = Record<AccountRight, string | null>;

type DescribedAccount = {
  name: string;
  email: string;
  role: string;
  department: string;
  access: string;
  position: string | null;
  active: boolean;
};

/** The whole account in one line: the comment of the entry that creates (or records) it, and of its deletion. */
export const describeAccount = (row: DescribedAccount) =>
  `${row.name} <${row.email}>: role ${row.role}, department ${row.department}, access ${row.access}, ` +
  `position ${row.position ?? "none"}, ${row.active ? "active" : "inactive"}`;

/** The action that records, once, an account whose chain never described it (made before the trail). */
export const ACCOUNT_RECORDED = "Recorded the account as it stood (it predates its audit trail)";

// The rights are the end of the description; the name and email before them are free text.
const DESCRIBED = /: role (\S+), department (\S+), access (\S+), position (.+), (active|inactive)$/;

/** The rights a description names, or null when the comment is not one. */
export function describedRights(comment: string | null): AccountRights | null {
  const match = comment ? DESCRIBED.exec(comment) : null;
  if (!match) return null;
  const [, role, department, access, position, active] = match;
  return {
    role: role!,
    department: department!,
    access: access!,
    position: position === "none" ? null : position!,
    active: active === "active" ? "true" : "false",
  };
}

/** An account's rights as the `users` row holds them, in the trail's terms. */
export const rightsOf = (row: {
  role: string;
  department: string;
  access: string;
  position: string | null;
  active: boolean;
}): AccountRights => ({
  role: row.role,
  department: row.department,
  access: row.access,
  position: row.position,
  active: String(row.active),
});

/** One entry of a person's chain, as the verification reads it. */
export type AccountEntry = { action: string; to: string | null; comment: string | null };

/** What the chain says: the rights as last written (a right it never named is absent), and whether it ends deleted. */
export function replayAccount(entries: Iterable<AccountEntry>): { rights: Partial<AccountRights>; deleted: boolean } {
  let rights: Partial<AccountRights> = {};
  let deleted = false;
  for (const entry of entries) {
    if (entry.action.startsWith("Created") || entry.action === ACCOUNT_RECORDED) {
      const described = describedRights(entry.comment);
      if (described) {
        rights = described;
        deleted = false;
      }
    } else if (entry.action === "Deleted") {
      deleted = true;
    } else if (entry.action === "Deactivated" || entry.action === "Reactivated") {
      rights.active = entry.action === "Reactivated" ? "true" : "false";
    } else if (entry.action.startsWith("Changed ")) {
      const field = entry.action.slice("Changed ".length);
      if ((ACCOUNT_RIGHTS as readonly string[]).includes(field)) rights[field as AccountRight] = entry.to;
    }
  }
  return { rights, deleted };
}

const shown = (value: string | null | undefined) => (value === null || value === undefined ? "none" : `"${value}"`);

/** Why an account differs from its chain, or null when it is what the chain says. */
export function accountProblem(
  current: AccountRights,
  chain: { entries: number; replay: ReturnType<typeof replayAccount> },
): string | null {
  if (chain.entries === 0) return "the account has no audit entry at all (made behind the app's back)";
  if (chain.replay.deleted) return "the account exists, but its last audit entry deleted it";
  for (const right of ACCOUNT_RIGHTS) {
    if (!(right in chain.replay.rights)) return `its audit trail never records its ${right}`;
    const recorded = chain.replay.rights[right] ?? null;
    if (recorded !== current[right]) {
      return (
        `its ${right} is ${shown(current[right])}, but its audit trail last set it to ${shown(recorded)} ` +
        "(changed behind the app's back)"
      );
    }
  }
  return null;
}
