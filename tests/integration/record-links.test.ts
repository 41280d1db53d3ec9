/**
 * Links between records (issue 42, docs/decisions/057-record-links-and-references.md), through the
 * model and /api/links on a real database: a MOC linked to a PCR, an archive record and a review;
 * bad input (400), unknown records (404), who may not (403), the same pair the other way (409),
 * each changing nothing; a replay and concurrent duplicates make one link; both records' chains get
 * an entry and verify; the inverse wording on the other end; a reader of only one end sees nothing
 * of the link; removal keeps the history; record references parsed and described.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as linksRoute from "~/routes/api+/links";
import * as mocPage from "~/routes/mocs+/$id._index";
import * as pcrPage from "~/routes/pcrs+/$id";
import * as archivePage from "~/routes/archive+/$kind.$id._index";
import * as reviewPage from "~/routes/reviews+/$id._index";
import * as newLinkPage from "~/routes/links+/new";
import * as removeLinkPage from "~/routes/links+/$id.remove";
import * as mocPrint from "~/routes/mocs+/$id_.print";
import * as pcrPdf from "~/routes/pcrs+/$id_.pdf";
import * as reviewPrint from "~/routes/reviews+/$id.print";
import { historyOf, verifyAuditTrail } from "~/models/audit/audit.server";
import { linkRecords, linksOf } from "~/models/records/record-links.server";
import { describeRecords, mayReadRecord, parseRecordRef } from "~/models/records/record-refs.server";
import { search } from "~/models/records/search.server";
import type { PublicUser } from "~/models/people/user.server";
import { closeDb, getDb } from "~/utils/db.server";
import { api } from "../helpers/api";
import { makeAdmin, makeUser } from "../helpers/factories";
import { makeCast, mocAt, tokenOf, type Doc } from "../helpers/moc-flow";
import { createPcrOk, type PcrDoc } from "../helpers/pcr";
import { buildRequest, type CallOptions } from "../helpers/request";

// Page data of every shape; `any` keeps the reads short (`data.links.links`), as CallResult's body.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type PageData = any;

type Panel = {
  ref: string;
  links: { _id: string; seen: string; other: { ref: string; label: string } }[];
  mayAdd: boolean;
};

/** A page loader's data (or the status it refused with), as `who`. */
async function loaderData(
  route: { loader: (args: never) => unknown },
  path: string,
  params: Record<string, string>,
  who: { _id: string },
): Promise<{ status: number; data: PageData }> {
  const request = await buildRequest({ path, token: await tokenOf(who), cookie: true });
  try {
    const value = await route.loader({ request, params, context: {} } as never);
    if (value instanceof Response) return { status: value.status, data: await value.json().catch(() => null) };
    const wrapped = value as { type?: string; data?: unknown; init?: { status?: number } };
    if (wrapped?.type === "DataWithResponseInit") return { status: wrapped.init?.status ?? 200, data: wrapped.data };
    return { status: 200, data: value };
  } catch (thrown) {
    if (thrown instanceof Response) return { status: thrown.status, data: null };
    const init = (thrown as { init?: { status: number } }).init;
    if (init) return { status: init.status, data: null };
    throw thrown;
  }
}

/** A page action's answer: its status, its redirect and its data. */
async function actionOf(
  route: { action: (args: never) => unknown },
  path: string,
  params: Record<string, string>,
  who: { _id: string },
  form: Record<string, string>,
): Promise<{ status: number; location: string | null; data: PageData }> {
  const request = await buildRequest({
    path,
    method: "POST",
    token: await tokenOf(who),
    cookie: true,
    body: new URLSearchParams(form).toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "http://localhost:3000" },
  });
  try {
    const value = await route.action({ request, params, context: {} } as never);
    if (value instanceof Response) return { status: value.status, location: value.headers.get("Location"), data: null };
    const wrapped = value as { type?: string; data?: unknown; init?: { status?: number } };
    if (wrapped?.type === "DataWithResponseInit")
      return { status: wrapped.init?.status ?? 200, location: null, data: wrapped.data };
    return { status: 200, location: null, data: value };
  } catch (thrown) {
    if (thrown instanceof Response)
      return { status: thrown.status, location: thrown.headers.get("Location"), data: null };
    const init = (thrown as { init?: { status: number } }).init;
    if (init) return { status: init.status, location: null, data: null };
    throw thrown;
  }
}

const linksApi = async (who: { _id: string } | null, options: Omit<CallOptions, "query"> & { qs?: string } = {}) =>
  api(linksRoute, {
    ...options,
    path: `/api/links${options.qs ?? ""}`,
    token: who ? await tokenOf(who) : undefined,
  });

const linkCount = async () =>
  (await getDb().execute<{ n: number }>(sql`select count(*)::int as n from record_links`))[0]!.n;

let admin: PublicUser;
let hseq: PublicUser;
let stranger: PublicUser;
let pcrOriginator: PublicUser;
let cast: Awaited<ReturnType<typeof makeCast>>;
let moc: Doc;
let pcr: PcrDoc;
let archiveMoc: string;
let review: string;

beforeAll(async () => {
  [admin, hseq, stranger, pcrOriginator] = await Promise.all([
    makeAdmin({ name: "Ada Admin" }),
    makeUser({ name: "Hal Hseq", department: "hseq" }),
    makeUser({ name: "Sam Stranger", department: "engineering" }),
    makeUser({ name: "Pia Pcr", department: "fleet" }),
  ]);
  cast = await makeCast();
  moc = await mocAt("c", cast);
  pcr = await createPcrOk(pcrOriginator);
  const [a] = await getDb().execute<{
    id: string;
  }>(sql`insert into legacy_mocs (serial_num, title, originator_name, date_raised)
    values ('7/2009', 'Ballast pump replaced', 'J. Smith', '2009-03-01') returning id::text as id`);
  archiveMoc = a!.id;
  const [r] = await getDb().execute<{ id: string }>(sql`insert into year_end_reviews (year, title, moc_summary)
    values (2025, 'Review of 2025', '{"total":0,"completed":0,"declined":0,"open":0,"by_department":{}}'::jsonb) returning id::text as id`);
  review = r!.id;
}, 120_000);
afterAll(async () => closeDb());

const mocRef = () => `moc:${moc._id}`;
const pcrRef = () => `pcr:${pcr._id}`;

describe("record references", () => {
  it("parses <kind>:<id>, saying whether the form, the kind or the id is wrong", () => {
    expect(parseRecordRef(`MOC:${moc._id.toUpperCase()}`)).toEqual({ kind: "moc", id: moc._id });
    expect(() => parseRecordRef("moc")).toThrow(/Expected a record as "<kind>:<id>"/);
    expect(() => parseRecordRef(`mcr:${moc._id}`)).toThrow(/"mcr" is not a kind of record/);
    expect(() => parseRecordRef("pcr:12")).toThrow(/"12" is not a record id/);
  });

  it("describes a batch, one statement per kind, by each kind's reading rule", async () => {
    const refs = [
      { kind: "moc" as const, id: moc._id },
      { kind: "pcr" as const, id: pcr._id },
      { kind: "archive-moc" as const, id: archiveMoc },
      { kind: "review" as const, id: review },
      { kind: "pcr" as const, id: randomUUID() },
    ];
    const forStranger = await describeRecords(getDb(), stranger, refs);
    expect(forStranger.size).toBe(4);
    expect(forStranger.get(mocRef())).toMatchObject({
      label: `MOC ${moc.serial_num}`,
      path: `/mocs/${moc._id}`,
      readable: false,
    });
    expect(forStranger.get(pcrRef())).toMatchObject({ label: `PCR ${pcr.serial_num}`, readable: false });
    expect(forStranger.get(`archive-moc:${archiveMoc}`)).toMatchObject({
      label: "Legacy MOC 7/2009",
      title: "Ballast pump replaced",
      path: `/archive/mocs/${archiveMoc}`,
      readable: true,
    });
    expect(forStranger.get(`review:${review}`)).toMatchObject({ label: "Year-end review 2025", readable: true });
    const forOriginator = await describeRecords(getDb(), cast.originator, refs);
    expect(forOriginator.get(mocRef())).toMatchObject({ readable: true, worksOn: true });
    expect(await mayReadRecord(pcrOriginator, { kind: "pcr", id: pcr._id })).toBe(true);
    expect(await mayReadRecord(cast.originator, { kind: "pcr", id: pcr._id })).toBe(false);
  });
});

describe("POST /api/links", () => {
  it("refuses bad input (400), unknown records (404) and who may not (403), each changing nothing", async () => {
    const before = await linkCount();
    const bad: [unknown, string][] = [
      [{ from: "moc", to: pcrRef(), kind: "related" }, "from"],
      [{ from: `mcr:${moc._id}`, to: pcrRef(), kind: "related" }, "from"],
      [{ from: mocRef(), to: "pcr:12", kind: "related" }, "to"],
      [{ from: mocRef(), to: pcrRef(), kind: "relates" }, "kind"],
      [{ from: mocRef(), to: mocRef(), kind: "related" }, "to"],
    ];
    for (const [body, path] of bad) {
      const res = await linksApi(admin, { method: "POST", body });
      expect(res.status, res.text).toBe(400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    const unknown = await linksApi(admin, {
      method: "POST",
      body: { from: mocRef(), to: `pcr:${randomUUID()}`, kind: "related" },
    });
    expect(unknown.status).toBe(404);
    // The MOC's originator may not read the PCR; the stranger reads neither; the PCR's originator not the MOC.
    for (const who of [cast.originator, stranger, pcrOriginator]) {
      const res = await linksApi(who, {
        method: "POST",
        body: { from: mocRef(), to: pcrRef(), kind: "procedure changed by" },
      });
      expect(res.status, res.text).toBe(403);
    }
    // Reads both (archive and review: everyone), works on neither.
    const neither = await linksApi(stranger, {
      method: "POST",
      body: { from: `archive-moc:${archiveMoc}`, to: `review:${review}`, kind: "related" },
    });
    expect(neither.status).toBe(403);
    expect(neither.body.message).toMatch(/admins, the HSEQ department and the people who work on one of the records/);
    expect(await linkCount()).toBe(before);
  });

  it("links a MOC to a PCR (201), in both records' chains, which verify; again it answers the link (200, created: false)", async () => {
    const res = await linksApi(hseq, {
      method: "POST",
      body: { from: mocRef(), to: pcrRef(), kind: "procedure changed by" },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({
      from: mocRef(),
      to: pcrRef(),
      kind: "procedure changed by",
      createdBy: { _id: hseq._id, name: "Hal Hseq" },
      removedAt: null,
      created: true,
    });
    const again = await linksApi(hseq, {
      method: "POST",
      body: { from: mocRef(), to: pcrRef(), kind: "procedure changed by" },
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ _id: res.body.data._id, created: false });
    const mocTrail = (await historyOf("moc", moc._id)).filter((h) => h.action === "Linked");
    expect(mocTrail.map((h) => h.comment)).toEqual([`procedure changed by PCR ${pcr.serial_num}`]);
    const pcrTrail = (await historyOf("pcr", pcr._id)).filter((h) => h.action === "Linked");
    expect(pcrTrail.map((h) => h.comment)).toEqual([`changes the procedure of MOC ${moc.serial_num}`]);
    const broken = (await verifyAuditTrail()).broken.filter((b) => b.recordId === moc._id || b.recordId === pcr._id);
    expect(broken).toEqual([]);
  });

  it("refuses the same pair and kind the other way (409); another kind is another link", async () => {
    const reverse = await linksApi(admin, {
      method: "POST",
      body: { from: pcrRef(), to: mocRef(), kind: "procedure changed by" },
    });
    expect(reverse.status, reverse.text).toBe(409);
    expect(reverse.body.message).toMatch(/already linked the other way/i);
    const related = await linksApi(admin, { method: "POST", body: { from: pcrRef(), to: mocRef(), kind: "related" } });
    expect(related.status).toBe(201);
    // "related" reads the same both ways: made again the other way, it is the same link.
    const relatedBack = await linksApi(admin, {
      method: "POST",
      body: { from: mocRef(), to: pcrRef(), kind: "related" },
    });
    expect(relatedBack.status).toBe(200);
    expect(relatedBack.body.data._id).toBe(related.body.data._id);
  });

  it("makes concurrent duplicates once, with one entry in each chain", async () => {
    const before = (await historyOf("archive-moc", archiveMoc)).length;
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        linksApi(hseq, {
          method: "POST",
          body: { from: mocRef(), to: `archive-moc:${archiveMoc}`, kind: "replaces" },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.data._id)).size).toBe(1);
    expect((await historyOf("archive-moc", archiveMoc)).length).toBe(before + 1);
    const rows = await getDb().execute(
      sql`select 1 from record_links where to_kind = 'archive-moc' and to_id = ${archiveMoc}::uuid and removed_at is null`,
    );
    expect(rows.length).toBe(1);
  });

  it("is usable inside another transaction, which it joins (rolled back with it)", async () => {
    const before = await linkCount();
    await expect(
      getDb().transaction(async (tx) => {
        await linkRecords(tx, admin, {
          from: { kind: "review", id: review },
          to: { kind: "moc", id: moc._id },
          kind: "follow-up of",
        });
        throw new Error("the caller's transaction fails");
      }),
    ).rejects.toThrow(/caller's transaction fails/);
    expect(await linkCount()).toBe(before);
  });
});

describe("GET /api/links", () => {
  it("answers a record's links from its side, both ends described, the inverse wording on the other end", async () => {
    const fromMoc = await linksApi(hseq, { qs: `?record=${mocRef()}` });
    expect(fromMoc.status, fromMoc.text).toBe(200);
    expect(fromMoc.body.data.record).toMatchObject({ ref: mocRef(), label: `MOC ${moc.serial_num}` });
    const seen = fromMoc.body.data.links.map(
      (l: { seen: string; other: { ref: string } }) => `${l.seen} ${l.other.ref}`,
    );
    expect(seen).toEqual([
      `procedure changed by ${pcrRef()}`,
      `related ${pcrRef()}`,
      `replaces archive-moc:${archiveMoc}`,
    ]);
    const first = fromMoc.body.data.links[0];
    expect(first.from).toMatchObject({ ref: mocRef(), path: `/mocs/${moc._id}` });
    expect(first.to).toMatchObject({ ref: pcrRef(), label: `PCR ${pcr.serial_num}`, path: `/pcrs/${pcr._id}` });
    expect(first.kind).toBe("procedure changed by");

    const fromPcr = await linksApi(hseq, { qs: `?record=${pcrRef()}` });
    expect(fromPcr.body.data.links.map((l: { seen: string }) => l.seen)).toEqual([
      "changes the procedure of",
      "related",
    ]);
    const fromArchive = await linksApi(stranger, { qs: `?record=archive-moc:${archiveMoc}` });
    // The stranger reads the archive record but not the MOC: nothing of the link.
    expect(fromArchive.status).toBe(200);
    expect(fromArchive.body.data.links).toEqual([]);
    const fromArchiveHseq = await linksApi(hseq, { qs: `?record=archive-moc:${archiveMoc}` });
    expect(fromArchiveHseq.body.data.links.map((l: { seen: string }) => l.seen)).toEqual(["replaced by"]);
  });

  it("shows a reader of only one end nothing of the link", async () => {
    // The MOC's originator reads the MOC (and the archive), not the PCR; the PCR's originator the PCR, not the MOC.
    const mocSide = await linksApi(cast.originator, { qs: `?record=${mocRef()}` });
    expect(mocSide.status).toBe(200);
    expect(mocSide.body.data.links.map((l: { other: { ref: string } }) => l.other.ref)).toEqual([
      `archive-moc:${archiveMoc}`,
    ]);
    expect(mocSide.text).not.toContain(pcr._id);
    const pcrSide = await linksApi(pcrOriginator, { qs: `?record=${pcrRef()}` });
    expect(pcrSide.status).toBe(200);
    expect(pcrSide.body.data.links).toEqual([]);
    expect(pcrSide.text).not.toContain(moc._id);
    const unreadable = await linksApi(pcrOriginator, { qs: `?record=${mocRef()}` });
    expect(unreadable.status).toBe(403);
    expect((await linksApi(hseq, { qs: `?record=moc:${randomUUID()}` })).status).toBe(404);
    const bad = await linksApi(hseq, { qs: "?record=moc:1" });
    expect(bad.status).toBe(400);
    expect(bad.body.issues[0].path).toBe("record");
  });
});

describe("DELETE /api/links", () => {
  it("removes a link, keeping it in the history of both records; who may not gets 403; again 409", async () => {
    const made = await linksApi(cast.originator, {
      method: "POST",
      body: { from: mocRef(), to: `review:${review}`, kind: "follow-up of" },
    });
    expect(made.status, made.text).toBe(201);
    const id = made.body.data._id;
    const refused = await linksApi(stranger, { method: "DELETE", qs: `?id=${id}` });
    expect(refused.status).toBe(404); // the stranger may not read the MOC: no such link for them
    // Reads both ends (full access), works on neither, did not make it.
    const reader = await makeUser({ name: "Fay Full", department: "engineering", access: "full" });
    const refused2 = await linksApi(reader, { method: "DELETE", qs: `?id=${id}` });
    expect(refused2.status, refused2.text).toBe(403);
    const removed = await linksApi(cast.originator, { method: "DELETE", qs: `?id=${id}` });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.data).toMatchObject({ _id: id, removedBy: { _id: cast.originator._id } });
    expect(removed.body.data.removedAt).toMatch(/Z$/);
    expect((await linksApi(cast.originator, { method: "DELETE", qs: `?id=${id}` })).status).toBe(409);
    expect((await linksApi(admin, { method: "DELETE", qs: `?id=${randomUUID()}` })).status).toBe(404);
    expect((await linksApi(admin, { method: "DELETE", qs: "?id=x" })).status).toBe(400);
    const [row] = await getDb().execute(sql`select removed_at from record_links where id = ${id}::uuid`);
    expect(row).toBeDefined();
    const reviewTrail = (await historyOf("review", review)).map((h) => `${h.action}: ${h.comment}`);
    expect(reviewTrail).toEqual([
      expect.stringMatching(/^Linked: followed up by MOC /),
      expect.stringMatching(/^Link removed: followed up by MOC /),
    ]);
    const mocTrail = (await historyOf("moc", moc._id)).filter((h) => h.action.startsWith("Link")).map((h) => h.action);
    expect(mocTrail.slice(-2)).toEqual(["Linked", "Link removed"]);
    expect((await linksOf(admin, { kind: "review", id: review })).links).toEqual([]);
    // Made again after its removal: a new link.
    const remade = await linksApi(admin, {
      method: "POST",
      body: { from: mocRef(), to: `review:${review}`, kind: "follow-up of" },
    });
    expect(remade.status).toBe(201);
    expect(remade.body.data._id).not.toBe(id);
  });
});

describe("the record pages", () => {
  it("each record page's loader gives its Linked records section, from its side, only what the reader reads of both ends", async () => {
    const moc1 = await loaderData(mocPage, `/mocs/${moc._id}`, { id: moc._id }, hseq);
    expect(moc1.status).toBe(200);
    const mocLinks = (moc1.data.links as Panel).links.map((l) => `${l.seen} ${l.other.label}`);
    expect(mocLinks).toEqual(
      expect.arrayContaining([`procedure changed by PCR ${pcr.serial_num}`, "replaces Legacy MOC 7/2009"]),
    );
    expect((moc1.data.links as Panel).mayAdd).toBe(true);
    const pcr1 = await loaderData(pcrPage, `/pcrs/${pcr._id}`, { id: pcr._id }, hseq);
    expect((pcr1.data.links as Panel).links.map((l) => `${l.seen} ${l.other.label}`)).toContain(
      `changes the procedure of MOC ${moc.serial_num}`,
    );
    const archive = await loaderData(
      archivePage,
      `/archive/mocs/${archiveMoc}`,
      { kind: "mocs", id: archiveMoc },
      hseq,
    );
    expect((archive.data.links as Panel).links.map((l) => l.seen)).toEqual(["replaced by"]);
    const reviewData = await loaderData(reviewPage, `/reviews/${review}`, { id: review }, hseq);
    expect((reviewData.data.links as Panel).links.map((l) => l.seen)).toEqual(["followed up by"]);
    // A reader of the PCR only: its page shows no link (the MOC's), and it may not add from it.
    const pcr2 = await loaderData(pcrPage, `/pcrs/${pcr._id}`, { id: pcr._id }, pcrOriginator);
    expect(pcr2.status).toBe(200);
    expect((pcr2.data.links as Panel).links).toEqual([]);
    expect(JSON.stringify(pcr2.data.links)).not.toContain(moc._id);
    // The archive's reader who reads no MOC of it: nothing of the link either, and no adding (works on nothing).
    const archive2 = await loaderData(
      archivePage,
      `/archive/mocs/${archiveMoc}`,
      { kind: "mocs", id: archiveMoc },
      stranger,
    );
    expect(archive2.data.links).toEqual({ ref: `archive-moc:${archiveMoc}`, links: [], mayAdd: false });
  });

  it("/links/new finds the records the reader may read and links one without JavaScript; a refusal by its row", async () => {
    const from = encodeURIComponent(`pcr:${pcr._id}`);
    const found = await loaderData(
      newLinkPage,
      `/links/new?from=${from}&q=${encodeURIComponent("7/2009")}`,
      {},
      pcrOriginator,
    );
    expect(found.status).toBe(200);
    expect(found.data.candidates.map((c: { ref: string }) => c.ref)).toEqual([`archive-moc:${archiveMoc}`]);
    // The MOC is not offered to a reader who may not read it.
    const mocSearch = await loaderData(
      newLinkPage,
      `/links/new?from=${from}&q=${encodeURIComponent(moc.serial_num)}`,
      {},
      pcrOriginator,
    );
    expect(mocSearch.data.candidates.map((c: { ref: string }) => c.ref)).not.toContain(`moc:${moc._id}`);
    // Year-end reviews, which search does not hold, by their year or title.
    const reviews = await loaderData(
      newLinkPage,
      `/links/new?from=${from}&q=${encodeURIComponent("review 2025")}`,
      {},
      pcrOriginator,
    );
    expect(reviews.data.candidates).toEqual([
      { ref: `review:${review}`, label: "Year-end review 2025", title: "Review of 2025", path: `/reviews/${review}` },
    ]);
    expect((await loaderData(newLinkPage, `/links/new?from=pcr:1`, {}, pcrOriginator)).status).toBe(400);
    expect(
      (await loaderData(newLinkPage, `/links/new?from=${encodeURIComponent(`moc:${moc._id}`)}`, {}, pcrOriginator))
        .status,
    ).toBe(403);

    const badKind = await actionOf(newLinkPage, "/links/new", {}, pcrOriginator, {
      from: `pcr:${pcr._id}`,
      to: `archive-moc:${archiveMoc}`,
      kind: "links to",
    });
    expect(badKind.status).toBe(400);
    expect(badKind.data.refusal).toEqual({
      to: `archive-moc:${archiveMoc}`,
      kind: "Choose how the records are linked",
    });
    // "replaced by" from the PCR: the archive record is the link's `from`.
    const made = await actionOf(newLinkPage, "/links/new", {}, pcrOriginator, {
      from: `pcr:${pcr._id}`,
      to: `archive-moc:${archiveMoc}`,
      kind: "replaced by",
    });
    expect(made.status).toBe(302);
    expect(made.location).toBe(`/pcrs/${pcr._id}#linked-records`);
    const [row] = await getDb().execute<{ id: string; from_kind: string; kind: string }>(
      sql`select id::text as id, from_kind, kind from record_links where to_kind = 'pcr' and to_id = ${pcr._id}::uuid and removed_at is null and from_kind = 'archive-moc'`,
    );
    expect(row).toMatchObject({ from_kind: "archive-moc", kind: "replaces" });
    const pcrView = await loaderData(pcrPage, `/pcrs/${pcr._id}`, { id: pcr._id }, pcrOriginator);
    const mine = (pcrView.data.links as Panel).links;
    expect(mine.map((l) => `${l.seen} ${l.other.label}`)).toEqual(["replaced by Legacy MOC 7/2009"]);

    // Removed from the page's button by its maker, back to the section.
    const removed = await actionOf(removeLinkPage, `/links/${row!.id}/remove`, { id: row!.id }, pcrOriginator, {
      back: `/pcrs/${pcr._id}`,
    });
    expect(removed.status).toBe(302);
    expect(removed.location).toBe(`/pcrs/${pcr._id}#linked-records`);
    const [after] = await getDb().execute<{ removed_at: string | null }>(
      sql`select removed_at from record_links where id = ${row!.id}::uuid`,
    );
    expect(after!.removed_at).not.toBeNull();
  });
});

describe("print and PDF", () => {
  type Section = { id: string; blocks: { kind: string; rows?: string[][] }[] };
  const linkedRows = (record: { sections: Section[] }) =>
    record.sections.find((x) => x.id === "linked-records")!.blocks[0]!.rows!.map((r) => `${r[0]} ${r[1]}`);

  it("the MOC's print record has Linked records, filtered by the reader's rights", async () => {
    const asHseq = await loaderData(mocPrint, `/mocs/${moc._id}/print`, { id: moc._id }, hseq);
    expect(asHseq.status).toBe(200);
    expect(linkedRows(asHseq.data.record)).toEqual(
      expect.arrayContaining([`Procedure changed by PCR ${pcr.serial_num}`, "Replaces Legacy MOC 7/2009"]),
    );
    const asOriginator = await loaderData(mocPrint, `/mocs/${moc._id}/print`, { id: moc._id }, cast.originator);
    const rows = linkedRows(asOriginator.data.record);
    expect(rows).toContain("Replaces Legacy MOC 7/2009");
    expect(rows.join(" ")).not.toContain("PCR");
  });

  it("the PCR's PDF reads back (pdftotext) with its Linked records", async () => {
    const request = await buildRequest({ path: `/pcrs/${pcr._id}/pdf`, token: await tokenOf(hseq), cookie: true });
    const response = (await pcrPdf.loader({ request, params: { id: pcr._id }, context: {} } as never)) as Response;
    expect(response.status).toBe(200);
    const file = path.join(mkdtempSync(path.join(tmpdir(), "links-pdf-")), "pcr.pdf");
    writeFileSync(file, Buffer.from(await response.arrayBuffer()));
    const text = execFileSync("pdftotext", ["-raw", file, "-"], { encoding: "utf8" }).replace(/\s+/g, " ");
    expect(text).toContain("Linked records");
    expect(text).toContain(`Changes the procedure of MOC ${moc.serial_num}`);
  });

  it("the review's print page lists its links without buttons", async () => {
    const printed = await loaderData(reviewPrint, `/reviews/${review}/print`, { id: review }, hseq);
    expect(printed.status).toBe(200);
    expect((printed.data.links as Panel).links.map((l) => `${l.seen} ${l.other.label}`)).toEqual([
      `followed up by MOC ${moc.serial_num}`,
    ]);
  });
});

describe("search", () => {
  const ids = (group: { results: { _id: string }[] }) => group.results.map((r) => r._id);

  it("a record's number also finds the records linked to it, for a reader of both", async () => {
    const found = await search(hseq, `MOC ${moc.serial_num}`);
    expect(ids(found.mocs)).toEqual([moc._id]);
    expect(ids(found.pcrs)).toEqual([pcr._id]);
    expect(ids(found.archive)).toEqual([archiveMoc]);
    expect(found.pcrs.results[0]!.exactSerial).toBe(false);
    const byArchive = await search(cast.originator, "7/2009");
    expect(ids(byArchive.archive)).toEqual([archiveMoc]);
    expect(ids(byArchive.mocs)).toEqual([moc._id]);
  });

  it("finds nothing through a link for a reader of only one end", async () => {
    // The PCR's originator may not read the MOC: its number finds neither it nor, through it, the PCR.
    const found = await search(pcrOriginator, `MOC ${moc.serial_num}`);
    expect(ids(found.mocs)).toEqual([]);
    expect(ids(found.pcrs)).toEqual([]);
    // A removed link is no longer found.
    const [link] = await getDb().execute<{ id: string }>(
      sql`select id::text as id from record_links where from_kind = 'moc' and from_id = ${moc._id}::uuid and to_kind = 'archive-moc' and removed_at is null`,
    );
    expect((await linksApi(hseq, { method: "DELETE", qs: `?id=${link!.id}` })).status).toBe(200);
    expect(ids((await search(hseq, "7/2009")).mocs)).toEqual([]);
  });
});

describe("reads", () => {
  it("a page that let its reader in by a wider rule (a delegate's) shows the links whose other end they read", async () => {
    // The MOC's originator does not read the PCR by its rule: 403, as GET /api/links says.
    await expect(linksOf(cast.originator, { kind: "pcr", id: pcr._id })).rejects.toMatchObject({ status: 403 });
    const shown = await linksOf(cast.originator, { kind: "pcr", id: pcr._id }, getDb(), { recordChecked: true });
    expect(shown.links.map((l) => `${l.seen} ${l.other.label}`)).toContain(
      `changes the procedure of MOC ${moc.serial_num}`,
    );
    expect(shown.mayAdd).toBe(false);
    expect(shown.links.every((l) => !l.mayRemove)).toBe(true);
  });

  it("a record's links take the same few statements however many there are", async () => {
    let statements = 0;
    const db = getDb();
    const counting = new Proxy(db, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (key !== "execute" || typeof value !== "function") return value;
        return (...args: unknown[]) => {
          statements++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const count = async (ref: { kind: "pcr"; id: string }) => {
      statements = 0;
      const { links } = await linksOf(admin, ref, counting);
      return { statements, links: links.length };
    };
    const lone = await createPcrOk(pcrOriginator);
    const few = await count({ kind: "pcr", id: lone._id });
    for (let i = 0; i < 8; i++) {
      const [a] = await getDb().execute<{
        id: string;
      }>(sql`insert into legacy_pcrs (serial_num, title, originator_name, date_raised)
        values (${`${i + 1}/19${10 + i}`}, ${`Paper PCR ${i}`}, 'J. Smith', '1990-01-01') returning id::text as id`);
      await linkRecords(getDb(), admin, {
        from: { kind: "pcr", id: lone._id },
        to: { kind: "archive-pcr", id: a!.id },
        kind: "replaces",
      });
      const [r] = await getDb().execute<{ id: string }>(sql`insert into year_end_reviews (year, title, moc_summary)
        values (${2000 + i}, ${`Review ${i}`}, '{"total":0,"completed":0,"declined":0,"open":0,"by_department":{}}'::jsonb) returning id::text as id`);
      await linkRecords(getDb(), admin, {
        from: { kind: "review", id: r!.id },
        to: { kind: "pcr", id: lone._id },
        kind: "related",
      });
    }
    const many = await count({ kind: "pcr", id: lone._id });
    expect(many.links).toBe(16);
    expect(many.statements).toBeLessThanOrEqual(6);
    expect(few.statements).toBeLessThanOrEqual(many.statements);
  });
});
