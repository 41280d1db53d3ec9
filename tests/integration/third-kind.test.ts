/**
 * The third kind (issue 39, docs/decisions/060-record-kinds.md): a work permit, built here alone
 * — its tables as its migration would make them, its functions and its one registry entry — is
 * found by search, is on its holder's "Waiting on me", has its own trail checked by the audit
 * verification (a tampered entry and a permit its trail does not account for are found) and is
 * reminded by the daily run, with no change to any file of the app.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getClient } from "#db/client";
import { searchEntryTriggerSql, type SearchEntryDefinition } from "#db/search-document";
import { entryLink, lockHead, storeHeadSql } from "~/models/audit/audit-chain.server";
import { verifyAuditTrail } from "~/models/audit/audit-verify.server";
import { runDailyReminders } from "~/models/ops/daily-reminders.server";
import type { PublicUser } from "~/models/people/user.server";
import {
  defineRecordKind,
  kindsWith,
  registerRecordKinds,
  unregisterRecordKind,
  type NotedRecord,
  type TrailNote,
} from "~/models/record-kind/record-kind";
import { search, type SearchGroup } from "~/models/records/search.server";
import * as dashboardPage from "~/routes/_index";
import { getDb, type Executor } from "~/utils/db.server";
import { makeUser } from "../helpers/factories";
import { pageHtml } from "../helpers/page-html";

// ---------------------------------------------------------------------------------------------
// The work permit's own files: its tables, its trail, its waiting work, its reminders, its entry

const PERMIT = "work-permit";

/** Its tables: the permits, and its trail with moc_logs' columns (docs/decisions/025-keyed-audit-chain.md). */
const TABLES = `
  create table work_permits (id uuid primary key default gen_random_uuid(), serial_num text not null,
    title text not null, work text, status text not null default 'requested', holder_id uuid not null,
    approver_id uuid not null, valid_until date not null, reminded_on date,
    created_at timestamptz not null default now());
  create table work_permit_logs (id uuid primary key default gen_random_uuid(),
    permit_id uuid not null references work_permits(id), seq integer not null, prev_hash text, hash text not null,
    key_id text, user_id uuid, on_behalf_of uuid, action text not null, from_status text, to_status text,
    comment text, at timestamptz not null, unique (permit_id, seq))`;

/** What search finds a permit by: its serial, its title (A) and the work it allows (B). */
const PERMIT_SEARCH: SearchEntryDefinition = {
  kind: "work_permit",
  recordKind: PERMIT,
  from: "work_permits w",
  id: "w.id",
  serial: "w.serial_num",
  title: "w.title",
  excerpt: "w.work",
  fields: [
    { weight: "A", sql: "w.title" },
    { weight: "B", sql: "w.work" },
  ],
};

/** One entry in a permit's chain: its head locked, the keyed link, the entry and the new head. */
async function appendPermitLog(tx: Executor, permitId: string, entry: TrailNote & { status: string | null }) {
  const head = await lockHead(tx, PERMIT, permitId);
  const at = new Date();
  const link = entryLink(PERMIT, permitId, head, {
    userId: entry.actorId,
    onBehalfOf: null,
    action: entry.action,
    fromStatus: entry.from ?? entry.status,
    toStatus: entry.to ?? entry.status,
    comment: entry.comment ?? null,
    at,
  });
  await tx.execute(sql`insert into work_permit_logs (permit_id, seq, prev_hash, hash, key_id, user_id, action,
      from_status, to_status, comment, at)
    values (${permitId}, ${link.seq}, ${link.prevHash}, ${link.hash}, ${link.keyId}, ${entry.actorId}, ${entry.action},
      ${entry.from ?? entry.status}, ${entry.to ?? entry.status}, ${entry.comment ?? null}, ${at.toISOString()})`);
  await tx.execute(
    storeHeadSql(
      sql`${PERMIT}`,
      sql`${permitId}::uuid`,
      sql`${link.seq}`,
      sql`${link.hash}`,
      sql`${link.keyId}`,
      sql`${link.headMac}`,
    ),
  );
}

const PERMIT_KIND = defineRecordKind({
  name: PERMIT,
  label: "Work permit",
  page: (id) => `/permits/${id}`,
  table: { name: "work_permits", alias: "w" },
  // Its holder and its approver read it.
  readSql: (actor) => sql`(w.holder_id = ${actor._id} or w.approver_id = ${actor._id})`,
  audit: {
    chain: PERMIT,
    log: { table: "work_permit_logs", recordColumn: "permit_id" },
    note: (tx: Executor, record: NotedRecord, note: TrailNote) =>
      appendPermitLog(tx, record.id, { ...note, status: record.status ?? null }),
    // A permit whose trail has no entry.
    stateProblems: async (db) =>
      [
        ...(await db.execute<{ id: string }>(
          sql`select w.id from work_permits w where not exists (select 1 from work_permit_logs l where l.permit_id = w.id)`,
        )),
      ].map((row) => ({ recordId: row.id, seq: 0, entryId: "", reason: "the permit has no entry in its trail" })),
  },
  search: {
    entry: PERMIT_SEARCH,
    group: "permits",
    serialPrefix: "ptw",
    status: sql`w.status`,
    completed: sql`w.status = 'closed'`,
    newest: sql`w.created_at`,
  },
  // A requested permit waits on its approver.
  async waiting(actor, options) {
    const rows = await getDb().execute<{
      id: string;
      serial_num: string;
      title: string;
      created_at: string;
      valid_until: string;
    }>(sql`
      select w.id, w.serial_num, w.title, w.created_at::text, w.valid_until::text from work_permits w
      where w.status = 'requested' and w.approver_id = ${actor._id} order by w.created_at`);
    return {
      total: rows.length,
      items: rows.slice(0, options.limit).map((row) => ({
        kind: PERMIT,
        recordId: row.id,
        text: `PTW ${row.serial_num} — ${row.title}: approval`,
        path: `/permits/${row.id}`,
        waitingSince: new Date(row.created_at).toISOString(),
        dueOn: row.valid_until,
        badge: null,
        detail: null,
      })),
    };
  },
  // A permit that ends within two days is reminded once a day (claimed: a second run sends nothing).
  async reminders(tx, day) {
    const claimed = await tx.execute<{ id: string }>(sql`
      update work_permits set reminded_on = ${day}::date
      where status = 'approved' and valid_until <= ${day}::date + 2 and reminded_on is distinct from ${day}::date
      returning id`);
    return {
      summary: claimed.length ? `${claimed.length} work permit(s) ending soon reminded` : null,
      emails: claimed.length,
    };
  },
});

// ---------------------------------------------------------------------------------------------
// The test

const kindCheck = (kinds: string[]) =>
  `alter table search_entries drop constraint search_entries_kind_check,
    add constraint search_entries_kind_check check (kind in (${kinds.map((k) => `'${k}'`).join(", ")}))`;

let appSearchKinds: string[];
let holder: PublicUser;
let approver: PublicUser;
let stranger: PublicUser;
let requested: string;
let ending: string;

async function raisePermit(values: {
  serial: string;
  title: string;
  work: string;
  status: string;
  validUntil: string;
}) {
  return getDb().transaction(async (tx) => {
    const [row] = await tx.execute<{ id: string }>(sql`
      insert into work_permits (serial_num, title, work, status, holder_id, approver_id, valid_until)
      values (${values.serial}, ${values.title}, ${values.work}, ${values.status}, ${holder._id}, ${approver._id},
        ${values.validUntil}) returning id`);
    await appendPermitLog(tx, row!.id, { actorId: holder._id, action: "Raised", status: values.status, from: null });
    return row!.id;
  });
}

beforeAll(async () => {
  appSearchKinds = kindsWith("search").map((k) => k.search.entry.kind);
  const raw = getClient().sql;
  await raw.unsafe(TABLES);
  await raw.unsafe(kindCheck([...appSearchKinds, PERMIT_SEARCH.kind]));
  await raw.unsafe(searchEntryTriggerSql(PERMIT_SEARCH));
  // Its one entry.
  registerRecordKinds([PERMIT_KIND]);
  [holder, approver, stranger] = await Promise.all([
    makeUser({ name: "Hana Holder" }),
    makeUser({ name: "Alvar Approver" }),
    makeUser({ name: "Sven Stranger" }),
  ]);
  const today = new Date().toISOString().slice(0, 10);
  requested = await raisePermit({
    serial: "1-2026",
    title: "Hot work on the forecastle",
    work: "Welding the mooring bitt foundation",
    status: "requested",
    validUntil: "2099-01-01",
  });
  ending = await raisePermit({
    serial: "2-2026",
    title: "Enclosed space entry, ballast tank 3",
    work: "Inspecting the ballast tank coating",
    status: "approved",
    validUntil: today,
  });
});

afterAll(async () => {
  unregisterRecordKind(PERMIT);
  const raw = getClient().sql;
  await raw.unsafe(`delete from search_entries where kind = '${PERMIT_SEARCH.kind}';
    drop table work_permit_logs; drop table work_permits; drop function if exists search_entry_${PERMIT_SEARCH.kind}() cascade`);
  await raw.unsafe(kindCheck(appSearchKinds));
});

describe("a third kind through its registry entry alone", () => {
  it("is found by search in a group of its own, by the readers its rule lets read it", async () => {
    const found = await search(approver, "mooring bitt");
    const permits = found.permits as SearchGroup;
    expect(permits.results.map((r) => [r._id, r.link])).toEqual([[requested, `/permits/${requested}`]]);
    expect(((await search(stranger, "mooring bitt")).permits as SearchGroup).total).toBe(0);
  });

  it("is on its approver's 'Waiting on me', linked to the permit, and on nobody else's", async () => {
    const html = await pageHtml(dashboardPage, approver, "/");
    expect(html).toContain("PTW 1-2026 — Hot work on the forecastle: approval");
    expect(html).toContain(`href="/permits/${requested}"`);
    expect(await pageHtml(dashboardPage, stranger, "/")).not.toContain("PTW 1-2026");
  });

  it("has its trail checked by the audit verification, which finds a tampered entry and a permit without one", async () => {
    const clean = await verifyAuditTrail();
    expect(clean.broken.filter((b) => b.kind === PERMIT)).toEqual([]);
    const before = clean.entries;

    // A note through the kind's entry (what a link or a file would write) extends the chain, still intact.
    await getDb().transaction((tx) =>
      PERMIT_KIND.audit.note!(
        tx,
        { id: requested, status: "requested" },
        { actorId: approver._id, action: "Attached the gas test" },
      ),
    );
    const noted = await verifyAuditTrail();
    expect(noted.entries).toBe(before + 1);
    expect(noted.broken.filter((b) => b.kind === PERMIT)).toEqual([]);

    // Someone with database access rewrites what the approver wrote.
    const [tampered] = await getDb().execute<{ id: string }>(sql`
      update work_permit_logs set comment = 'nothing to see' where permit_id = ${requested} and seq = 2 returning id`);
    // And a permit is slipped in without an entry.
    const [slipped] = await getDb().execute<{ id: string }>(sql`
      insert into work_permits (serial_num, title, holder_id, approver_id, valid_until)
      values ('9-2026', 'Unrecorded', ${holder._id}, ${approver._id}, '2099-01-01') returning id`);
    const found = (await verifyAuditTrail()).broken.filter((b) => b.kind === PERMIT);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ recordId: requested, seq: 2, entryId: tampered!.id }),
        expect.objectContaining({ recordId: slipped!.id, reason: "the permit has no entry in its trail" }),
      ]),
    );
    expect(found.find((b) => b.recordId === ending)).toBeUndefined();
    await getDb().execute(sql`delete from work_permits where id = ${slipped!.id}`);
  });

  it("is reminded by the daily run in its transaction, once a day, its summary in the run's message", async () => {
    const day = new Date().toISOString().slice(0, 10);
    const first = await getDb().transaction((tx) => runDailyReminders({ today: day, tx }));
    expect(first.message).toContain("1 work permit(s) ending soon reminded");
    const [row] = await getDb().execute<{ reminded_on: string }>(
      sql`select reminded_on::text from work_permits where id = ${ending}`,
    );
    expect(row!.reminded_on).toBe(day);
    const again = await getDb().transaction((tx) => runDailyReminders({ today: day, tx }));
    expect(again.message).not.toContain("work permit");
  });
});
