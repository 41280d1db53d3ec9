/**
 * What comes out of a circulation (issue 41): its tracking as CSV, print view and PDF (the same
 * figures as `circulationTracking`, every recipient, the questions, the CSV's formula guard, the
 * tracking's own 403/404); the daily run's reminders of overdue acknowledgements (one per person
 * per day however many circulations, in the digest for those who chose it, none for a person who
 * left the vessel, none again the same day); Insight's acknowledgement compliance by vessel against
 * a hand-computed case (and through GET /api/insights); the dashboard's "To read and acknowledge".
 *
 * A finished PCR is circulated to two vessels and the operations department through the model
 * (`circulate`); dates are then moved in the database, as the reminder tests do, to make some
 * recipients overdue and one acknowledgement late.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as csvRoute from "~/routes/circulations+/$id_.csv";
import * as pdfRoute from "~/routes/circulations+/$id_.pdf";
import * as printRoute from "~/routes/circulations+/$id_.print";
import * as dashboardRoute from "~/routes/_index";
import * as acknowledgementsRoute from "~/routes/acknowledgements";
import * as insightsApi from "~/routes/api+/insights";
import {
  acknowledge,
  circulate,
  circulationTracking,
  pendingAcknowledgements,
  type CirculationJson,
} from "~/models/circulations/circulations.server";
import { recordName } from "~/models/circulations/circulation-outputs.server";
import { RECIPIENT_STATE_WORDS } from "~/models/circulations/circulations.schema";
import { computeInsights } from "~/models/insights/insights.server";
import type { PrintRecord } from "~/models/records-out/record-print.server";
import { sendDueReminders } from "../helpers/reminder-run";
import type { PublicUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { api } from "../helpers/api";
import { makeUser } from "../helpers/factories";
import { tokenOf } from "../helpers/moc-flow";
import { createPcrOk, makeHolders, signChain, type PcrDoc } from "../helpers/pcr";
import { folded } from "../helpers/record-views";
import { buildRequest } from "../helpers/request";

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

async function makeVessel(name: string): Promise<string> {
  const imo = String(1_000_000 + Math.floor(Math.random() * 8_999_999));
  const [row] = await getDb().execute<{ id: string }>(
    sql`insert into vessels (name, imo) values (${name}, ${imo}) returning id`,
  );
  return row!.id;
}
const assign = (userId: string, vesselId: string) =>
  getDb().execute(
    sql`insert into vessel_assignments (vessel_id, user_id, from_date) values (${vesselId}, ${userId}, ${day(-60)})`,
  );
const setDue = (circulationId: string, user: { _id: string }, due: string) =>
  getDb().execute(
    sql`update circulation_recipients set due = ${due} where circulation_id = ${circulationId} and user_id = ${user._id}`,
  );

/** A route's answer to `user`: the loader's value, or the Response it returned or threw (the 403/404 pages). */
async function load(route: { loader: (args: never) => unknown }, url: string, user: { _id: string }, id?: string) {
  const request = await buildRequest({ path: url, token: await tokenOf(user), cookie: true });
  try {
    return await route.loader({ request, params: { id }, context: {} } as never);
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    const init = (thrown as { init?: { status?: number } }).init;
    if (init?.status) return new Response(null, { status: init.status });
    throw thrown;
  }
}

let hseq: PublicUser;
let originator: PublicUser;
let outsider: PublicUser;
let northMaster: PublicUser; // acknowledges on time, with a question that looks like a formula
let northCook: PublicUser; // overdue, on both circulations
let southMaster: PublicUser; // acknowledges late
let southBosun: PublicUser; // leaves the vessel before acknowledging
let clerk: PublicUser; // operations: reached through the department, chose the daily digest
let north: string;
let south: string;
let pcr: PcrDoc;
let second: PcrDoc;
let main: CirculationJson;
let holders: Awaited<ReturnType<typeof makeHolders>>;
let other: CirculationJson;

const QUESTION = "=HYPERLINK(1) does step 4 apply to the aft winch?";

beforeAll(async () => {
  [hseq, originator, outsider, northMaster, northCook, southMaster, southBosun, clerk] = await Promise.all([
    makeUser({ name: "Hana Hseq", department: "hseq" }),
    makeUser({ name: "Otto Originator", department: "fleet" }),
    makeUser({ name: "Una Outsider", department: "engineering" }),
    makeUser({ name: "Nils North", department: "fleet" }),
    makeUser({ name: "Nora Cook", department: "fleet" }),
    makeUser({ name: "Sven South", department: "fleet" }),
    makeUser({ name: "Sara Bosun", department: "fleet" }),
    makeUser({ name: "Cleo Clerk", department: "operations" }),
  ]);
  await getDb().execute(sql`update users set reminder_preference = 'digest' where id = ${clerk._id}`);
  [north, south] = await Promise.all([makeVessel("MV Outputs North"), makeVessel("MV Outputs South")]);
  await Promise.all([
    assign(northMaster._id, north),
    assign(northCook._id, north),
    assign(southMaster._id, south),
    assign(southBosun._id, south),
  ]);
  holders = await makeHolders("outputs");
  pcr = await createPcrOk(originator);
  await signChain(pcr._id, { "Change Originator": originator, ...holders });
  second = await createPcrOk(originator);
  await signChain(second._id, { "Change Originator": originator, ...holders });
  main = await circulate(originator, {
    record: `pcr:${pcr._id}`,
    vessels: [north, south],
    ranks: [],
    departments: ["operations"],
    due: day(7),
    note: "Mooring winch brake test now monthly; read section 4.",
  });
  other = await circulate(originator, {
    record: `pcr:${second._id}`,
    vessels: [north],
    ranks: [],
    departments: [],
    due: day(7),
    note: "Galley gas detector check added to the daily round.",
  });
  await acknowledge(northMaster, { circulationId: main._id, comment: QUESTION });
  await setDue(main._id, southMaster, day(-1));
  await acknowledge(southMaster, { circulationId: main._id });
  await setDue(main._id, northCook, day(-3));
  await setDue(other._id, northCook, day(-2));
  // The bosun signs off the vessel yesterday, before acknowledging.
  await getDb().execute(
    sql`update vessel_assignments set to_date = ${day(-1)} where user_id = ${southBosun._id} and vessel_id = ${south}`,
  );
}, 120_000);

const tracking = () => circulationTracking(hseq, main._id, { pageSize: 500 });

describe("the tracking's CSV, print view and PDF", () => {
  it("the figures the tracking holds: the case the outputs are checked against", async () => {
    const t = await tracking();
    expect(t.totals).toEqual({ total: 5, acknowledged: 2, waiting: 1, overdue: 1, left: 1 });
    const states = Object.fromEntries(t.recipients.map((r) => [r.user.name, r.state]));
    expect(states).toEqual({
      "Nils North": "acknowledged",
      "Nora Cook": "overdue",
      "Sven South": "acknowledged",
      "Sara Bosun": "left",
      "Cleo Clerk": "waiting",
    });
  });

  it("CSV: a download with the record, note, due, totals, by vessel and rank, every recipient and the questions; formulas inert", async () => {
    const t = await tracking();
    const response = (await load(csvRoute, `/circulations/${main._id}/csv`, hseq, main._id)) as Response;
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("Content-Disposition")).toMatch(
      new RegExp(`^attachment; filename="acknowledgements-PCR-${pcr.serial_num}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`),
    );
    expect(response.headers.get("Cache-Control")).toBe("private, no-store");
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes).slice(1);
    const lines = text.split("\r\n");
    for (const line of [
      "The circulation",
      `Record,${recordName(t.circulation.record)}`,
      // A separator in a cell: quoted, so no locale splits it.
      'What changed,"Mooring winch brake test now monthly; read section 4."',
      `Due,${day(7)}`,
      "Totals",
      `Recipients,${t.totals.total}`,
      `Acknowledged,${t.totals.acknowledged}`,
      `Waiting,${t.totals.waiting}`,
      `Overdue,${t.totals.overdue}`,
      `Left the vessel,${t.totals.left}`,
      "By vessel and rank",
      "Vessel,Rank,Recipients,Acknowledged,Waiting,Overdue,Left the vessel",
      "Recipients",
      "Name,Rank,Vessel,Due,State,Acknowledged (UTC),Comment",
      "Questions and comments",
    ]) {
      expect(lines).toContain(line);
    }
    // Every group and every recipient, with the tracking's figures and states.
    for (const g of t.byVesselAndRank) {
      expect(lines).toContain(
        [
          g.vessel?.name ?? "Office (by department)",
          g.rank ?? "No rank",
          g.total,
          g.acknowledged,
          g.waiting,
          g.overdue,
          g.left,
        ].join(","),
      );
    }
    for (const r of t.recipients) {
      expect(
        lines.some(
          (l) => l.startsWith(`${r.user.name},`) && l.includes(`,${r.due},${RECIPIENT_STATE_WORDS[r.state]},`),
        ),
      ).toBe(true);
    }
    // The question starts with "=": a spreadsheet shows it as text.
    expect(text).toContain(`'${QUESTION}`);
    expect(text).not.toMatch(/(^|,)=HYPERLINK/m);
  });

  it("print view: the same sections and figures as the tracking, all recipients, no signature or trail sections", async () => {
    const t = await tracking();
    const { record } = (await load(printRoute, `/circulations/${main._id}/print`, hseq, main._id)) as {
      record: PrintRecord;
    };
    expect(record.kind).toBe("Circulation");
    expect(record.sections.map((s) => s.title)).toEqual([
      "The circulation",
      "Totals",
      "By vessel and rank",
      "Recipients",
      "Questions and comments",
    ]);
    const totals = record.sections[1]!.blocks[0]!;
    expect(totals.kind === "fields" && totals.fields.map((f) => f.value)).toEqual(
      [t.totals.total, t.totals.acknowledged, t.totals.waiting, t.totals.overdue, t.totals.left].map(String),
    );
    const recipients = record.sections[3]!.blocks[0]!;
    expect(recipients.kind === "table" && recipients.rows.map((r) => [r[0], r[4]])).toEqual(
      t.recipients.map((r) => [r.user.name, RECIPIENT_STATE_WORDS[r.state]]),
    );
    const questions = record.sections[4]!.blocks[0]!;
    expect(questions.kind === "table" && questions.rows.map((r) => r[4])).toEqual([QUESTION]);
    expect(record.signatures).toEqual([]);
    expect(record.history).toEqual([]);
  });

  it("PDF: read back with pdftotext, each section and the same figures", async () => {
    const t = await tracking();
    const response = (await load(pdfRoute, `/circulations/${main._id}/pdf`, hseq, main._id)) as Response;
    expect(response.status).toBe(200);
    expect(response.headers.get("Content-Type")).toBe("application/pdf");
    expect(response.headers.get("Content-Disposition")).toContain(`Acknowledgements-PCR-${pcr.serial_num}`);
    const file = path.join(mkdtempSync(path.join(tmpdir(), "circulation-pdf-")), "tracking.pdf");
    writeFileSync(file, Buffer.from(await response.arrayBuffer()));
    const text = folded(execFileSync("pdftotext", ["-raw", file, "-"], { encoding: "utf8" }));
    for (const heading of ["The circulation", "Totals", "By vessel and rank", "Recipients", "Questions and comments"]) {
      expect(text).toContain(heading);
    }
    expect(text).not.toContain("Audit trail");
    expect(text).not.toContain("Signatures");
    expect(text).toContain("Mooring winch brake test now monthly");
    expect(text).toContain(`${t.totals.acknowledged} of ${t.totals.total} acknowledged`);
    for (const [label, n] of [
      ["Recipients", t.totals.total],
      ["Acknowledged", t.totals.acknowledged],
      ["Overdue", t.totals.overdue],
      ["Left the vessel", t.totals.left],
    ] as const) {
      expect(text).toContain(`${label} ${n}`);
    }
    for (const r of t.recipients) expect(text).toContain(r.user.name);
    expect(text).toContain("does step 4 apply to the aft winch?");
  });

  it("every recipient, past the tracking page's first page", async () => {
    // 60 more office recipients (with the HSEQ user) (more than the page's 50): the outputs list them all.
    const extra = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        makeUser({ name: `Zed Extra ${String(i).padStart(2, "0")}`, department: "hseq" }),
      ),
    );
    const wide = await circulate(originator, {
      record: `pcr:${pcr._id}`,
      vessels: [],
      ranks: [],
      departments: ["hseq"],
      due: day(7),
      note: "Wide circulation.",
    });
    const firstPage = await circulationTracking(hseq, wide._id);
    expect(firstPage.recipients.length).toBeLessThan(extra.length);
    const { record } = (await load(printRoute, `/circulations/${wide._id}/print`, hseq, wide._id)) as {
      record: PrintRecord;
    };
    const rows = record.sections[3]!.blocks[0]!;
    expect(rows.kind === "table" && rows.rows.length).toBe(firstPage.totals.total);
    const csv = await ((await load(csvRoute, `/circulations/${wide._id}/csv`, hseq, wide._id)) as Response).text();
    for (const person of extra) expect(csv).toContain(`${person.name},`);
  });

  it("answers as the tracking does: 404 for no such circulation, the tracking's refusal for who may not see it", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    for (const route of [csvRoute, pdfRoute, printRoute]) {
      expect(((await load(route, `/circulations/${missing}/x`, hseq, missing)) as Response).status).toBe(404);
      expect(((await load(route, `/circulations/not-an-id/x`, hseq, "not-an-id")) as Response).status).toBe(404);
    }
    const refusal = await circulationTracking(outsider, main._id).then(
      () => 200,
      (error: { status: number }) => error.status,
    );
    for (const route of [csvRoute, pdfRoute, printRoute]) {
      const answer = await load(route, `/circulations/${main._id}/x`, outsider, main._id);
      expect(answer instanceof Response ? answer.status : 200).toBe(refusal);
    }
  });
});

describe("reminders of overdue acknowledgements", () => {
  const emailsTo = async (user: PublicUser, since: string) =>
    getDb().execute<{ subject: string; text: string }>(
      sql`select subject, text from email_messages where to_user_id = ${user._id} and created_at >= ${since}::timestamptz
        and kind = 'reminder' order by created_at`,
    );

  it("one email per person per day listing every overdue circulation; digest lines for who chose it; nothing for who left; nothing again that day", async () => {
    const since = new Date().toISOString();
    // Nobody but the cook is overdue today; a week from now the clerk is too (due in 7 days).
    const today = day(0);
    const first = await sendDueReminders({ today });
    expect(first.message).toContain("1 person reminded of overdue acknowledgements");
    const cook = await emailsTo(northCook, since);
    expect(cook).toHaveLength(1);
    expect(cook[0]!.subject).toBe("[To read and acknowledge] Reminder: 2 changes overdue");
    expect(cook[0]!.text).toContain(`PCR ${pcr.serial_num}`);
    expect(cook[0]!.text).toContain(`PCR ${second.serial_num}`);
    expect(cook[0]!.text).toContain("3 days overdue");
    expect(cook[0]!.text).toContain("2 days overdue");
    for (const person of [northMaster, southMaster, southBosun, clerk])
      expect(await emailsTo(person, since)).toEqual([]);

    // The same day again: nothing.
    await sendDueReminders({ today });
    expect(await emailsTo(northCook, since)).toHaveLength(1);

    // Eight days on: the clerk is overdue too (in their digest); the bosun who left still gets nothing.
    const later = day(8);
    await sendDueReminders({ today: later });
    expect(await emailsTo(northCook, since)).toHaveLength(2);
    const digest = await emailsTo(clerk, since);
    expect(digest).toHaveLength(1);
    expect(digest[0]!.subject).toBe("[To read and acknowledge] 1 acknowledgement overdue");
    expect(digest[0]!.text).toContain("You chose one daily digest");
    expect(await emailsTo(southBosun, since)).toEqual([]);
    const claims = await getDb().execute<{ user_id: string; day: string; circulations: number }>(
      sql`select user_id, day::text as day, circulations from acknowledgement_reminders
        where user_id in (${northCook._id}, ${clerk._id}, ${southBosun._id}) order by day, user_id`,
    );
    expect(claims.map((c) => [c.user_id, c.day, c.circulations])).toEqual([
      [northCook._id, today, 2],
      ...[
        [northCook._id, later, 2],
        [clerk._id, later, 1],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    ]);
  });
});

describe("Insight: acknowledgement compliance by vessel", () => {
  it("per vessel: recipients, acknowledged, on time, overdue, left and compliance, as computed by hand", async () => {
    const figures = await computeInsights({ from: day(-10), to: day(0), department: null });
    // Due in the period: north's master (+7, no) ... only recipients due from day -10 to today count.
    // North: the cook (overdue on both circulations, due -3 and -2). South: the master (acknowledged a
    // day late, due -1). Nobody else is due in the period.
    expect(figures.acknowledgementCompliance).toEqual([
      { vessel: "MV Outputs North", recipients: 2, acknowledged: 0, onTime: 0, overdue: 2, left: 0, compliance: 0 },
      { vessel: "MV Outputs South", recipients: 1, acknowledged: 1, onTime: 0, overdue: 0, left: 0, compliance: 0 },
    ]);
    // Over the due dates of the whole circulation (every recipient of both, and the wide one's).
    const all = await computeInsights({ from: day(-10), to: day(7), department: null, vessel: null });
    const rows = Object.fromEntries((all.acknowledgementCompliance ?? []).map((r) => [r.vessel, r]));
    // North: master on time (due +7), cook overdue twice. 1 on time of 3 answered-or-overdue: 33.3 %.
    expect(rows["MV Outputs North"]).toEqual({
      vessel: "MV Outputs North",
      recipients: 4,
      acknowledged: 1,
      onTime: 1,
      overdue: 2,
      left: 0,
      compliance: 33.3,
    });
    // North's second-circulation master is waiting (due +7, not answered): counted as a recipient only.
    // South: the master late, the bosun left: 0 on time of 1.
    expect(rows["MV Outputs South"]).toEqual({
      vessel: "MV Outputs South",
      recipients: 2,
      acknowledged: 1,
      onTime: 0,
      overdue: 0,
      left: 1,
      compliance: 0,
    });
    // Office: the clerk and the 60 of the wide circulation, all waiting: no compliance yet.
    expect(rows["Office (by department)"]).toMatchObject({ acknowledged: 0, overdue: 0, left: 0, compliance: null });

    // Filters: the recipient's vessel; the record's department (a PCR's originator's).
    const southOnly = await computeInsights({ from: day(-10), to: day(7), department: null, vessel: south });
    expect(southOnly.acknowledgementCompliance?.map((r) => r.vessel)).toEqual(["MV Outputs South"]);
    const office = await computeInsights({ from: day(-10), to: day(7), department: null, vessel: "office" });
    expect(office.acknowledgementCompliance?.map((r) => r.vessel)).toEqual(["Office (by department)"]);
    const engineering = await computeInsights({ from: day(-10), to: day(7), department: "engineering" });
    expect(engineering.acknowledgementCompliance).toEqual([]);
    const fleet = await computeInsights({ from: day(-10), to: day(7), department: "fleet" });
    expect(fleet.acknowledgementCompliance).toEqual(all.acknowledgementCompliance);
  });

  it("GET /api/insights answers the same figures, and the table as CSV", async () => {
    const query = `from=${day(-10)}&to=${day(7)}`;
    const expected = (await computeInsights({ from: day(-10), to: day(7), department: null }))
      .acknowledgementCompliance;
    const json = await api(insightsApi, { path: `/api/insights?${query}`, token: await tokenOf(hseq) });
    expect(json.status).toBe(200);
    expect(json.body.data.acknowledgementCompliance).toEqual(expected);
    const csv = await api(insightsApi, {
      path: `/api/insights?${query}&format=csv&table=acknowledgements`,
      token: await tokenOf(hseq),
    });
    expect(csv.status).toBe(200);
    expect(csv.text).toContain("MV Outputs North,4,1,1,2,0,33.3");
  });
});

describe("the dashboard's To read and acknowledge", () => {
  type Dashboard = {
    acknowledgements: { items: { circulationId: string; overdue: boolean; note: string }[]; total: number };
  };

  it("lists what waits for the reader (overdue said), the first few, and the full list pages", async () => {
    const data = (await load(dashboardRoute, "/", northCook)) as Dashboard;
    expect(data.acknowledgements.total).toBe(2);
    expect(data.acknowledgements.items.map((i) => [i.circulationId, i.overdue])).toEqual([
      [main._id, true],
      [other._id, true],
    ]);
    expect(data.acknowledgements).toEqual(await pendingAcknowledgements(northCook, { pageSize: 5 }));
    // Acknowledged, left the vessel, or never a recipient: nothing to show.
    for (const person of [southMaster, southBosun, outsider]) {
      expect(((await load(dashboardRoute, "/", person)) as Dashboard).acknowledgements.total).toBe(0);
    }
    const list = (await load(acknowledgementsRoute, "/acknowledgements?page=1", northCook)) as {
      items: unknown[];
      total: number;
      pages: number;
    };
    expect(list).toMatchObject({ total: 2, pages: 1 });
    expect(list.items).toHaveLength(2);
    const beyond = (await load(acknowledgementsRoute, "/acknowledgements?page=3", northCook)) as {
      items: unknown[];
      total: number;
    };
    expect(beyond).toMatchObject({ items: [], total: 2 });
  });

  it("pages the full list past the dashboard's five", async () => {
    const many = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const doc = await createPcrOk(originator);
        await signChain(doc._id, { "Change Originator": originator, ...holders });
        return circulate(originator, {
          record: `pcr:${doc._id}`,
          vessels: [north],
          ranks: [],
          departments: [],
          due: day(20 + i),
          note: `Change ${i}`,
        });
      }),
    );
    const data = (await load(dashboardRoute, "/", northMaster)) as Dashboard;
    expect(data.acknowledgements.total).toBe(7); // the second circulation and the six
    expect(data.acknowledgements.items).toHaveLength(5);
    const all = (await load(acknowledgementsRoute, "/acknowledgements", northMaster)) as { items: { note: string }[] };
    expect(all.items.map((i) => i.note)).toEqual([other.note, ...many.map((c) => c.note)]);
  });
});
