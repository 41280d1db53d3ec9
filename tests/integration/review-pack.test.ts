/**
 * The management review pack (issue 42, docs/decisions/059-management-review-pack.md): GET
 * /api/reviewPack, the page /insights/review and its PDF give Insight's figures (GET /api/insights,
 * computeInsights) for the same period and filters, with the MOCs behind each figure; 400 on bad
 * filters, 403 for who may not see Insight; the PDF reads back with every section (pdftotext).
 *
 * Seeded: two vessels of their own (so a vessel filter isolates this file's MOCs from any other's),
 * six MOCs on MV Pack North (engineering and operations; risks low, high, extreme and none; one at
 * approval, one declined; one permanent overdue with an overdue action plan item; a temporary change
 * in effect and one expired), one on MV Pack South, one office MOC; a finished PCR circulated to the
 * north vessel with one recipient acknowledging on time and one overdue; three effectiveness reviews
 * due in the period (not effective, overdue, effective).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as reviewPackApi from "~/routes/api+/reviewPack";
import * as insightsApi from "~/routes/api+/insights";
import * as pagesRoute from "~/routes/insights_.review";
import * as pdfRoute from "~/routes/insights_.review_.pdf";
import { acknowledge, circulate } from "~/models/circulations/circulations.server";
import { computeInsights } from "~/models/insights/insights.server";
import { computeReviewPack, REVIEW_PACK_SECTIONS, type ReviewPack } from "~/models/insights/review-pack.server";
import type { PrintRecord } from "~/models/records-out/record-print.server";
import type { PublicUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { api } from "../helpers/api";
import { makeUser } from "../helpers/factories";
import { temporaryPartA } from "../helpers/moc";
import { createMocOk, defaultStepBody, makeCast, mocAt, stepOk, tokenOf, type Doc } from "../helpers/moc-flow";
import type { Cast } from "../helpers/moc";
import { createPcrOk, makeHolders, signChain } from "../helpers/pcr";
import { folded } from "../helpers/record-views";
import { buildRequest } from "../helpers/request";

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const PERIOD = { from: day(-30), to: day(10) };

async function makeVessel(name: string): Promise<string> {
  const imo = String(1_000_000 + Math.floor(Math.random() * 8_999_999));
  const [row] = await getDb().execute<{ id: string }>(
    sql`insert into vessels (name, imo) values (${name}, ${imo}) returning id`,
  );
  return row!.id;
}

/** A route's answer to `user`: the loader's value, or the Response it returned or threw (the 400/403 pages). */
async function load(route: { loader: (args: never) => unknown }, url: string, user: { _id: string }) {
  const request = await buildRequest({ path: url, token: await tokenOf(user), cookie: true });
  try {
    return await route.loader({ request, params: {}, context: {} } as never);
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    const init = (thrown as { init?: { status?: number } }).init;
    if (init?.status) return new Response(null, { status: init.status });
    throw thrown;
  }
}
const statusOf = (answer: unknown) =>
  answer instanceof Response ? answer.status : ((answer as { init?: { status?: number } }).init?.status ?? 200);

const get = async (
  route: Parameters<typeof api>[0],
  path: string,
  who: { _id: string },
  query: Record<string, string>,
) => api(route, { path, query, token: await tokenOf(who) });

let cast: Cast;
let hseq: PublicUser;
let outsider: PublicUser;
let north: string;
let south: string;
const m: Record<string, Doc> = {};

/** Part A's vessel (or "office") and title, set on the stored form. */
async function placeOn(moc: Doc, vessel: { id: string; name: string } | "office", title: string) {
  const value = vessel === "office" ? "office" : { _id: vessel.id, name: vessel.name };
  await getDb().execute(sql`update moc_forms set data = data || jsonb_build_object(
      'vessel', jsonb_build_object('value', ${JSON.stringify(value)}::jsonb),
      'title', jsonb_build_object('value', ${title}::text))
    where moc_id = ${moc._id} and kind = 'originator'`);
}

beforeAll(async () => {
  cast = await makeCast();
  [hseq, outsider] = await Promise.all([
    makeUser({ name: "Hedda Review", department: "hseq" }),
    makeUser({ name: "Egon Outside", department: "engineering" }),
  ]);
  [north, south] = await Promise.all([makeVessel("MV Pack North"), makeVessel("MV Pack South")]);
  const N = { id: north, name: "MV Pack North" };
  const S = { id: south, name: "MV Pack South" };
  const dept = (department: string) => ({ "department-of-change": { value: department } });

  m.low = await createMocOk(cast, dept("engineering"));
  await placeOn(m.low, N, "Low risk lashing change");
  m.high = await createMocOk(cast, dept("operations"));
  m.high = await stepOk("implementer", cast.implementer, defaultStepBody("implementer", m.high, cast));
  m.high = await stepOk("hseq", cast.hseq, defaultStepBody("hseq", m.high, cast));
  await placeOn(m.high, N, "High risk bunkering change");
  m.extreme = await createMocOk(cast, dept("engineering"));
  await placeOn(m.extreme, N, "Extreme risk hot work change");
  m.declined = await mocAt("decline-b", cast);
  await placeOn(m.declined, N, "Declined pump change");
  m.inEffect = await createMocOk(cast, { ...dept("engineering"), ...temporaryPartA(day(20)) });
  await placeOn(m.inEffect, N, "Temporary bypass in effect");
  m.expired = await createMocOk(cast, { ...dept("operations"), ...temporaryPartA(day(20)) });
  await placeOn(m.expired, N, "Temporary bypass expired");
  m.south = await createMocOk(cast, dept("engineering"));
  await placeOn(m.south, S, "South radar change");
  m.office = await createMocOk(cast, dept("operations"));
  await placeOn(m.office, "office", "Office procedure change");

  const db = getDb();
  await db.execute(sql`update mocs set risk_level = 'low' where id = ${m.low._id}`);
  await db.execute(sql`update mocs set risk_level = 'high' where id = ${m.high._id}`);
  await db.execute(sql`update mocs set risk_level = 'extreme' where id = ${m.extreme._id}`);
  // The extreme one is overdue, with an action plan item past due.
  await db.execute(sql`update mocs set target_date = ${day(-5)}::date,
      action = jsonb_build_object('items', jsonb_build_array(jsonb_build_object(
        'id', 'i1', 'action', 'Fit the screens', 'owner', ${cast.implementer._id}::text, 'due', ${day(-3)}::text)))
    where id = ${m.extreme._id}`);
  const temporary = (until: string) =>
    JSON.stringify({
      until,
      state: "in-effect",
      expired_since: null,
      restoration: null,
      extension: null,
      permanent_moc: null,
    });
  await db.execute(sql`update mocs set temporary = ${temporary(day(20))}::jsonb where id = ${m.inEffect._id}`);
  await db.execute(sql`update mocs set temporary = ${temporary(day(-2))}::jsonb where id = ${m.expired._id}`);

  // Effectiveness reviews (decision 058) due in the period: one answered "not effective", one overdue, one effective.
  const review = (moc: Doc, due: string, result: string | null) =>
    db.execute(sql`insert into effectiveness_reviews (moc_id, due_on, set_by, result, comment, reviewed_by, reviewed_at)
      values (${moc._id}, ${due}::date, ${hseq._id}, ${result}, ${result ? "Checked on board" : null},
        ${result ? hseq._id : null}, ${result ? new Date().toISOString() : null}::timestamptz)`);
  await review(m.low, day(-5), "not-effective");
  await review(m.high, day(-3), null);
  await review(m.extreme, day(-1), "effective");

  // A finished PCR circulated to the north vessel: one acknowledges on time, one is overdue.
  const [master, cook] = await Promise.all([
    makeUser({ name: "Pia Master", department: "fleet" }),
    makeUser({ name: "Cato Cook", department: "fleet" }),
  ]);
  for (const who of [master, cook]) {
    await db.execute(
      sql`insert into vessel_assignments (vessel_id, user_id, from_date) values (${north}, ${who._id}, ${day(-60)})`,
    );
  }
  const originator = await makeUser({ name: "Olle Origin", department: "fleet" });
  const pcr = await createPcrOk(originator);
  await signChain(pcr._id, { "Change Originator": originator, ...(await makeHolders("pack")) });
  const circulation = await circulate(originator, {
    record: `pcr:${pcr._id}`,
    vessels: [north],
    ranks: [],
    departments: [],
    due: day(7),
    note: "Read the new bunkering checklist.",
  });
  await acknowledge(master, { circulationId: circulation._id });
  await db.execute(
    sql`update circulation_recipients set due = ${day(-1)} where circulation_id = ${circulation._id} and user_id = ${cook._id}`,
  );
}, 180_000);

const FILTERS: Record<string, string>[] = [
  {},
  { ...PERIOD },
  { ...PERIOD, vessel: "" },
  { ...PERIOD, department: "engineering" },
  { ...PERIOD, vessel: "office" },
  { ...PERIOD, to: day(-1) },
];

async function pack(query: Record<string, string>): Promise<ReviewPack> {
  const res = await get(reviewPackApi, "/api/reviewPack", hseq, query);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

describe("GET /api/reviewPack", () => {
  it("gives Insight's figures for the same period and filters (several combinations)", async () => {
    for (const query of [
      ...FILTERS,
      { ...PERIOD, vessel: north },
      { ...PERIOD, vessel: north, department: "operations" },
    ]) {
      const insight = await get(insightsApi, "/api/insights", hseq, query);
      expect(insight.status, insight.text).toBe(200);
      const answer = await pack(query);
      expect(answer.figures, JSON.stringify(query)).toEqual(insight.body.data);
    }
  });

  it("the vessel's figures by state, type, risk and vessel, overdue, temporary and acknowledgements, with the MOCs behind each", async () => {
    const answer = await pack({ ...PERIOD, vessel: north });
    const f = answer.figures;
    expect(f.totals.opened).toBe(6);
    expect(f.types).toEqual([
      { type: "permanent", mocs: 4 },
      { type: "temporary", mocs: 2 },
    ]);
    expect(f.risk.map((r) => [r.level, r.raised])).toEqual([
      ["low", 1],
      ["medium", 0],
      ["high", 1],
      ["extreme", 1],
      ["none", 3],
    ]);
    expect(f.vessels).toEqual([
      expect.objectContaining({ vessel: "MV Pack North", opened: 6, overdue: 1, overdueActions: 1 }),
    ]);
    expect(f.states!.reduce((n, s) => n + s.mocs, 0)).toBe(6);
    expect(f.states).toContainEqual({ state: "Declined", mocs: 1 });
    expect(f.standing).toEqual({ overdue: 1, withOverdueActions: 1, temporaryInEffect: 1, temporaryExpired: 1 });
    expect(f.acknowledgementCompliance).toEqual([
      { vessel: "MV Pack North", recipients: 2, acknowledged: 1, onTime: 1, overdue: 1, left: 0, compliance: 50 },
    ]);

    expect(f.effectiveness).toEqual({ due: 3, answered: 2, effective: 1, partly: 0, notEffective: 1, overdue: 1 });

    const ids = (figure: string, key = "") =>
      answer.lists
        .find((l) => l.figure === figure && l.key === key)
        ?.mocs.map((x) => x.id)
        .sort();
    const sorted = (...docs: Doc[]) => docs.map((d) => d._id).sort();
    expect(ids("risk", "high")).toEqual(sorted(m.high!));
    expect(ids("risk", "none")).toEqual(sorted(m.declined!, m.inEffect!, m.expired!));
    expect(ids("type", "temporary")).toEqual(sorted(m.inEffect!, m.expired!));
    expect(ids("vessel", "MV Pack North")).toEqual(
      sorted(m.low!, m.high!, m.extreme!, m.declined!, m.inEffect!, m.expired!),
    );
    expect(ids("state", "Declined")).toEqual(sorted(m.declined!));
    expect(ids("overdue")).toEqual(sorted(m.extreme!));
    expect(ids("overdueActions")).toEqual(sorted(m.extreme!));
    expect(ids("temporaryInEffect")).toEqual(sorted(m.inEffect!));
    expect(ids("temporaryExpired")).toEqual(sorted(m.expired!));
    expect(ids("effectiveness", "notEffective")).toEqual(sorted(m.low!));
    expect(ids("effectiveness", "overdue")).toEqual(sorted(m.high!));
    expect(ids("effectiveness", "effective")).toEqual(sorted(m.extreme!));
    expect(ids("effectiveness", "partly")).toEqual([]);
    // Each list's count is its figure's, and what is listed plus "more" makes it.
    for (const list of answer.lists) expect(list.mocs.length + list.more).toBe(list.count);
    const extreme = answer.lists.find((l) => l.figure === "risk" && l.key === "extreme")!.mocs[0]!;
    expect(extreme).toEqual({
      id: m.extreme!._id,
      number: m.extreme!.serial_num,
      title: "Extreme risk hot work change",
      vessel: "MV Pack North",
      state: expect.any(String),
      risk: "extreme",
    });
  });

  it("caps each figure's MOCs, counting the rest as more (the figure's own count less those listed)", async () => {
    const capped = await getDb().transaction((tx) =>
      computeReviewPack({ ...PERIOD, department: null, vessel: north }, { db: tx, cap: 2 }),
    );
    const permanent = capped.lists.find((l) => l.figure === "type" && l.key === "permanent")!;
    expect(permanent).toMatchObject({ count: 4, more: 2 });
    expect(permanent.mocs).toHaveLength(2);
    expect(capped.figures).toEqual(await computeInsights({ ...PERIOD, department: null, vessel: north }));
  });

  it("400 on bad filters, nothing else", async () => {
    const bad: Record<string, string>[] = [
      { from: "2025-13-01" },
      { from: day(0), to: day(-1) },
      { department: "kitchen" },
      { vessel: "somewhere" },
      { from: "2015-01-01", to: day(0) },
    ];
    for (const query of bad) {
      const res = await get(reviewPackApi, "/api/reviewPack", hseq, query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      const q = new URLSearchParams(query).toString();
      expect(statusOf(await load(pagesRoute, `/insights/review?${q}`, hseq))).toBe(400);
      expect(statusOf(await load(pdfRoute, `/insights/review/pdf?${q}`, hseq))).toBe(400);
    }
  });

  it("403 for who may not see Insight: the API, the page and the PDF", async () => {
    expect((await get(reviewPackApi, "/api/reviewPack", outsider, {})).status).toBe(403);
    expect(statusOf(await load(pagesRoute, "/insights/review", outsider))).toBe(403);
    expect(statusOf(await load(pdfRoute, "/insights/review/pdf", outsider))).toBe(403);
  });
});

describe("the page and the PDF", () => {
  // Read when the tests run: the vessel is made in beforeAll.
  const q = () => new URLSearchParams({ ...PERIOD, vessel: north }).toString();

  it("the page lays out every section, each MOC linked to its page", async () => {
    const page = (await load(pagesRoute, `/insights/review?${q()}`, hseq)) as { record: PrintRecord };
    expect(page.record.kind).toBe("ReviewPack");
    expect(page.record.sections.map((s) => s.title)).toEqual(Object.values(REVIEW_PACK_SECTIONS));
    const risk = page.record.sections.find((s) => s.id === "risk")!;
    const high = risk.blocks.find((b) => b.kind === "table" && b.title?.startsWith("High"));
    expect(high?.kind === "table" && high.rows[0]![0]).toBe(m.high!.serial_num);
    expect(high?.kind === "table" && high.links?.[0]).toBe(`/mocs/${m.high!._id}`);
  });

  it("PDF: read back with pdftotext, every section title and the figures", async () => {
    const response = (await load(pdfRoute, `/insights/review/pdf?${q()}`, hseq)) as Response;
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("application/pdf");
    expect(response.headers.get("Content-Disposition")).toContain(`Management-review-${PERIOD.from}-to-${PERIOD.to}`);
    const file = path.join(mkdtempSync(path.join(tmpdir(), "review-pack-pdf-")), "pack.pdf");
    writeFileSync(file, Buffer.from(await response.arrayBuffer()));
    const text = folded(execFileSync("pdftotext", ["-raw", file, "-"], { encoding: "utf8" }));
    for (const title of Object.values(REVIEW_PACK_SECTIONS)) expect(text).toContain(title);
    expect(text).toContain(`Management review: ${PERIOD.from} to ${PERIOD.to}`);
    expect(text).toContain("MOCs opened 6");
    expect(text).toContain("MV Pack North 2 1 1 1 0 50%"); // acknowledgement compliance
    expect(text).toContain("In effect 1");
    expect(text).toContain("Expired, not restored 1");
    expect(text).toContain("Reviews due 3"); // Insight's effectiveness figure (decision 058)
    expect(text).toContain("Not effective 1");
    expect(text).toContain("Not effective: 1 MOC");
    for (const moc of [m.high!, m.extreme!, m.inEffect!, m.expired!]) expect(text).toContain(moc.serial_num);
    expect(text).toContain("Extreme risk hot work change");
    expect(text).not.toContain("South radar change");
  });
});
