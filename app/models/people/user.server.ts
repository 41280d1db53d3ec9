import { hash, verify } from "@node-rs/argon2";
import { randomBytes } from "node:crypto";
import { and, asc, count, desc, eq, ilike, ne, or, sql, type SQL } from "drizzle-orm";
import { iso } from "#db/moc-document";
import { z } from "zod";
import {
  assertNoAdminOnlyFields,
  newUserSchema,
  ownProfileSchema,
  passwordSchema,
  userUpdateSchema,
  type NewUserInput,
  type OwnProfileInput,
  type UserUpdateInput,
} from "./user.schema";
import { getDb, type Executor } from "~/utils/db.server";
import { ADVISORY_LOCKS } from "#db/advisory-locks";
import { sessions, users } from "#db/schema";
import { Conflict, databaseErrorCode, Forbidden, Invalid, NotFound, Unauthorized } from "~/utils/errors";
import { ACCOUNT_RECORDED, describeAccount } from "../audit/audit-account.server";
import { appendAudit, appendAuditEntries, type AuditInput } from "../audit/audit.server";
import { canManageUsers } from "../authz/authz.server";
import { checkRankOffered } from "./ranks.server";
import { startPasswordAttempt } from "./password-attempts.server";
import { afterKey, cut, type PageOf, type PageRequest } from "../shared/keyset";

export type UserRow = typeof users.$inferSelect;

/** What any response may carry about a user: never the password or its hash. */
export type PublicUser = {
  _id: string;
  name: string;
  email: string;
  role: UserRow["role"];
  department: UserRow["department"];
  access: UserRow["access"];
  position: UserRow["position"];
  /** Rank on board (issue 41), null for none. */
  rank: string | null;
  active: boolean;
  onboarded: boolean;
};

/** The columns a PublicUser is made of: what reads that never need the hash select. */
export const PUBLIC_USER_COLUMNS = {
  id: users.id,
  name: users.name,
  email: users.email,
  role: users.role,
  department: users.department,
  access: users.access,
  position: users.position,
  rank: users.rank,
  active: users.active,
  onboarded: users.onboarded,
};

export function toPublicUser(row: Pick<UserRow, keyof typeof PUBLIC_USER_COLUMNS>): PublicUser {
  return {
    _id: row.id,
    name: row.name,
    email: row.email,
    role: row.role,
    department: row.department,
    access: row.access,
    position: row.position ?? null,
    rank: row.rank ?? null,
    active: row.active,
    onboarded: row.onboarded,
  };
}

// ---------------------------------------------------------------------------------------------
// Passwords

export const hashPassword = (password: string) => hash(password);
export async function passwordMatches(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}
// Verifying against this when the email is unknown keeps both failures equally slow.
let dummyHash: Promise<string> | undefined;

// ---------------------------------------------------------------------------------------------
// Reads

export async function getUserById(id: string, db: Executor = getDb()): Promise<UserRow | undefined> {
  if (!z.uuid().safeParse(id).success) return undefined;
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row;
}

export async function getUserByEmail(email: string, db: Executor = getDb()): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.email, email.trim().toLowerCase()));
  return row;
}

function searchWhere(search: string | undefined) {
  const term = search?.trim();
  return term ? or(ilike(users.name, `%${escapeLike(term)}%`), ilike(users.email, `%${escapeLike(term)}%`)) : undefined;
}

export async function listUsers(options: { search?: string } = {}): Promise<PublicUser[]> {
  const rows = await getDb()
    .select()
    .from(users)
    .where(searchWhere(options.search))
    .orderBy(asc(users.name), asc(users.email));
  return rows.map(toPublicUser);
}

/** The directory's rows for GET /api/users as CSV (`search` as the list), in its order. */
export function usersExportQuery(search: string | undefined): SQL {
  const term = search?.trim();
  const like = term ? `%${escapeLike(term)}%` : null;
  return sql`select u.name, u.email, u.department, u.role, u.access, u.position, u.active,
      ${sql.raw(iso("u.created_at"))} as "createdAt"
    from users u ${like ? sql`where u.name ilike ${like} or u.email ilike ${like}` : sql``}
    order by u.name, u.email`;
}

/** One page of the same list, newest account first (keyset: app/models/shared/keyset.ts), in one query. */
export async function listUsersPage(options: { search?: string }, page: PageRequest): Promise<PageOf<PublicUser>> {
  const rows = await getDb()
    .select({ row: users, at: sql<string>`${users.createdAt}::text` })
    .from(users)
    .where(and(searchWhere(options.search), afterKey(users.createdAt, users.id, page.after)))
    .orderBy(desc(users.createdAt), desc(users.id))
    .limit(page.limit + 1);
  const { rows: taken, next } = cut(rows, page.limit, (r) => ({ values: [r.at], id: r.row.id }));
  return { rows: taken.map((r) => toPublicUser(r.row)), next };
}

function escapeLike(term: string): string {
  return term.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Checks an email and password; the same answer for an unknown email and a wrong password. */
export async function verifyLogin(email: string, password: string): Promise<UserRow> {
  const user = await getUserByEmail(email);
  if (!user) {
    dummyHash ??= hashPassword("not-a-real-password");
    await passwordMatches(await dummyHash, password);
    throw new Unauthorized("Invalid email or password");
  }
  const matches = await passwordMatches(user.passwordHash, password);
  if (!matches || !user.active) throw new Unauthorized("Invalid email or password");
  return user;
}

// ---------------------------------------------------------------------------------------------
// Writes

/** The user's audit chain; never a password, hash or token, only that one changed. */
export const auditUser = (
  db: Executor,
  userId: string,
  actorId: string | null,
  entry: Omit<AuditInput, "kind" | "recordId" | "actorId">,
) => appendAudit(db, { kind: "user", recordId: userId, actorId, ...entry });

export { describeAccount };

/**
 * Once per database (claimed in `job_runs`), at start: every account whose chain never described
 * it (made before the audit trail, migration 0010) gets one entry that does, so the verification
 * can hold each account to its chain from then on (audit-account.server.ts). Returns how many.
 */
export async function adoptAccountRecords(): Promise<number> {
  return getDb().transaction(async (tx) => {
    const claimed = await tx.execute(sql`insert into job_runs (queue, key) values ('audit-adopt', 'accounts')
      on conflict do nothing returning key`);
    if (claimed.length === 0) return 0;
    const rows = await tx
      .select()
      .from(users)
      .where(
        sql`not exists (select 1 from audit_entries e where e.record_kind = 'user' and e.record_id = ${users.id}
          and (e.action like 'Created%' or e.action = ${ACCOUNT_RECORDED}))`,
      );
    const entries = rows.map((row) => ({
      kind: "user" as const,
      recordId: row.id,
      actorId: null,
      action: ACCOUNT_RECORDED,
      comment: describeAccount(row),
    }));
    for (let start = 0; start < entries.length; start += 1000) {
      await appendAuditEntries(tx, entries.slice(start, start + 1000));
    }
    return entries.length;
  });
}

/** The audited fields of an account, as they read in its history. */
const AUDITED_FIELDS = ["name", "email", "role", "department", "access", "position", "rank", "active"] as const;

/** One entry per changed field ("Changed role", from "user" to "admin"). */
export async function auditFieldChanges(
  db: Executor,
  before: UserRow,
  after: UserRow,
  actorId: string | null,
  comment?: string,
): Promise<void> {
  for (const field of AUDITED_FIELDS) {
    const from = before[field];
    const to = after[field];
    if (from === to) continue;
    await auditUser(db, after.id, actorId, {
      action: field === "active" ? (to ? "Reactivated" : "Deactivated") : `Changed ${field}`,
      from: from === null ? null : String(from),
      to: to === null ? null : String(to),
      comment,
    });
  }
}

const isUniqueViolation = (error: unknown) => databaseErrorCode(error) === "23505";
const isForeignKeyViolation = (error: unknown) => databaseErrorCode(error) === "23503";
const duplicateEmail = () => new Conflict("A user with this email already exists");

/** Creates a user on an admin's behalf; they choose their own password at first sign-in. */
export async function createUser(actor: PublicUser, input: NewUserInput): Promise<PublicUser> {
  if (!canManageUsers(actor)) throw new Forbidden("Only an admin can create users");
  const data = newUserSchema.parse(input);
  const passwordHash = await hashPassword(data.password);
  try {
    return await getDb().transaction(async (tx) => {
      await checkRankOffered(tx, data.rank);
      const [row] = await tx
        .insert(users)
        .values({ ...data, passwordHash, onboarded: false })
        .returning();
      await auditUser(tx, row!.id, actor._id, { action: "Created", comment: describeAccount(row!) });
      if (row!.rank) await auditUser(tx, row!.id, actor._id, { action: "Changed rank", from: null, to: row!.rank });
      return toPublicUser(row!);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateEmail();
    throw error;
  }
}

/** Creates a user directly (first admin, seed): no actor, already onboarded. */
export async function insertUser(
  input: NewUserInput & { onboarded?: boolean },
  db: Executor = getDb(),
): Promise<PublicUser> {
  const data = newUserSchema.parse(input);
  const [row] = await db
    .insert(users)
    .values({ ...data, passwordHash: await hashPassword(data.password), onboarded: input.onboarded ?? true })
    .returning();
  await auditUser(db, row!.id, null, { action: "Created (by the system)", comment: describeAccount(row!) });
  return toPublicUser(row!);
}

/**
 * Serialises the admin-side user changes (update, delete), so two admins demoting, deactivating or
 * deleting each other at the same moment cannot both pass the last-admin check.
 */
export async function lockUserAdministration(tx: Executor): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${ADVISORY_LOCKS.userAdministration})`);
}

export async function activeAdminCount(db: Executor, exceptId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.role, "admin"), eq(users.active, true), ne(users.id, exceptId)));
  return row?.n ?? 0;
}

/**
 * Before a user's public fields change: the stored MOC documents that show the user are rebuilt at
 * commit (db/derived.ts); taking their locks first, in order, keeps that rebuild from deadlocking
 * with a workflow step on one of those MOCs.
 */
export async function lockDocumentsShowing(tx: Executor, userId: string) {
  await tx.execute(sql`select lock_moc_documents_of_user(${userId})`);
}

export async function updateUser(actor: PublicUser, input: UserUpdateInput): Promise<PublicUser> {
  if (!canManageUsers(actor)) throw new Forbidden("Only an admin can change other users");
  const { _id, password, ...fields } = userUpdateSchema.parse(input);
  return getDb().transaction(async (tx) => {
    await lockUserAdministration(tx);
    await lockDocumentsShowing(tx, _id);
    const [current] = await tx.select().from(users).where(eq(users.id, _id)).for("update");
    if (!current) throw new NotFound("No user with this id");
    await checkRankOffered(tx, fields.rank, current.rank);
    const losesAdmin =
      current.role === "admin" && current.active && (fields.role === "user" || fields.active === false);
    if (losesAdmin && (await activeAdminCount(tx, _id)) === 0) {
      throw new Conflict("This is the last active admin; make someone else an admin first");
    }
    const changes: Partial<typeof users.$inferInsert> = { ...fields, updatedAt: new Date() };
    // Re-hash only a password that actually changed; an admin-set password means re-onboarding.
    if (password !== undefined && !(await passwordMatches(current.passwordHash, password))) {
      changes.passwordHash = await hashPassword(password);
      changes.onboarded = false;
    }
    let row: UserRow | undefined;
    try {
      [row] = await tx.update(users).set(changes).where(eq(users.id, _id)).returning();
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateEmail();
      throw error;
    }
    await auditFieldChanges(tx, current, row!, actor._id);
    if (changes.passwordHash) await auditUser(tx, _id, actor._id, { action: "Password reset by an admin" });
    if (fields.active === false || changes.passwordHash) {
      await tx
        .update(sessions)
        .set({ revokedAt: new Date() })
        .where(and(eq(sessions.userId, _id), sql`${sessions.revokedAt} is null`));
    }
    return toPublicUser(row!);
  });
}

const referencedConflict = () =>
  new Conflict("Records refer to this user, so they cannot be deleted; deactivate them instead");

export async function deleteUser(actor: PublicUser, id: string): Promise<{ _id: string }> {
  if (!canManageUsers(actor)) throw new Forbidden("Only an admin can delete users");
  if (!z.uuid().safeParse(id).success)
    throw new Invalid("_id must be a user id", [{ path: "_id", message: "Expected a user id" }]);
  if (id === actor._id) throw new Conflict("You cannot delete your own account");
  return getDb().transaction(async (tx) => {
    await lockUserAdministration(tx);
    const [current] = await tx.select().from(users).where(eq(users.id, id)).for("update");
    if (!current) throw new NotFound("No user with this id");
    if (current.role === "admin" && (await activeAdminCount(tx, id)) === 0) {
      throw new Conflict("This is the last admin and cannot be deleted");
    }
    // Reviews name people by id without a foreign key (arrays and JSON): check them here.
    const [named] = await tx.execute<{ yes: boolean }>(sql`select exists (select 1 from year_end_reviews r
      where ${id}::uuid = any(r.participants) or r.actions @> ${JSON.stringify([{ owner: id }])}::jsonb) as yes`);
    if (named?.yes) throw referencedConflict();
    try {
      // A savepoint, so a refused delete leaves the transaction usable for the error path.
      await tx.transaction(async (sp) => {
        await sp.delete(users).where(eq(users.id, id));
      });
    } catch (error) {
      if (isForeignKeyViolation(error)) throw referencedConflict();
      throw error;
    }
    await auditUser(tx, id, actor._id, { action: "Deleted", comment: describeAccount(current) });
    return { _id: id };
  });
}

/** A user changes their own name, email or password (the password needs the current one). */
export async function updateOwnProfile(
  actor: PublicUser,
  input: OwnProfileInput,
  options: { keepSessionId?: string; clientAddress: string },
): Promise<PublicUser> {
  assertNoAdminOnlyFields(input);
  const data = ownProfileSchema.parse(input);
  // A display name is what signatures print: only an admin changes it (their own too), so nobody
  // signs under a name they gave themselves (docs/decisions/026-four-eyes-by-record.md).
  if (data.name !== undefined && data.name !== actor.name && !canManageUsers(actor)) {
    throw new Forbidden("Only an admin can change your name; ask one to");
  }
  // A new password or a new email needs the current password (an email is where sign-in links and
  // resets go). It spends the same failure budget as signing in. Counted before the
  // transaction, never inside it: it needs a pool connection of its own, and a transaction holding
  // the user-documents lock while it waits for one can starve the pool.
  const emailChanges = data.email !== undefined && data.email !== actor.email;
  const needsPassword = data.password !== undefined || emailChanges;
  const attempt =
    needsPassword && data.currentPassword ? await startPasswordAttempt(actor.email, options.clientAddress) : null;
  const updated = await getDb().transaction(async (tx) => {
    await lockDocumentsShowing(tx, actor._id);
    const [current] = await tx.select().from(users).where(eq(users.id, actor._id)).for("update");
    if (!current) throw new NotFound("No user with this id");
    const changes: Partial<typeof users.$inferInsert> = { updatedAt: new Date() };
    if (data.name !== undefined) changes.name = data.name;
    if (data.email !== undefined) changes.email = data.email;
    if (needsPassword) {
      if (!attempt || !(await passwordMatches(current.passwordHash, data.currentPassword!))) {
        throw new Invalid("Your current password is not correct", [
          {
            path: "currentPassword",
            message: data.currentPassword ? "Current password is not correct" : "Enter your current password",
          },
        ]);
      }
      // Onboarding means choosing a password the admin does not know (as on /onboarding).
      if (data.password !== undefined && !current.onboarded && data.password === data.currentPassword) {
        throw new Invalid("Choose a password different from the one you were given", [
          { path: "password", message: "Choose a password different from the one you were given" },
        ]);
      }
    }
    if (data.password !== undefined) {
      changes.passwordHash = await hashPassword(data.password);
      changes.onboarded = true;
    }
    let row: UserRow | undefined;
    try {
      [row] = await tx.update(users).set(changes).where(eq(users.id, actor._id)).returning();
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateEmail();
      throw error;
    }
    await auditFieldChanges(tx, current, row!, actor._id);
    if (changes.passwordHash) await auditUser(tx, actor._id, actor._id, { action: "Changed their own password" });
    if (changes.passwordHash) {
      // A new password signs out every other session of this user.
      const others = options.keepSessionId ? ne(sessions.id, options.keepSessionId) : undefined;
      await tx
        .update(sessions)
        .set({ revokedAt: new Date() })
        .where(and(eq(sessions.userId, actor._id), sql`${sessions.revokedAt} is null`, others));
    }
    return toPublicUser(row!);
  });
  await attempt?.succeeded();
  return updated;
}

/** First sign-in: the user replaces the password an admin gave them. */
export async function completeOnboarding(actor: PublicUser, password: string, sessionId: string): Promise<PublicUser> {
  const current = await getUserById(actor._id);
  if (!current) throw new NotFound("No user with this id");
  if (await passwordMatches(current.passwordHash, password)) {
    throw new Invalid("Choose a password different from the one you were given", [
      { path: "password", message: "Choose a password different from the one you were given" },
    ]);
  }
  const row = await getDb().transaction(async (tx) => {
    const [updated] = await tx
      .update(users)
      .set({ passwordHash: await hashPassword(passwordSchema.parse(password)), onboarded: true, updatedAt: new Date() })
      .where(eq(users.id, actor._id))
      .returning();
    await auditUser(tx, actor._id, actor._id, { action: "Chose their password at first sign-in" });
    await tx
      .update(sessions)
      .set({ revokedAt: new Date() })
      .where(and(eq(sessions.userId, actor._id), ne(sessions.id, sessionId), sql`${sessions.revokedAt} is null`));
    return updated!;
  });
  return toPublicUser(row);
}

/**
 * At start: create the first admin. With ADMIN_EMAIL/ADMIN_PASSWORD, that admin unless the email
 * exists; with neither and no users at all, admin@example.com with a random password that the
 * caller prints once.
 */
export async function ensureFirstAdmin(config: {
  email?: string;
  password?: string;
}): Promise<{ email: string; password?: string } | null> {
  const db = getDb();
  const base = { name: "Administrator", role: "admin", department: "hseq", access: "full", onboarded: true } as const;
  if (config.email && config.password) {
    if (await getUserByEmail(config.email)) return null;
    return (await insertIfAbsent({ ...base, email: config.email, password: config.password }))
      ? { email: config.email.toLowerCase() }
      : null;
  }
  const [row] = await db.select({ n: count() }).from(users);
  if ((row?.n ?? 0) > 0) return null;
  const password = randomBytes(12).toString("base64url");
  return (await insertIfAbsent({ ...base, email: "admin@example.com", password }))
    ? { email: "admin@example.com", password }
    : null;
}

/** Another instance starting at the same moment may have created it first. */
async function insertIfAbsent(input: NewUserInput & { onboarded: boolean }): Promise<boolean> {
  try {
    await insertUser(input);
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}
