/**
 * Who a person signing in through the identity provider is here, and as what
 * (docs/decisions/029-oidc-and-notifications.md, docs/decisions/052-oidc-subject-link.md): matched
 * by the provider's issuer and subject, stored at the first sign-in through it; a person not yet
 * linked is found by a verified email and linked then. An email whose person is linked to another
 * account at the provider is refused, and the attempt kept for the admins to re-link or dismiss.
 * Unknown people are refused or, with OIDC_AUTO_CREATE=1, created; role, department, access and
 * position follow OIDC_GROUP_MAP at every sign-in, and the rank on board when the map names ranks,
 * each change recorded in the user's audit trail.
 * A deactivated account is refused whatever the provider says. One transaction per sign-in.
 */
import { randomBytes } from "node:crypto";
import { and, asc, desc, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { oidcConflicts, sessions, users } from "#db/schema";
import { getDb, type Executor } from "~/utils/db.server";
import { logger } from "~/utils/logger.server";
import { env } from "~/utils/env.server";
import { Conflict, Forbidden, NotFound } from "~/utils/errors";
import { canManageUsers } from "../authz/authz.server";
import { parseGroupMap, type MappedFields } from "~/utils/oidc-group-map";
import {
  activeAdminCount,
  auditFieldChanges,
  auditUser,
  describeAccount,
  hashPassword,
  lockDocumentsShowing,
  lockUserAdministration,
  toPublicUser,
  type PublicUser,
  type UserRow,
} from "../people/user.server";

/** What the provider says about the person (ID token claims, completed by userinfo). */
export type ProviderClaims = Record<string, unknown> & { sub: string };

export const EMAIL_NOT_VERIFIED =
  "Your identity provider has not confirmed your email address, so it cannot be matched to an account here";
export const NO_ACCOUNT = "There is no account here for this email address; ask an administrator to add you";
export const DEACTIVATED = "This account is deactivated; ask an administrator";
const FROM_GROUPS = "From the identity provider's groups at sign-in";

/** The verified email the claims carry, lower-cased, or a 403 saying why not. */
export function verifiedEmail(claims: ProviderClaims): string {
  const email = typeof claims.email === "string" ? claims.email.trim().toLowerCase() : "";
  if (!email || !email.includes("@")) throw new Forbidden("Your identity provider did not share your email address");
  const verified = claims.email_verified === true || claims.email_verified === "true";
  if (!verified && env().OIDC_TRUST_EMAIL !== "1") throw new Forbidden(EMAIL_NOT_VERIFIED);
  return email;
}

/** The groups claim as a list of names (a single string counts as one group). */
function groupsOf(claims: ProviderClaims): string[] {
  const value = claims[env().OIDC_GROUPS_CLAIM];
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((g): g is string => typeof g === "string") : [];
}

/**
 * The account fields the groups set: the defaults (`user`, `standard`, OIDC_DEFAULT_DEPARTMENT,
 * no position) overlaid by every mapped group the person is in, in the map's order. Null when no
 * map is configured: accounts are then managed here only.
 */
export function mappedFields(claims: ProviderClaims): Mapped | null {
  const map = parseGroupMap(env().OIDC_GROUP_MAP);
  const names = Object.keys(map);
  if (names.length === 0) return null;
  const member = new Set(groupsOf(claims));
  // The rank follows the groups only when the map names ranks at all (a map of roles alone leaves
  // the ranks admins set); then a person in no rank group has none.
  const ranked = names.some((name) => map[name]!.rank !== undefined);
  const fields: Mapped = {
    role: "user",
    department: env().OIDC_DEFAULT_DEPARTMENT,
    access: "standard",
    position: null,
    rank: ranked ? null : undefined,
  };
  for (const name of names) if (member.has(name)) Object.assign(fields, map[name]);
  return fields;
}

/** The fields the groups set; `rank` undefined when the map leaves ranks alone. */
type Mapped = Required<Omit<MappedFields, "rank">> & { rank: string | null | undefined };

/**
 * The mapped rank as the list allows it: a rank of the list (a deactivated one only for its
 * holder); one the list does not have is left out, with a warning for the operators, rather than
 * refusing the sign-in.
 */
async function allowedRank(tx: Executor, fields: Mapped, holds: string | null): Promise<Mapped> {
  if (fields.rank === undefined || fields.rank === null || fields.rank === holds) return fields;
  const [row] = await tx.execute<{ active: boolean }>(sql`select active from ranks where name = ${fields.rank}`);
  if (row?.active) return fields;
  logger().warn(
    { rank: fields.rank },
    "OIDC_GROUP_MAP names a rank that is not in the list of ranks (or is deactivated); left unchanged",
  );
  return { ...fields, rank: undefined };
}

const nameOf = (claims: ProviderClaims, email: string) => {
  const name = typeof claims.name === "string" ? claims.name.trim() : "";
  return (name || email.split("@")[0]!).slice(0, 200);
};

/** The account at the provider the claims come from: the ID token's issuer and subject. */
export type ProviderAccount = { issuer: string; subject: string };

export function providerAccount(claims: ProviderClaims): ProviderAccount {
  const issuer = typeof claims.iss === "string" ? claims.iss : "";
  const subject = typeof claims.sub === "string" ? claims.sub : "";
  if (!issuer || !subject) throw new Forbidden("Your identity provider did not say who you are");
  return { issuer, subject };
}

/** How an account at the provider reads in the audit trail and on the admin pages. */
export const accountAt = (issuer: string, subject: string) => `${subject} at ${issuer}`;

/** The sign-in page's refusal when the email names a person linked to another account there. */
export const linkedElsewhere = (email: string) =>
  `This company account is not the one linked to ${email}; ask an administrator`;

type Match =
  /** Linked to this account at the provider: found whatever the email says now. */
  | { kind: "linked"; row: UserRow }
  /** Found by the verified email; not linked to any account at the provider yet. */
  | { kind: "unlinked"; row: UserRow }
  /** Found by the verified email, but linked to another account at the provider. */
  | { kind: "conflict"; row: UserRow }
  | { kind: "none"; email: string };

/**
 * Who the claims name here, under the lock of the row found: the person linked to the issuer and
 * subject first; otherwise the verified email, whose person is linked to another account or none.
 */
async function matchAccount(tx: Executor, who: ProviderAccount, claims: ProviderClaims): Promise<Match> {
  const [linked] = await tx
    .select()
    .from(users)
    .where(and(eq(users.oidcIssuer, who.issuer), eq(users.oidcSubject, who.subject)))
    .for("update");
  if (linked) return { kind: "linked", row: linked };
  const email = verifiedEmail(claims);
  const [row] = await tx.select().from(users).where(eq(users.email, email)).for("update");
  if (!row) return { kind: "none", email };
  return { kind: row.oidcSubject === null ? "unlinked" : "conflict", row };
}

/** Links a person to the account at the provider (their first sign-in through it), audited. */
async function linkAccount(tx: Executor, row: UserRow, who: ProviderAccount): Promise<void> {
  await tx
    .update(users)
    .set({ oidcIssuer: who.issuer, oidcSubject: who.subject, oidcLinkedAt: new Date() })
    .where(eq(users.id, row.id));
  await auditUser(tx, row.id, null, {
    action: "Linked to an account at the identity provider",
    from: null,
    to: accountAt(who.issuer, who.subject),
    comment: "At the first sign-in through the identity provider",
  });
}

/**
 * Records a sign-in refused because the person found by email is linked to another account at the
 * provider: one open conflict per person and attempted account, its attempts counted. The first
 * attempt is an entry in the person's audit trail; repeats only count.
 */
async function recordConflict(tx: Executor, row: UserRow, who: ProviderAccount, claims: ProviderClaims) {
  const email = typeof claims.email === "string" ? claims.email.trim().toLowerCase().slice(0, 320) : row.email;
  const name = typeof claims.name === "string" ? claims.name.trim().slice(0, 200) || null : null;
  const [saved] = await tx.execute<{ inserted: boolean }>(sql`
    insert into oidc_conflicts (user_id, issuer, subject, email, name)
    values (${row.id}, ${who.issuer}, ${who.subject}, ${email}, ${name})
    on conflict (user_id, issuer, subject) where resolved_at is null
    do update set attempts = oidc_conflicts.attempts + 1, last_at = now(), email = excluded.email, name = excluded.name
    returning (xmax = 0) as inserted`);
  if (saved?.inserted) {
    await auditUser(tx, row.id, null, {
      action: "Refused a sign-in by another account at the identity provider",
      from: row.oidcIssuer && row.oidcSubject ? accountAt(row.oidcIssuer, row.oidcSubject) : null,
      to: accountAt(who.issuer, who.subject),
      comment: `Same email (${email}); an administrator re-links or dismisses it`,
    });
  }
  logger().warn(
    { userId: row.id, issuer: who.issuer, subject: who.subject },
    "a sign-in through the identity provider was refused: the email is linked to another account there",
  );
}

/**
 * The active account the claims name, after applying the group mapping (audited), or a 403 with
 * the reason shown on the sign-in page. Matched by the provider's issuer and subject first; by
 * the verified email only for a person not linked yet, who is then linked. A person linked to
 * another account at the provider is refused, and the attempt recorded for the admins.
 */
export async function accountForProvider(claims: ProviderClaims): Promise<PublicUser> {
  const who = providerAccount(claims);
  const mapped = mappedFields(claims);
  const config = env();
  // An account made here has no usable password: a random one nobody knows, hashed.
  const unusable = config.OIDC_AUTO_CREATE === "1" ? await hashPassword(randomBytes(32).toString("base64url")) : "";
  // A refusal that records a conflict commits it: the transaction answers the message instead.
  const outcome = await getDb().transaction(async (tx): Promise<PublicUser | { refused: string }> => {
    await lockUserAdministration(tx);
    const found = await matchAccount(tx, who, claims);
    const holds = found.kind === "none" ? null : found.row.rank;
    const fields = mapped && (await allowedRank(tx, mapped, holds));
    if (found.kind === "none") {
      if (config.OIDC_AUTO_CREATE !== "1") throw new Forbidden(NO_ACCOUNT);
      const [row] = await tx
        .insert(users)
        .values({
          name: nameOf(claims, found.email),
          email: found.email,
          passwordHash: unusable,
          role: fields?.role ?? "user",
          department: fields?.department ?? config.OIDC_DEFAULT_DEPARTMENT,
          access: fields?.access ?? "standard",
          position: fields?.position ?? null,
          rank: fields?.rank ?? null,
          onboarded: true,
          oidcIssuer: who.issuer,
          oidcSubject: who.subject,
          oidcLinkedAt: new Date(),
        })
        .returning();
      await auditUser(tx, row!.id, null, {
        action: "Created at first sign-in with the identity provider",
        // The account's description ends the comment: the audit verification reads the rights from it
        // (app/models/audit/audit-account.server.ts).
        comment: `Linked to ${accountAt(who.issuer, who.subject)}; ${describeAccount(row!)}`,
      });
      if (row!.rank)
        await auditUser(tx, row!.id, null, { action: "Changed rank", from: null, to: row!.rank, comment: FROM_GROUPS });
      return toPublicUser(row!);
    }
    const current = found.row;
    if (!current.active) throw new Forbidden(DEACTIVATED);
    if (found.kind === "conflict") {
      await recordConflict(tx, current, who, claims);
      return { refused: linkedElsewhere(current.email) };
    }
    if (found.kind === "unlinked") await linkAccount(tx, current, who);
    const changes = fields ? changedFields(current, fields) : {};
    // An admin-set first password is the admin's, not the person's: it stops working, and the
    // person (who proved who they are at the provider) does not have to choose one.
    if (!current.onboarded) {
      changes.passwordHash = await hashPassword(randomBytes(32).toString("base64url"));
      changes.onboarded = true;
      await auditUser(tx, current.id, null, {
        action: "First sign-in with the identity provider",
        comment: "The password an admin set no longer works",
      });
    }
    if (Object.keys(changes).length === 0) return toPublicUser(current);
    // The same guard as an admin's change: the groups never remove the last active admin.
    if (current.role === "admin" && changes.role === "user" && (await activeAdminCount(tx, current.id)) === 0) {
      delete changes.role;
      if (Object.keys(changes).length === 0) return toPublicUser(current);
    }
    await lockDocumentsShowing(tx, current.id);
    const [row] = await tx
      .update(users)
      .set({ ...changes, updatedAt: new Date() })
      .where(eq(users.id, current.id))
      .returning();
    await auditFieldChanges(tx, current, row!, null, FROM_GROUPS);
    // Other sessions carry the old role in their tokens only as a hint (the row is re-read on
    // every request), so they stay open.
    return toPublicUser(row!);
  });
  if ("refused" in outcome) throw new Forbidden(outcome.refused);
  return outcome;
}

/**
 * Whether the claims of a re-authentication name the signed-in person `userId`: by the link to the
 * provider's account, or, for a person not linked yet, by the verified email (which links them, as
 * a sign-in would). An email whose person is linked to another account there is refused and
 * recorded for the admins, as at sign-in; anyone else is simply not this person (false).
 */
export async function claimsNamePerson(claims: ProviderClaims, userId: string): Promise<boolean> {
  const who = providerAccount(claims);
  const outcome = await getDb().transaction(async (tx): Promise<boolean | { refused: string }> => {
    await lockUserAdministration(tx);
    const found = await matchAccount(tx, who, claims);
    if (found.kind === "none" || found.row.id !== userId) return false;
    if (found.kind === "conflict") {
      await recordConflict(tx, found.row, who, claims);
      return { refused: linkedElsewhere(found.row.email) };
    }
    if (found.kind === "unlinked") await linkAccount(tx, found.row, who);
    return true;
  });
  if (typeof outcome === "object") throw new Forbidden(outcome.refused);
  return outcome;
}

// ---------------------------------------------------------------------------------------------
// Conflicts, for the admins (app/routes/admin+/users.tsx)

/** An open conflict as the admin users page shows it. */
export type OidcConflict = {
  id: string;
  user: { _id: string; name: string; email: string; active: boolean };
  /** The account the person is linked to now, if any (`subject at issuer`). */
  linkedTo: string | null;
  /** The account that tried to sign in: its issuer, subject, and the email and name it gave. */
  issuer: string;
  subject: string;
  email: string;
  name: string | null;
  attempts: number;
  firstAt: string;
  lastAt: string;
};

/** The open conflicts, the latest attempt first (`userId`: one person's only). */
export async function listOpenConflicts(actor: PublicUser, userId?: string): Promise<OidcConflict[]> {
  if (!canManageUsers(actor)) throw new Forbidden("Only an admin can see refused company sign-ins");
  const rows = await getDb()
    .select({ conflict: oidcConflicts, user: users })
    .from(oidcConflicts)
    .innerJoin(users, eq(users.id, oidcConflicts.userId))
    .where(and(isNull(oidcConflicts.resolvedAt), userId ? eq(oidcConflicts.userId, userId) : undefined))
    .orderBy(desc(oidcConflicts.lastAt), asc(oidcConflicts.id));
  return rows.map(({ conflict, user }) => ({
    id: conflict.id,
    user: { _id: user.id, name: user.name, email: user.email, active: user.active },
    linkedTo: user.oidcIssuer && user.oidcSubject ? accountAt(user.oidcIssuer, user.oidcSubject) : null,
    issuer: conflict.issuer,
    subject: conflict.subject,
    email: conflict.email,
    name: conflict.name,
    attempts: conflict.attempts,
    firstAt: conflict.firstAt.toISOString(),
    lastAt: conflict.lastAt.toISOString(),
  }));
}

/** The account at the provider a person is linked to, and since when (the person's page). */
export async function providerLinkOf(userId: string): Promise<{ account: string; since: string } | null> {
  const [row] = await getDb()
    .select({ issuer: users.oidcIssuer, subject: users.oidcSubject, at: users.oidcLinkedAt })
    .from(users)
    .where(eq(users.id, userId));
  return row?.issuer && row.subject && row.at
    ? { account: accountAt(row.issuer, row.subject), since: row.at.toISOString() }
    : null;
}

/**
 * An admin settles an open conflict: `relink` links the person to the account that was refused
 * (their sessions opened through the provider end: they came from the account no longer linked),
 * `dismiss` leaves the link as it is. Either is an entry in the person's audit trail. A conflict
 * already settled, or an account linked to someone else meanwhile, is a 409 and changes nothing.
 */
export async function resolveConflict(
  actor: PublicUser,
  conflictId: string,
  resolution: "relink" | "dismiss",
): Promise<{ name: string }> {
  if (!canManageUsers(actor)) throw new Forbidden("Only an admin can resolve refused company sign-ins");
  if (!z.uuid().safeParse(conflictId).success) throw new NotFound("There is no such refused sign-in");
  return getDb().transaction(async (tx) => {
    await lockUserAdministration(tx);
    const [conflict] = await tx.select().from(oidcConflicts).where(eq(oidcConflicts.id, conflictId)).for("update");
    if (!conflict) throw new NotFound("There is no such refused sign-in");
    if (conflict.resolvedAt) throw new Conflict("This refused sign-in was already resolved");
    const [person] = await tx.select().from(users).where(eq(users.id, conflict.userId)).for("update");
    const attempted = accountAt(conflict.issuer, conflict.subject);
    const linked =
      person!.oidcIssuer && person!.oidcSubject ? accountAt(person!.oidcIssuer, person!.oidcSubject) : null;
    if (resolution === "relink") {
      const [other] = await tx
        .select({ id: users.id, name: users.name, email: users.email })
        .from(users)
        .where(and(eq(users.oidcIssuer, conflict.issuer), eq(users.oidcSubject, conflict.subject)));
      if (other && other.id !== person!.id) {
        throw new Conflict(`That company account is linked to ${other.name} (${other.email}); resolve that first`);
      }
      await tx
        .update(users)
        .set({ oidcIssuer: conflict.issuer, oidcSubject: conflict.subject, oidcLinkedAt: new Date() })
        .where(eq(users.id, person!.id));
      await tx
        .update(sessions)
        .set({ revokedAt: new Date() })
        .where(and(eq(sessions.userId, person!.id), eq(sessions.method, "oidc"), isNull(sessions.revokedAt)));
    }
    await tx
      .update(oidcConflicts)
      .set({
        resolvedAt: new Date(),
        resolvedBy: actor._id,
        resolution: resolution === "relink" ? "relinked" : "dismissed",
      })
      .where(eq(oidcConflicts.id, conflict.id));
    await auditUser(
      tx,
      person!.id,
      actor._id,
      resolution === "relink"
        ? {
            action: "Re-linked to another account at the identity provider",
            from: linked,
            to: attempted,
            comment: `After a refused sign-in as ${conflict.email}; sessions opened through the provider ended`,
          }
        : {
            action: "Dismissed a refused sign-in by another account at the identity provider",
            from: linked,
            to: attempted,
            comment: `The sign-in as ${conflict.email} stays refused; the link is unchanged`,
          },
    );
    return { name: person!.name };
  });
}

function changedFields(current: UserRow, fields: Mapped): Partial<typeof users.$inferInsert> {
  const changes: Partial<typeof users.$inferInsert> = {};
  if (current.role !== fields.role) changes.role = fields.role;
  if (current.department !== fields.department) changes.department = fields.department;
  if (current.access !== fields.access) changes.access = fields.access;
  if ((current.position ?? null) !== fields.position) changes.position = fields.position;
  if (fields.rank !== undefined && (current.rank ?? null) !== fields.rank) changes.rank = fields.rank;
  return changes;
}

/** Marks a session as opened through the provider (sign-out then ends the provider's too). */
export async function markProviderSession(sessionId: string): Promise<void> {
  await getDb().update(sessions).set({ method: "oidc" }).where(eq(sessions.id, sessionId));
}

/** The session was opened through the provider. */
export async function isProviderSession(sessionId: string): Promise<boolean> {
  const [row] = await getDb().select({ method: sessions.method }).from(sessions).where(eq(sessions.id, sessionId));
  return row?.method === "oidc";
}

/** Records that the session's person just signed in again at the provider (prompt=login). */
export async function recordReauthentication(sessionId: string, userId: string, at: Date): Promise<void> {
  await getDb()
    .update(sessions)
    .set({ reauthenticatedAt: at })
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId), sql`${sessions.revokedAt} is null`));
}

/**
 * Spends the session's re-authentication if it is younger than `maxAgeSeconds`: true once, so
 * each signature needs its own. One statement, so two signatures cannot share one.
 */
export async function spendReauthentication(sessionId: string, maxAgeSeconds: number): Promise<boolean> {
  const rows = await getDb().execute<{ id: string }>(sql`
    update sessions set reauthenticated_at = null
    where id = ${sessionId} and revoked_at is null
      and reauthenticated_at > now() - make_interval(secs => ${maxAgeSeconds})
    returning id`);
  return rows.length === 1;
}

/** When the session's person last re-authenticated, if it still counts (for the page's hint). */
export async function freshReauthentication(sessionId: string, maxAgeSeconds: number): Promise<Date | null> {
  const [row] = await getDb().execute<{ at: string }>(sql`
    select reauthenticated_at as at from sessions
    where id = ${sessionId} and reauthenticated_at > now() - make_interval(secs => ${maxAgeSeconds})`);
  return row ? new Date(row.at) : null;
}
