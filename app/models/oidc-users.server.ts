/**
 * Who a person signing in through the identity provider is here, and as what
 * (docs/decisions/029-oidc-and-notifications.md): matched by a verified email; unknown people are
 * refused or, with OIDC_AUTO_CREATE=1, created; role, department, access and position follow
 * OIDC_GROUP_MAP at every sign-in, each change recorded in the user's audit trail. A deactivated
 * account is refused whatever the provider says. One transaction per sign-in.
 */
import { randomBytes } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { sessions, users } from "#db/schema";
import { getDb } from "~/utils/db.server";
import { env } from "~/utils/env.server";
import { Forbidden } from "~/utils/errors";
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
} from "./user.server";

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
export function mappedFields(claims: ProviderClaims): Required<MappedFields> | null {
  const map = parseGroupMap(env().OIDC_GROUP_MAP);
  const names = Object.keys(map);
  if (names.length === 0) return null;
  const member = new Set(groupsOf(claims));
  const fields: Required<MappedFields> = {
    role: "user",
    department: env().OIDC_DEFAULT_DEPARTMENT,
    access: "standard",
    position: null,
  };
  for (const name of names) if (member.has(name)) Object.assign(fields, map[name]);
  return fields;
}

const nameOf = (claims: ProviderClaims, email: string) => {
  const name = typeof claims.name === "string" ? claims.name.trim() : "";
  return (name || email.split("@")[0]!).slice(0, 200);
};

/**
 * The active account the claims name, after applying the group mapping (audited), or a 403 with
 * the reason shown on the sign-in page.
 */
export async function accountForProvider(claims: ProviderClaims): Promise<PublicUser> {
  const email = verifiedEmail(claims);
  const fields = mappedFields(claims);
  const config = env();
  // An account made here has no usable password: a random one nobody knows, hashed.
  const unusable = config.OIDC_AUTO_CREATE === "1" ? await hashPassword(randomBytes(32).toString("base64url")) : "";
  return getDb().transaction(async (tx) => {
    await lockUserAdministration(tx);
    const [current] = await tx.select().from(users).where(eq(users.email, email)).for("update");
    if (!current) {
      if (config.OIDC_AUTO_CREATE !== "1") throw new Forbidden(NO_ACCOUNT);
      const [row] = await tx
        .insert(users)
        .values({
          name: nameOf(claims, email),
          email,
          passwordHash: unusable,
          role: fields?.role ?? "user",
          department: fields?.department ?? config.OIDC_DEFAULT_DEPARTMENT,
          access: fields?.access ?? "standard",
          position: fields?.position ?? null,
          onboarded: true,
        })
        .returning();
      await auditUser(tx, row!.id, null, {
        action: "Created at first sign-in with the identity provider",
        comment: describeAccount(row!),
      });
      return toPublicUser(row!);
    }
    if (!current.active) throw new Forbidden(DEACTIVATED);
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
}

function changedFields(current: UserRow, fields: Required<MappedFields>): Partial<typeof users.$inferInsert> {
  const changes: Partial<typeof users.$inferInsert> = {};
  if (current.role !== fields.role) changes.role = fields.role;
  if (current.department !== fields.department) changes.department = fields.department;
  if (current.access !== fields.access) changes.access = fields.access;
  if ((current.position ?? null) !== fields.position) changes.position = fields.position;
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
