/**
 * Reads the database behind the API, so a test can check what a request really changed (or that a
 * refused one changed nothing).
 */
import { asc, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "~/utils/db.server";
import { MOC_JSON } from "#db/moc-document";
import { sessions, users } from "#db/schema";

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

/**
 * Whoever holds a role on a MOC past its draft (originator, implementer, approver, HSEQ, verifier)
 * is in its all_users: the pending actions (actions.server.ts) look only at the caller's all_users.
 * A draft names its implementer without sharing it yet; submitting Part A adds them.
 */
export async function expectRoleHoldersInvolved() {
  const rows = await getDb().execute<{ serial_num: string; role: string }>(sql`
    select m.serial_num, m.status, r.role from mocs m
    cross join lateral (values ('originator', m.originator_id), ('implementer', m.implementer_id),
      ('approver', m.approver_id), ('hseq', m.hseq_id), ('verifier', m.verifier_id)) r(role, user_id)
    where m.status <> 'a' and r.user_id is not null
      and not exists (select 1 from moc_users mu where mu.moc_id = m.id and mu.user_id = r.user_id)
    order by 1, 2`);
  expect([...rows]).toEqual([]);
}

/** The last tests of a file that changes MOCs in many ways: what must hold after all of it. */
export function describeMocInvariants() {
  describe("after everything above", () => {
    it("the stored MOC documents match the documents built from the tables", async () => {
      await expectStoredDocumentsFresh();
    });
    it("every role holder of every MOC is in its all_users", async () => {
      await expectRoleHoldersInvolved();
    });
  });
}
