import { and, eq, gt, isNull, sql, type Placeholder, type SQL } from "drizzle-orm";
import { getDb, preparedOnceBy } from "~/utils/db.server";
import { sessions, users } from "#db/schema";
import { SESSION_TTL_SECONDS, signToken, type TokenPayload } from "~/utils/token.server";
import { PUBLIC_USER_COLUMNS, toPublicUser, type PublicUser } from "../people/user.server";

/** Opens a server-side session row and signs a token that names it. */
export async function createSession(user: PublicUser): Promise<{ token: string; sessionId: string }> {
  const [row] = await getDb()
    .insert(sessions)
    .values({ userId: user._id, expiresAt: new Date(Date.now() + SESSION_TTL_SECONDS * 1000) })
    .returning({ id: sessions.id });
  const token = signToken(sessionClaims(user, row!.id));
  return { token, sessionId: row!.id };
}

/** What a session token says of its user (who they were at sign-in) and which session row it names. */
export const sessionClaims = (user: PublicUser, sid: string) => ({
  _id: user._id,
  name: user.name,
  email: user.email,
  role: user.role,
  department: user.department,
  access: user.access,
  position: user.position,
  sid,
});

/** The session lookup every request makes, with a companion's value beside the user (see loadSessionUser). */
const sessionUserQuery = preparedOnceBy(
  (db, companion: Companion<unknown> | null) =>
    db
      // The user's public columns only: the password hash is never read for a request.
      .select({ user: PUBLIC_USER_COLUMNS, extra: companion ? companion.sql(sql.placeholder("userId")) : sql`null` })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(
        and(
          eq(sessions.id, sql.placeholder("sid")),
          eq(sessions.userId, sql.placeholder("userId")),
          isNull(sessions.revokedAt),
          gt(sessions.expiresAt, sql`now()`),
          eq(users.active, true),
        ),
      )
      .prepare(companion ? `session_user_${companion.name}` : "session_user"),
  (companion) => companion?.name ?? null,
);

/**
 * The live user behind a verified token, in one query: the session must be neither revoked nor
 * expired and the user must still exist and be active. Role changes apply at once because the
 * user is re-read here rather than trusted from the token. Every request runs it, so it is a
 * prepared statement built once: one round trip, and no planning once a connection has seen it.
 *
 * `companion` adds one value computed by the same statement for the session's user, so a hot read
 * costs one round trip in all: `name` identifies its SQL, which is built once.
 */
export async function loadSessionUser(payload: TokenPayload): Promise<PublicUser | null>;
export async function loadSessionUser<T>(
  payload: TokenPayload,
  companion: Companion<T>,
): Promise<{ user: PublicUser; value: T } | null>;
export async function loadSessionUser<T>(payload: TokenPayload, companion?: Companion<T>) {
  const [row] = await sessionUserQuery(companion ?? null).execute({ sid: payload.sid, userId: payload._id });
  if (!row) return null;
  const user = toPublicUser(row.user);
  return companion ? { user, value: row.extra as T } : user;
}

/**
 * A value to read beside the session's user: its SQL, given the user's id (the statement's own
 * parameter, already checked against the session), and a name unique to that SQL.
 */
export type Companion<T> = { name: string; sql: (userId: Placeholder) => SQL<T> };

export async function revokeSession(sessionId: string): Promise<void> {
  await getDb()
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
}
