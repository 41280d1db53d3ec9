/**
 * GET /api/insights (docs/decisions/017-insights.md): every figure checked against values computed by hand on a small
 * fixed data set made through the real model functions and API, with the audit entries' times
 * moved into 2025 by SQL afterwards (the workflow refuses past target dates, so times and dates
 * are set after the fact). Plus who may read them, the period and department filters, bad
 * queries (400, nothing else) and the CSV downloads.
 *
 * The data set, all times 12:00 UTC in 2025 unless said:
 *   M1 engineering  created 01-10, b->c 01-12, c->d 01-13, d->e 01-16, e->f 01-26, closed 02-01; target 02-15 (on time)
 *   M2 operations   created 02-01, b->c 02-05, c->d 02-06, d->e 02-10, extension e->b 02-20, approved b->f 02-22,
 *                   closed 03-05; target 02-25 extended to 03-01 (4 days added; closed late)
 *   M3 engineering  created 03-10, declined at b 03-13
 *   M4 fleet        created 04-01, b->c 04-03, c->d 04-04; open at d, target 12-10 (21 days overdue on 12-31)
 *   M5 engineering  created 05-01, b->c 05-02, c->d 05-03, d->e 05-04, deviation e->b 05-12, rejected b->f 05-20;
 *                   open at f, target 12-25 (6 days overdue: CRITICAL)
 *   M6 operations   created 2024-12-20, open at b, no target date
 *   M7 engineering  created 06-01 and deleted: counted nowhere
 *   M8 hseq         created 11-01, b->c 11-02, c->d 11-03, d->e 11-04, e->f 11-05, closed 2026-01-10; target 12-30
 *   Reminders run for 12-20 and 12-21 (M4, M5, M8 due; 4 people each).
 *   PCR P1 (fleet originator) created 06-01, signed 06-02, 06-04, 06-05, 06-10, 06-11, 06-13 (finished 06-13);
 *   PCR P2 created 07-01, Change Originator signed 07-04, pending.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as insightsRoute from "~/routes/api+/insights";
import * as deleteRoute from "~/routes/api+/deleteMoC";
import * as reviewRoute from "~/routes/api+/year-end-review";
import { pullReviewInsights } from "~/models/review/review.server";
import { sendDueReminders } from "../helpers/reminder-run";
import { MOC_CLOSED_ACTION } from "~/models/moc/moc-steps.server";
import { getDb, inOneSnapshot, inRequestTransaction, type Executor } from "~/utils/db.server";
import { api } from "../helpers/api";
import { makeAdmin, makeUser } from "../helpers/factories";
import { futureDate, implementationForm, resolution, type Cast } from "../helpers/moc";
import { createMocOk, defaultStepBody, makeCast, mocAt, stepOk, tokenOf, type Doc } from "../helpers/moc-flow";
import { createPcrOk, makeHolders, signChain, signOk } from "../helpers/pcr";
import type { CallResult } from "../helpers/request";

const PATH = "/api/insights";
const YEAR = { from: "2025-01-01", to: "2025-12-31" };

async function get(who: { _id: string } | null, query: Record<string, string>): Promise<CallResult> {
  return api(insightsRoute, { path: PATH, query, token: who ? await tokenOf(who) : undefined });
}
async function figures(who: { _id: string }, query: Record<string, string>) {
  const res = await get(who, query);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

const at = (day: string) => `${day}T12:00:00Z`;

/** Moves a MOC's audit entries (in the order they were written) and its creation to `times`. */
async function backdate(mocId: string, times: string[], changes: { target?: string } = {}) {
  const db = getDb();
  const logs = await db.execute<{ id: string }>(sql`select id from moc_logs where moc_id = ${mocId} order by at, id`);
  expect(logs.length, `log entries of ${mocId}`).toBe(times.length);
  // The audit trail is append-only (docs/decisions/021): the fixture switches the trigger off to
  // back-date it, as only a superuser could (the hash chain of these MOCs then no longer verifies).
  await db.execute(sql`alter table moc_logs disable trigger moc_logs_append_only`);
  try {
    for (const [index, log] of [...logs].entries()) {
      await db.execute(sql`update moc_logs set at = ${at(times[index]!)}::timestamptz where id = ${log.id}`);
    }
  } finally {
    await db.execute(sql`alter table moc_logs enable trigger moc_logs_append_only`);
  }
  await db.execute(sql`update mocs set created_at = ${at(times[0]!)}::timestamptz where id = ${mocId}`);
  if (changes.target) await db.execute(sql`update mocs set target_date = ${changes.target}::date where id = ${mocId}`);
}

let cast: Cast;
let admin: Doc;

beforeAll(async () => {
  cast = await makeCast();
  admin = await makeAdmin();
  const dept = (department: string) => ({ "department-of-change": { value: department } });
  const through = async (department: string, steps: ("implementer" | "hseq" | "approver")[]) => {
    let moc = await createMocOk(cast, dept(department));
    for (const step of steps) {
      const actor = step === "implementer" ? cast.implementer : step === "hseq" ? cast.hseq : cast.approver;
      moc = await stepOk(step, actor, defaultStepBody(step, moc, cast));
    }
    return moc;
  };
  const close = (moc: Doc) => stepOk("verifier", cast.hseq, defaultStepBody("verifier", moc, cast));
  // Closing needs Part E's completion date (docs/decisions/033-closure-gates.md): given with the request here.
  const withCompletionDate = (form: ReturnType<typeof implementationForm>) => ({
    ...form,
    "completion-date": { value: futureDate(0) },
  });

  // M1: straight through and closed.
  let m1 = await through("engineering", ["implementer", "hseq", "approver"]);
  m1 = await stepOk("implementation", cast.implementer, defaultStepBody("implementation", m1, cast));
  await close(m1);
  await backdate(m1._id, ["2025-01-10", "2025-01-12", "2025-01-13", "2025-01-16", "2025-01-26", "2025-02-01"], {
    target: "2025-02-15",
  });

  // M2: an extension, approved; the request records the target date it replaces.
  let m2 = await through("operations", ["implementer", "hseq", "approver"]);
  m2 = await stepOk("implementation", cast.implementer, {
    moc_id: m2._id,
    implementation: withCompletionDate(implementationForm({ extension: true })),
  });
  const [tracking] = await getDb().execute<{ previous: string | null; target: string }>(
    sql`select deviations->'extension'->>'previous_date' as previous, target_date::text as target from mocs where id = ${m2._id}`,
  );
  expect(tracking!.previous).toBe(tracking!.target);
  m2 = await stepOk("deviation-extension", cast.approver, resolution(m2, "extension", "yes"));
  await close(m2);
  await backdate(
    m2._id,
    ["2025-02-01", "2025-02-05", "2025-02-06", "2025-02-10", "2025-02-20", "2025-02-22", "2025-03-05"],
    { target: "2025-03-01" },
  );
  await getDb().execute(sql`update mocs set deviations = jsonb_set(jsonb_set(deviations,
    '{extension,previous_date}', '"2025-02-25"'), '{extension,new_date}', '"2025-03-01"') where id = ${m2._id}`);

  // M3: declined by the implementer.
  const m3 = await mocAt("decline-b", cast); // Part A's department: engineering
  await backdate(m3._id, ["2025-03-10", "2025-03-13"]);

  // M4: waiting for approval, long overdue.
  const m4 = await through("fleet", ["implementer", "hseq"]);
  await backdate(m4._id, ["2025-04-01", "2025-04-03", "2025-04-04"], { target: "2025-12-10" });

  // M5: a deviation, rejected; waiting for verification.
  let m5 = await through("engineering", ["implementer", "hseq", "approver"]);
  m5 = await stepOk("implementation", cast.implementer, {
    moc_id: m5._id,
    implementation: withCompletionDate(implementationForm({ deviation: true })),
  });
  await stepOk("deviation-extension", cast.hseq, resolution(m5, "deviation", "no"));
  await backdate(m5._id, ["2025-05-01", "2025-05-02", "2025-05-03", "2025-05-04", "2025-05-12", "2025-05-20"], {
    target: "2025-12-25",
  });

  // M6: raised in 2024, still with the implementer.
  const m6 = await createMocOk(cast, dept("operations"));
  await backdate(m6._id, ["2024-12-20"]);

  // M7: deleted.
  const m7 = await createMocOk(cast, dept("engineering"));
  const deleted = await api(deleteRoute, {
    method: "DELETE",
    path: "/api/deleteMoC",
    query: { id: m7._id },
    token: await tokenOf(cast.originator),
  });
  expect(deleted.status, deleted.text).toBe(200);
  await backdate(m7._id, ["2025-06-01", "2025-06-02"]);

  // M8: implemented in November 2025, reminded in December, closed in January 2026.
  let m8 = await through("hseq", ["implementer", "hseq", "approver"]);
  m8 = await stepOk("implementation", cast.implementer, defaultStepBody("implementation", m8, cast));
  await getDb().execute(
    sql`update mocs set target_date = '2025-12-30', created_at = ${at("2025-11-01")} where id = ${m8._id}`,
  );
  expect((await sendDueReminders({ today: "2025-12-20" })).totalReminders).toBe(3);
  expect((await sendDueReminders({ today: "2025-12-21" })).totalReminders).toBe(3);
  await close(m8);
  await backdate(m8._id, ["2025-11-01", "2025-11-02", "2025-11-03", "2025-11-04", "2025-11-05", "2026-01-10"]);

  // PCRs: one finished, one waiting on the VP.
  const holders = await makeHolders("insights");
  const pcrOriginator = await makeUser({ name: "Pia Pcr", department: "fleet" });
  const p1 = await createPcrOk(pcrOriginator);
  await signChain(p1._id, { "Change Originator": pcrOriginator, ...holders });
  const p2 = await createPcrOk(pcrOriginator);
  await signOk(pcrOriginator, p2._id, "Change Originator");
  const signed = (days: (string | null)[]) => JSON.stringify(days.map((d) => (d ? `${d}T12:00:00.000Z` : null)));
  await getDb().execute(sql`
    update pcrs set created_at = ${at("2025-06-01")}, finished_at = ${at("2025-06-13")}, updated_at = ${at("2025-06-13")},
      signatures = (select jsonb_agg(jsonb_set(s.value, '{signatureDate}', to_jsonb(d.value)) order by s.ord)
        from jsonb_array_elements(signatures) with ordinality s(value, ord)
        join jsonb_array_elements_text(${signed(["2025-06-02", "2025-06-04", "2025-06-05", "2025-06-10", "2025-06-11", "2025-06-13"])}::jsonb)
          with ordinality d(value, ord) using (ord))
    where id = ${p1._id}`);
  await getDb().execute(sql`
    update pcrs set created_at = ${at("2025-07-01")}, updated_at = ${at("2025-07-04")},
      signatures = jsonb_set(signatures, '{0,signatureDate}', '"2025-07-04T12:00:00.000Z"')
    where id = ${p2._id}`);
}, 120_000);

describe("the figures for 2025, computed by hand", () => {
  it("MOCs opened, completed and declined per month, and open at each month's end", async () => {
    const data = await figures(admin, YEAR);
    expect(data.period).toEqual({ ...YEAR, department: null, asOf: "2025-12-31" });
    const opened = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0];
    const completed = [0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    const declined = [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    const openAtEnd = [2, 2, 1, 2, 3, 3, 3, 3, 3, 3, 4, 4];
    expect(data.monthly).toEqual(
      opened.map((_, i) => ({
        month: `2025-${String(i + 1).padStart(2, "0")}`,
        opened: opened[i],
        completed: completed[i],
        declined: declined[i],
        openAtEnd: openAtEnd[i],
      })),
    );
    expect(data.totals).toEqual({ opened: 6, completed: 2, declined: 1, openAtEnd: 4, onTimeRate: 50 });
    // Part A records the vessel or scope since docs/decisions/036-vessels-and-crew-access.md.
    expect(data.vesselOrOffice).toBe("recorded");
  });

  it("days in each step: median and 90th percentile of the stays that ended in the period", async () => {
    const data = await figures(admin, YEAR);
    const byStep = Object.fromEntries(data.steps.map((s: Doc) => [s.step, [s.count, s.median, s.p90]]));
    expect(byStep).toEqual({
      a: [0, null, null],
      // b: M8 1, M5 1, M1 2, M4 2, M3 3 (declined), M2 4
      b: [6, 2, 3.5],
      c: [5, 1, 1],
      // d: M8 1, M5 1, M1 3, M2 4
      d: [4, 2, 3.7],
      // e: M8 1, M5 8, M1 10, M2 10
      e: [4, 9, 10],
      // deviation/extension decision: M2 2, M5 8
      deviation: [2, 5, 7.4],
      // f: M1 6, M2 11 (M8's ended in 2026)
      f: [2, 8.5, 10.5],
    });
  });

  it("on-time closure and the open MOCs' target-date bands per department", async () => {
    const data = await figures(admin, YEAR);
    const none = { OVERDUE_LONG: 0, CRITICAL: 0, URGENT: 0, HIGH: 0, MEDIUM: 0, LOW: 0 };
    expect(data.departments).toEqual([
      { department: "engineering", completed: 1, onTime: 1, onTimeRate: 100, overdue: { ...none, CRITICAL: 1 } },
      { department: "operations", completed: 1, onTime: 0, onTimeRate: 0, overdue: none },
      { department: "fleet", completed: 0, onTime: 0, onTimeRate: null, overdue: { ...none, OVERDUE_LONG: 1 } },
      // M8 was still open on 12-31 (closed in 2026): one day overdue.
      { department: "hseq", completed: 0, onTime: 0, onTimeRate: null, overdue: { ...none, CRITICAL: 1 } },
    ]);
  });

  it("deviations and extensions: how many, how often approved, days added", async () => {
    const data = await figures(admin, YEAR);
    expect(data.deviations).toEqual([
      {
        type: "deviation",
        requested: 1,
        approved: 0,
        rejected: 1,
        waiting: 0,
        approvalRate: 0,
        daysAdded: null,
        daysAddedUnknown: 0,
      },
      {
        type: "extension",
        requested: 1,
        approved: 1,
        rejected: 0,
        waiting: 0,
        approvalRate: 100,
        daysAdded: 4,
        daysAddedUnknown: 0,
      },
    ]);
  });

  it("PCRs: creation to finished, and the days each chain role took", async () => {
    const data = await figures(admin, YEAR);
    expect(data.pcrs.created).toBe(2);
    expect(data.pcrs.finished).toBe(1);
    expect(data.pcrs.daysToFinish).toEqual({ count: 1, median: 12, p90: 12 });
    const byRole = Object.fromEntries(data.pcrs.roles.map((r: Doc) => [r.role, [r.count, r.median, r.p90]]));
    expect(byRole).toEqual({
      "Change Originator": [2, 2, 2.8],
      "VP Fleet Management": [1, 2, 2],
      "HSEQ Coordinator": [1, 1, 1],
      "Group HSEQ Manager": [1, 5, 5],
      "Director HSEQ": [1, 1, 1],
      President: [1, 2, 2],
      "Affected party": [0, null, null],
    });
  });

  it("reminders sent per day", async () => {
    const data = await figures(admin, YEAR);
    expect(data.reminders).toEqual({
      total: { mocs: 6, emails: 24 },
      days: [
        { day: "2025-12-20", mocs: 3, emails: 12 },
        { day: "2025-12-21", mocs: 3, emails: 12 },
      ],
    });
  });
});

describe("filters", () => {
  it("a department counts only its MOCs (and PCRs by their originator's department)", async () => {
    const data = await figures(admin, { ...YEAR, department: "engineering" });
    expect(data.period.department).toBe("engineering");
    expect(data.monthly.map((m: Doc) => m.opened)).toEqual([1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
    expect(data.monthly.map((m: Doc) => m.openAtEnd)).toEqual([1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(data.totals).toEqual({ opened: 3, completed: 1, declined: 1, openAtEnd: 1, onTimeRate: 100 });
    expect(data.steps.find((s: Doc) => s.step === "b")).toMatchObject({ count: 3, median: 2 });
    expect(data.departments.map((d: Doc) => d.department)).toEqual(["engineering"]);
    expect(data.deviations.map((d: Doc) => d.requested)).toEqual([1, 0]);
    expect(data.reminders.total).toEqual({ mocs: 2, emails: 8 });
    expect(data.pcrs.created).toBe(0);

    const fleet = await figures(admin, { ...YEAR, department: "fleet" });
    expect(fleet.pcrs.created).toBe(2);
    expect(fleet.totals.opened).toBe(1);
    expect(fleet.reminders.total).toEqual({ mocs: 2, emails: 8 });
  });

  it("a period counts what happened within it; open counts and bands are as of its end", async () => {
    const data = await figures(admin, { from: "2025-02-01", to: "2025-03-31" });
    expect(data.monthly).toEqual([
      { month: "2025-02", opened: 1, completed: 1, declined: 0, openAtEnd: 2 },
      { month: "2025-03", opened: 1, completed: 1, declined: 1, openAtEnd: 1 },
    ]);
    expect(data.period.asOf).toBe("2025-03-31");
    // Stays that ended in Feb-Mar: M1's f (02-01), M2's b, c, d, e, deviation, f; M3's b.
    expect(data.steps.find((s: Doc) => s.step === "f")).toMatchObject({ count: 2 });
    expect(data.steps.find((s: Doc) => s.step === "b")).toMatchObject({ count: 2, median: 3.5 });
    expect(data.departments.flatMap((d: Doc) => Object.values(d.overdue)).every((n: number) => n === 0)).toBe(true);
    expect(data.reminders.days).toEqual([]);
    expect(data.pcrs.finished).toBe(0);

    // Part of a month: only the days inside the period count.
    const mid = await figures(admin, { from: "2025-01-15", to: "2025-02-10" });
    expect(mid.monthly.map((m: Doc) => [m.month, m.opened, m.completed])).toEqual([
      ["2025-01", 0, 0],
      ["2025-02", 1, 1],
    ]);
  });

  it("without a period: the current UTC year up to today", async () => {
    const data = await figures(admin, {});
    const today = new Date().toISOString().slice(0, 10);
    expect(data.period).toEqual({ from: `${today.slice(0, 4)}-01-01`, to: today, department: null, asOf: today });
    // M8 was closed in January 2026 (if this runs in 2026, it counts).
    expect(data.monthly.length).toBe(Number(today.slice(5, 7)));
  });
});

describe("access and bad input", () => {
  it("admins, the HSEQ department and full-access users may; others get 403; nobody signed in 401", async () => {
    const full = await makeUser({ department: "engineering", access: "full" });
    const standard = await makeUser({ department: "engineering", access: "standard" });
    const president = await makeUser({ department: "fleet", position: "President" });
    for (const who of [admin, cast.hseq, full]) expect((await get(who, YEAR)).status).toBe(200);
    for (const who of [standard, president, cast.originator]) {
      const res = await get(who, { from: "nonsense" });
      expect(res.status, res.text).toBe(403);
      expect(res.body.message).toMatch(/admins, the HSEQ department and full-access users/);
    }
    expect((await get(null, YEAR)).status).toBe(401);
  });

  it("a malformed period or department is 400 with the offending parameter", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ from: "2025-13-01" }, "from"],
      [{ from: "yesterday" }, "from"],
      [{ to: "2025-02-30" }, "to"],
      [{ from: "2025-05-01", to: "2025-04-01" }, "from"],
      [{ from: "2015-01-01", to: "2025-01-01" }, "to"],
      [{ department: "sales" }, "department"],
      [{ format: "xml" }, "format"],
      [{ format: "csv" }, "table"],
      [{ format: "csv", table: "everything" }, "table"],
    ];
    for (const [query, path] of cases) {
      const res = await get(admin, query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(
        res.body.issues.map((i: { path: string }) => i.path),
        JSON.stringify(query),
      ).toContain(path);
    }
  });
});

describe("CSV downloads", () => {
  it("each table downloads as CSV with the same rows the page shows", async () => {
    const res = await get(admin, { ...YEAR, format: "csv", table: "monthly" });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("Content-Disposition")).toBe(
      'attachment; filename="insights-monthly-2025-01-01-to-2025-12-31.csv"',
    );
    const lines = res.text.replace(/^\uFEFF/, "").split("\r\n");
    expect(lines[0]).toBe("Month,Opened,Completed,Declined,Open at month end");
    expect(lines[1]).toBe("Jan 2025,1,0,0,2");
    expect(lines[3]).toBe("Mar 2025,1,1,1,1");
    expect(lines).toHaveLength(14); // header, 12 months, and the final line break

    const onTime = await get(admin, { ...YEAR, department: "operations", format: "csv", table: "on-time" });
    const rows = onTime.text
      .replace(/^\uFEFF/, "")
      .trim()
      .split("\r\n");
    expect(rows).toEqual([
      "Department,Completed,On time,On-time rate %,Overdue > 14 days,Critical (1-14 days overdue),Urgent (due today or tomorrow),High (due in 2-7 days),Medium (8-14 days),Low (15-30 days)",
      "Operations,1,0,0,0,0,0,0,0,0",
    ]);

    const pcrs = await get(admin, { ...YEAR, format: "csv", table: "pcrs" });
    expect(pcrs.text).toContain("\r\nChange Originator,2,2,2.8\r\n");
    expect(pcrs.text).toContain("\r\nAffected party,0,,\r\n");
    expect(pcrs.text).toContain("\r\nCreation to finished,1,12,12\r\n");

    const steps = await get(admin, { ...YEAR, format: "csv", table: "steps" });
    expect(steps.text).toContain("\r\nDeviation and extension decision,2,5,7.4\r\n");
  });

  it("a standard user cannot download either", async () => {
    const standard = await makeUser({ department: "operations" });
    expect((await get(standard, { ...YEAR, format: "csv", table: "monthly" })).status).toBe(403);
  });
});

describe("the year-end review", () => {
  it("pulls its year's figures into its summary; a PUT of the same year keeps them, another year drops them", async () => {
    const as = async (who: { _id: string }, method: string, body?: unknown, query?: Record<string, string>) =>
      api(reviewRoute, { method, path: "/api/year-end-review", query, body, token: await tokenOf(who) });
    const created = await as(cast.hseq, "POST", { year: 2025, title: "Review 2025" });
    expect(created.status, created.text).toBe(200);
    const id = created.body.data._id;
    expect(created.body.data.moc_summary.insights).toBeUndefined();

    await expect(pullReviewInsights(cast.originator, id)).rejects.toMatchObject({ status: 403 });
    const pulled = await pullReviewInsights(cast.hseq, id);
    expect(pulled.moc_summary.insights).toEqual(await figures(admin, YEAR));
    expect(pulled.moc_summary.total).toBe(6);

    // GET then PUT (the API strips what the client cannot set): the figures stay, even recounted.
    const read = await as(cast.hseq, "GET", undefined, { id });
    const kept = await as(cast.hseq, "PUT", { ...read.body.data, title: "Review 2025 (final)" }, { id });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.data.moc_summary.insights).toEqual(pulled.moc_summary.insights);
    const recounted = await as(cast.hseq, "PUT", { ...read.body.data, moc_summary: null }, { id });
    expect(recounted.body.data.moc_summary.insights).toEqual(pulled.moc_summary.insights);

    const moved = await as(cast.hseq, "PUT", { ...read.body.data, year: 2024, moc_summary: null }, { id });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data.moc_summary.insights).toBeUndefined();
  });
});

describe("the indexes the figures read", () => {
  it("the partial indexes on moving audit entries name the closing action the code writes", async () => {
    // The figures say MOVES with the action as a literal so PostgreSQL can prove a query stays
    // inside these indexes; a renamed action would silently fall back to reading every entry.
    const rows = await getDb().execute<{ indexdef: string }>(
      sql`select indexdef from pg_indexes
        where indexname in ('moc_logs_moves_at_idx', 'moc_logs_moves_moc_idx', 'moc_logs_ends_at_idx')`,
    );
    expect(rows.length).toBe(3);
    for (const row of rows) expect(row.indexdef).toContain(`'${MOC_CLOSED_ACTION}'`);
  });
});

describe("the figures' two connections (docs/performance.md, 'Insight on two connections')", () => {
  const users = async (db: Executor) =>
    (await db.execute<{ n: number }>(sql`select count(*)::int as n from users`))[0]!.n;
  const backend = async (db: Executor) =>
    (await db.execute<{ pid: number }>(sql`select pg_backend_pid() as pid`))[0]!.pid;

  it("read one snapshot: a row committed between their reads is seen by neither, and both are read only", async () => {
    const seen = await inOneSnapshot(async (tx, side) => {
      const first = await users(tx);
      const pids = [await backend(tx), await backend(side)];
      await makeUser(); // committed on a third connection
      const second = await users(side);
      const again = await users(tx);
      const readOnly = await Promise.all(
        [tx, side].map(
          async (db) =>
            (await db.execute<{ on: string }>(sql`select current_setting('transaction_read_only') as on`))[0]!.on,
        ),
      );
      return { first, second, again, pids, readOnly };
    });
    expect(seen.pids[0]).not.toBe(seen.pids[1]);
    expect(seen.second).toBe(seen.first);
    expect(seen.again).toBe(seen.first);
    expect(seen.readOnly).toEqual(["on", "on"]);
    expect(await users(getDb())).toBe(seen.first + 1);
  });

  it("share one connection inside a request's transaction", async () => {
    const pids = await inRequestTransaction(() =>
      inOneSnapshot(async (tx, side) => [await backend(tx), await backend(side)]),
    );
    expect(pids[0]).toBe(pids[1]);
  });
});
