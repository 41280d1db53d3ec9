/**
 * Reads the database behind the API, so a test can check what a request really changed (or that a
 * refused one changed nothing).
 */
import { asc, eq } from "drizzle-orm";
import { expect } from "vitest";
import { getDb } from "../../app/utils/db.server";
import { sessions, users } from "../../db/schema";

export type UserRow = typeof users.$inferSelect;

export async function userRow(id: string): Promise<UserRow | undefined> {
  const [row] = await getDb().select().from(users).where(eq(users.id, id));
  return row;
}

/** Every user and session row, in a stable order. */
export async function dbState() {
  const db = getDb();
  return {
    users: await db.select().from(users).orderBy(asc(users.id)),
    sessions: await db.select().from(sessions).orderBy(asc(sessions.id)),
  };
}

/** Runs a request that must be refused and checks that no user or session row changed. */
export async function expectUnchanged<T>(run: () => Promise<T>): Promise<T> {
  const before = await dbState();
  const result = await run();
  expect(await dbState()).toEqual(before);
  return result;
}
