import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { getDb, preparedOnce } from "~/utils/db.server";
import { sessions, users } from "#db/schema";
import { SESSION_TTL_SECONDS, signToken, type TokenPayload } from "~/utils/token.server";
import { toPublicUser, type PublicUser } from "./user.server";

/** Opens a server-side session row and signs a token that names it. */
export async function createSession(user: PublicUser): Promise<{ token: string; sessionId: string }> {
  const [row] = await getDb()
    .insert(sessions)
    .values({ userId: user._id, expiresAt: new Date(Date.now() + SESSION_TTL_SECONDS * 1000) })
    .returning({ id: sessions.id });
  const token = signToken({
    _id: user._id,
    name: user.name,
    email: user.email,
    role: user.role,
    department: user.department,
    access: user.access,
    position: user.position,
    sid: row!.id,
  });
  return { token, sessionId: row!.id };
}

/** The session lookup every request makes, built once (see loadSessionUser). */
const sessionUserQuery = preparedOnce((db) =>
  db
    .select({ user: users })
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
    .prepare("session_user"),
);

/**
 * The live user behind a verified token, in one query: the session must be neither revoked nor
 * expired and the user must still exist and be active. Role changes apply at once because the
 * user is re-read here rather than trusted from the token. Every request runs it, so it is a
 * prepared statement built once: one round trip, and no planning once a connection has seen it.
 */
export async function loadSessionUser(payload: TokenPayload): Promise<PublicUser | null> {
  const [row] = await sessionUserQuery().execute({ sid: payload.sid, userId: payload._id });
  return row ? toPublicUser(row.user) : null;
}

export async function revokeSession(sessionId: string): Promise<void> {
  await getDb()
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
}
