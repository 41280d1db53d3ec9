/**
 * The MOC lists cost the same number of queries whatever their length: GET /api/newmoc and
 * GET /api/getAllMoc are counted (session lookup included) with 10 MOCs and again with 1,000;
 * a list of more than LIST_STREAM_ROWS MOCs, streamed from a cursor, adds one fetch per batch of
 * LIST_FETCH documents, never a query per MOC. Queries are counted through the opt-in hook in
 * db/client.ts.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as getAllMocRoute from "~/routes/api+/getAllMoc";
import * as newmocRoute from "~/routes/api+/newmoc";
import { forgetMocLists, LIST_FETCH, LIST_STREAM_ROWS, mocListBody } from "~/models/moc/moc-query.server";
import type { PublicUser } from "~/models/people/user.server";
import { closeDb, getDb } from "~/utils/db.server";
import type { QueryCounter } from "#db/client";
import { api } from "../helpers/api";
import { buildRequest } from "../helpers/request";
import { makeAdmin, makeUser } from "../helpers/factories";
import { tokenOf } from "../helpers/moc-flow";
import { describeMocInvariants } from "../helpers/db-state";

// Installed before the pool exists (the pool is made on first use, and only then reads it).
const counter: QueryCounter = { count: 0 };
(globalThis as { __cmQueryCounter?: QueryCounter }).__cmQueryCounter = counter;
await closeDb();

let admin: PublicUser;
let member: PublicUser;
let outsider: PublicUser;

beforeAll(async () => {
  [admin, member, outsider] = await Promise.all([
    makeAdmin({ name: "Ada Admin" }),
    makeUser({ name: "Mo Member", department: "operations" }),
    makeUser({ name: "Otto Outsider", department: "fleet" }),
  ]);
});

/**
 * Adds MOCs numbered `from..to` straight into the tables: every one with its chat room, people and
 * a log entry; every third with a Part A form and an implementer form, every fifth completed, and
 * a deleted one for every 100 (never listed). `member` is involved in the even ones.
 */
async function seed(from: number, to: number): Promise<void> {
  const db = getDb();
  await db.execute(sql`
    insert into chat_rooms (id) select md5('chat-' || g)::uuid from generate_series(${from}::int, ${to}::int) g`);
  await db.execute(sql`
    insert into mocs (id, serial_num, serial_year, serial_count, status, completed, is_deleted,
                      originator_id, implementer_id, approver_id, chat_id, target_date)
    select md5('moc-' || g)::uuid, g || '-1999', 1999, g,
           (array['b', 'c', 'd', 'e', 'f', 'decline'])[1 + g % 6],
           g % 5 = 0, g % 100 = 99,
           ${admin._id}::uuid, case when g % 2 = 0 then ${member._id}::uuid else ${admin._id}::uuid end,
           case when g % 4 = 0 then ${outsider._id}::uuid end,
           md5('chat-' || g)::uuid, date '2031-01-01' + g
    from generate_series(${from}::int, ${to}::int) g`);
  await db.execute(sql`
    insert into moc_users (moc_id, user_id)
    select md5('moc-' || g)::uuid, ${admin._id}::uuid from generate_series(${from}::int, ${to}::int) g
    union all
    select md5('moc-' || g)::uuid, ${member._id}::uuid from generate_series(${from}::int, ${to}::int) g where g % 2 = 0
    union all
    select md5('moc-' || g)::uuid, ${outsider._id}::uuid from generate_series(${from}::int, ${to}::int) g where g % 4 = 0`);
  await db.execute(sql`
    insert into moc_forms (moc_id, kind, data, submitted_at, submitted_by)
    select md5('moc-' || g)::uuid, k.kind,
           jsonb_build_object('description-of-change', jsonb_build_object('value', '<p>Change ' || g || '</p>')),
           now(), ${admin._id}::uuid
    from generate_series(${from}::int, ${to}::int) g cross join (values ('originator'), ('implementer')) k(kind)
    where g % 3 = 0`);
  await db.execute(sql`
    insert into moc_logs (moc_id, user_id, action, from_status, to_status)
    select md5('moc-' || g)::uuid, ${admin._id}::uuid, 'Seeded', null, 'b'
    from generate_series(${from}::int, ${to}::int) g`);
}

/** The queries one request costs (a list not yet kept in memory), and its answer. */
async function counted(route: Parameters<typeof api>[0], path: string, who: PublicUser) {
  const token = await tokenOf(who);
  forgetMocLists();
  const start = counter.count;
  const res = await api(route, { path, token });
  const queries = counter.count - start;
  expect(res.status, res.text).toBe(200);
  return { queries, data: res.body.data as { _id: string; completed: boolean; isDeleted: boolean }[] };
}

const LISTS = [
  ["GET /api/newmoc", newmocRoute, "/api/newmoc"],
  ["GET /api/getAllMoc", getAllMocRoute, "/api/getAllMoc"],
] as const;

describe("query counts of the MOC lists", () => {
  it("are the same for 10 and for 1,000 MOCs, for admins and for standard users", async () => {
    // 10 listed MOCs (numbers 1..10; none is deleted).
    await seed(1, 10);
    const small = new Map<string, number>();
    for (const [name, route, path] of LISTS) {
      for (const who of [admin, member]) {
        const { queries, data } = await counted(route, path, who);
        small.set(`${name}/${who.name}`, queries);
        expect(queries).toBeGreaterThan(0);
        if (who === admin) expect(data).toHaveLength(10);
      }
    }

    // 1,000 listed MOCs: numbers 1..1010 minus the 10 deleted ones (99, 199, ..., 999).
    await seed(11, 1010);
    const [row] = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from mocs where not is_deleted`);
    expect(row!.n).toBe(1000);
    for (const [name, route, path] of LISTS) {
      for (const who of [admin, member]) {
        const { queries, data } = await counted(route, path, who);
        const inMemory = small.get(`${name}/${who.name}`)!;
        if (data.length <= LIST_STREAM_ROWS) {
          expect(queries, `${name} as ${who.name}`).toBe(inMemory);
          // One query for the session, one for the list's fingerprint, one for the list (not in memory yet).
          expect(queries, `${name} as ${who.name}`).toBeLessThanOrEqual(3);
        } else {
          // Streamed: the transaction's begin, timeout, cursor and end, and one fetch per batch.
          const fetches = Math.floor(data.length / LIST_FETCH) + 1;
          expect(queries, `${name} as ${who.name}`).toBeLessThanOrEqual(inMemory + 4 + fetches);
        }
        expect(data.every((m) => !m.isDeleted)).toBe(true);
        if (who === admin) expect(data).toHaveLength(1000);
      }
    }
  });

  it("the 1,000-MOC lists hold exactly the MOCs each caller may see, fully populated", async () => {
    const ids = async (where: string) =>
      [...(await getDb().execute<{ id: string }>(sql.raw(`select id from mocs m where ${where} order by id`)))].map(
        (r) => r.id,
      );
    const sorted = (data: { _id: string }[]) => data.map((m) => m._id).sort();

    const adminAll = await counted(newmocRoute, "/api/newmoc", admin);
    expect(adminAll.data).toHaveLength(1000);
    expect(sorted(adminAll.data)).toEqual(await ids("not m.is_deleted"));

    const mine = await counted(newmocRoute, "/api/newmoc", member);
    expect(sorted(mine.data)).toEqual(
      await ids(
        `not m.is_deleted and exists (select 1 from moc_users mu where mu.moc_id = m.id and mu.user_id = '${member._id}')`,
      ),
    );
    expect(mine.data.length).toBeGreaterThan(400);

    const completed = await counted(getAllMocRoute, "/api/getAllMoc", member);
    expect(sorted(completed.data)).toEqual(await ids("not m.is_deleted and m.completed"));
    expect(completed.data.every((m) => m.completed)).toBe(true);

    // Population holds at this size: a seeded MOC with forms, people and logs.
    const sample = (adminAll.data as Record<string, unknown>[]).find((m) => m.serial_num === "300-1999")!;
    expect(sample).toMatchObject({
      originator_form: { "description-of-change": { value: "<p>Change 300</p>" } },
      implementer_form: { _id: expect.any(String) },
      originator_id: { _id: admin._id, name: admin.name },
      implementer_id: { _id: member._id },
      approver_id: { _id: outsider._id },
      logs: [{ action: "Seeded", userId: { _id: admin._id } }],
    });
    expect((sample.all_users as { _id: string }[]).map((u) => u._id).sort()).toEqual(
      [admin._id, member._id, outsider._id].sort(),
    );
  });
});

describe("a list of more than LIST_STREAM_ROWS MOCs", () => {
  const request = async (headers: Record<string, string> = {}) =>
    getAllMocRoute.loader({
      request: await buildRequest({ path: "/api/getAllMoc", token: await tokenOf(admin), headers }),
      params: {},
      context: {},
    } as never) as Promise<Response>;

  it("is streamed with the same bytes and fingerprint as the list built in memory, and answers 304 unchanged", async () => {
    forgetMocLists();
    const built = await mocListBody("everything", admin._id);
    const streamed = await request();
    expect(streamed.status).toBe(200);
    // Streamed: its length is known only at its end.
    expect(streamed.headers.get("Content-Length")).toBeNull();
    expect(streamed.headers.get("ETag")).toBe(`"${built.etag}"`);
    expect(Buffer.from(await streamed.arrayBuffer()).equals(Buffer.from(built.body as Uint8Array))).toBe(true);
    expect(JSON.parse(Buffer.from(built.body as Uint8Array).toString()).data).toHaveLength(1000);
    // The fingerprint ends with the number of MOCs listed.
    expect(built.etag).toMatch(/^[0-9a-f]{32}\.1000$/);

    const unchanged = await request({ "If-None-Match": `"${built.etag}"` });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe("");
  });

  it("ends its read transaction when the client stops reading part way", async () => {
    const streamed = await request();
    const reader = streamed.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    await reader.cancel();
    // The cursor's transaction ends: no connection of this database is left inside one.
    const open = async () =>
      (
        await getDb().execute<{ n: number }>(sql`select count(*)::int as n from pg_stat_activity
          where datname = current_database() and state like 'idle in transaction%'`)
      )[0]!.n;
    await expect.poll(open, { timeout: 5_000 }).toBe(0);
  });
});

describeMocInvariants();
