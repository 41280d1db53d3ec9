/**
 * Reads the database behind the API, so a test can check what a request really changed (or that a
 * refused one changed nothing).
 */
import { asc, eq, sql } from "drizzle-orm";
import { expect } from "vitest";
import { getDb } from "../../app/utils/db.server";
import { MOC_JSON } from "../../db/moc-document";
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

/**
 * Every stored MOC document (moc_documents, kept by triggers) equals the document built from the
 * tables right now, and every MOC has one. Test files that change MOCs in many ways call it last.
 */
export async function expectStoredDocumentsFresh() {
  const rows = await getDb().execute<{ id: string; serial_num: string; stored: boolean; fresh: boolean }>(
    sql.raw(`select m.id, m.serial_num, d.moc_id is not null as stored,
      coalesce(d.doc::jsonb = (${MOC_JSON})::jsonb, false) as fresh
      from mocs m left join moc_documents d on d.moc_id = m.id`),
  );
  expect(rows.filter((row) => !row.stored || !row.fresh).map((row) => row.serial_num)).toEqual([]);
  return rows.length;
}
