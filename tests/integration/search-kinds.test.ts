/**
 * Search over the registered kinds (issue 39, docs/decisions/060-record-kinds.md,
 * docs/decisions/039-search.md): a third kind of record, a work permit, built here alone with its
 * own table, is found by search through its registry entry and nothing else. Its search entry is
 * installed by `searchEntryTriggerSql` (db/search-document.ts), its entry kind added to
 * `search_entries_kind_check` as its migration would; its records are found by their words and
 * their serial (with the kind's own prefix) in a group of their own, linked to their page, only by
 * the readers its reading rule lets read them; the entry follows its row; and the /search page shows
 * the group under the kind's label after the app's three.
 */
import { sql } from "drizzle-orm";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from "react-router-dom/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getClient } from "#db/client";
import { SEARCH_KINDS, searchEntryTriggerSql, type SearchEntryDefinition } from "#db/search-document";
import type { PublicUser } from "~/models/people/user.server";
import {
  defineRecordKind,
  kindsWith,
  registerRecordKinds,
  unregisterRecordKind,
} from "~/models/record-kind/record-kind";
import { parseSearchQuery, search, type SearchGroup, type SearchResults } from "~/models/records/search.server";
import SearchPage, * as searchPage from "~/routes/search";
import { getDb } from "~/utils/db.server";
import { makeAdmin, makeUser } from "../helpers/factories";
import { page } from "../helpers/page";

const TABLE = "test_permits";

/** What search finds a permit by: its serial, its title (A) and the work it allows (B). */
const PERMIT_SEARCH: SearchEntryDefinition = {
  kind: "test_permit",
  recordKind: "test-permit",
  from: `${TABLE} w`,
  id: "w.id",
  serial: "w.serial_num",
  title: "w.title",
  excerpt: "w.work",
  fields: [
    { weight: "A", sql: "w.title" },
    { weight: "B", sql: "w.work" },
  ],
};

/** The kind as the registry holds it: its table, its page, its reading rule (its holder) and its search. */
const PERMIT_KIND = defineRecordKind({
  name: "test-permit",
  label: "Work permit",
  page: (id) => `/permits/${id}`,
  table: { name: TABLE, alias: "w" },
  readSql: (actor) => sql`w.holder_id = ${actor._id}`,
  audit: { chain: "test-permit", log: { table: "audit_entries" }, note: null, stateProblems: null },
  search: {
    entry: PERMIT_SEARCH,
    group: "permits",
    serialPrefix: "ptw",
    status: sql`w.status`,
    completed: sql`w.status = 'closed'`,
    newest: sql`w.created_at`,
  },
});

/** `search_entries_kind_check` over these entry kinds, as a kind's migration writes it. */
const kindCheck = (kinds: string[]) =>
  `alter table search_entries drop constraint search_entries_kind_check,
    add constraint search_entries_kind_check check (kind in (${kinds.map((k) => `'${k}'`).join(", ")}))`;

let appEntries: SearchEntryDefinition[];
let appKinds: string[];
let holder: PublicUser;
let stranger: PublicUser;
let admin: PublicUser;
let permitId: string;

const permits = (results: SearchResults) => results.permits as SearchGroup;
const ids = (group: SearchGroup) => group.results.map((h) => h._id);

beforeAll(async () => {
  appEntries = kindsWith("search").map((k) => k.search.entry);
  appKinds = appEntries.map((e) => e.kind);
  const raw = getClient().sql;
  await raw.unsafe(`create table ${TABLE} (id uuid primary key default gen_random_uuid(), serial_num text not null,
    title text not null, work text, status text not null default 'open', holder_id uuid not null,
    created_at timestamptz not null default now())`);
  await raw.unsafe(kindCheck([...appKinds, PERMIT_SEARCH.kind]));
  await raw.unsafe(searchEntryTriggerSql(PERMIT_SEARCH));
  registerRecordKinds([PERMIT_KIND]);
  [holder, stranger, admin] = await Promise.all([
    makeUser({ name: "Hana Holder" }),
    makeUser({ name: "Sven Stranger" }),
    makeAdmin({ name: "Ada Admin" }),
  ]);
  const [row] = await getDb().execute<{
    id: string;
  }>(sql`insert into ${sql.raw(TABLE)} (serial_num, title, work, holder_id)
    values ('3-2026', 'Hot work on the forecastle', 'Welding the mooring bitt foundation', ${holder._id}) returning id`);
  permitId = row!.id;
});

afterAll(async () => {
  unregisterRecordKind(PERMIT_KIND.name);
  const raw = getClient().sql;
  await raw.unsafe(`drop table if exists ${TABLE}; drop function if exists search_entry_${PERMIT_SEARCH.kind}();
    delete from search_entries where kind = '${PERMIT_SEARCH.kind}'`);
  await raw.unsafe(kindCheck(appKinds));
});

describe("a kind added through its registry entry alone", () => {
  it("beside the app's kinds, whose entries the derived objects keep (SEARCH_KINDS, the same definitions)", () => {
    expect(appEntries).toHaveLength(SEARCH_KINDS.length);
    appEntries.forEach((entry, i) => expect(entry).toBe(SEARCH_KINDS[i]));
  });

  it("is found by its words in a group of its own, after the app's, linked to its page", async () => {
    const found = await search(holder, "mooring bitt");
    expect(Object.keys(found)).toEqual(["q", "mocs", "pcrs", "archive", "permits"]);
    expect(permits(found)).toMatchObject({ total: 1, ranked: true });
    expect(permits(found).results[0]).toMatchObject({
      kind: "test_permit",
      _id: permitId,
      serial_num: "3-2026",
      title: "Hot work on the forecastle",
      status: "open",
      completed: false,
      exactSerial: false,
      link: `/permits/${permitId}`,
    });
    const marked = permits(found)
      .results[0]!.excerpt.filter((p) => p.match)
      .map((p) => p.text.toLowerCase());
    expect(marked).toEqual(["mooring", "bitt"]);
    expect([found.mocs.total, found.pcrs.total, found.archive.total]).toEqual([0, 0, 0]);
  });

  it("is found by its serial, its own prefix keeping the exact match to it", async () => {
    expect(parseSearchQuery("PTW 3-2026")).toEqual({ words: "", serialKinds: ["test_permit"] });
    for (const q of ["PTW 3-2026", "ptw-03/2026", "3-2026"]) {
      const found = await search(holder, q);
      expect(permits(found).results[0], q).toMatchObject({ _id: permitId, exactSerial: true });
    }
    // The app's prefixes do not reach it.
    expect(permits(await search(holder, "MOC 3-2026")).total).toBe(0);
  });

  it("is found only by the readers its reading rule lets read it", async () => {
    for (const reader of [stranger, admin]) {
      expect(permits(await search(reader, "mooring bitt")), reader.name).toEqual({
        total: 0,
        ranked: true,
        results: [],
      });
      expect(permits(await search(reader, "PTW 3-2026")).total, reader.name).toBe(0);
    }
    expect(ids(permits(await search(holder, "forecastle")))).toEqual([permitId]);
  });

  it("keeps its entry with its row: a new title is found, a deleted permit is gone", async () => {
    await getDb().execute(sql`update ${sql.raw(TABLE)} set title = 'Hot work on the windlass' where id = ${permitId}`);
    expect(ids(permits(await search(holder, "windlass")))).toEqual([permitId]);
    expect(permits(await search(holder, "forecastle")).total).toBe(0);
    const [doomed] = await getDb().execute<{ id: string }>(sql`insert into ${sql.raw(TABLE)}
      (serial_num, title, holder_id) values ('4-2026', 'Tank entry', ${holder._id}) returning id`);
    expect(ids(permits(await search(holder, "tank entry")))).toEqual([doomed!.id]);
    await getDb().execute(sql`delete from ${sql.raw(TABLE)} where id = ${doomed!.id}`);
    expect(permits(await search(holder, "tank entry")).total).toBe(0);
    const [left] = await getDb().execute<{ n: number }>(
      sql`select count(*)::int as n from search_entries where kind = 'test_permit' and record_id = ${doomed!.id}`,
    );
    expect(left!.n).toBe(0);
  });
});

describe("the /search page", () => {
  it("shows the kind's group under its label after the app's three, each hit linked to its page", async () => {
    const loaded = await page(searchPage, holder, { path: "/search", query: { q: "windlass" } });
    expect(loaded.status).toBe(200);
    const handler = createStaticHandler([
      { id: "search", path: "/search", loader: () => loaded.body, Component: SearchPage },
    ]);
    const context = await handler.query(new Request("http://test/search?q=windlass"));
    if (context instanceof Response) throw new Error("the page answered a redirect");
    const html = renderToStaticMarkup(
      createElement(StaticRouterProvider, { router: createStaticRouter(handler.dataRoutes, context), context }),
    );
    const headings = [...html.matchAll(/<h2 id="search-([a-z]+)">([^<]*)/g)].map((m) => [m[1], m[2]!.trim()]);
    expect(headings).toEqual([
      ["mocs", "MOCs"],
      ["pcrs", "PCRs"],
      ["archive", "Archive records"],
      ["permits", "Work permit"],
    ]);
    expect(html).toContain("1 found for “windlass”: 0 MOCs, 0 PCRs, 0 archive records, 1 Work permit record.");
    expect(html).toContain(`href="/permits/${permitId}"`);
    expect(html).toContain("Work permit 3-2026 — Hot work on the windlass");
  });
});
