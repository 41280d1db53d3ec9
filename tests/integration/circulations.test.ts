/**
 * Circulations for "read and understood" (issue 41, docs/decisions/055-circulations.md), through
 * the model and the /api routes on a real database: a finished PCR and a completed MOC circulated
 * to two vessels (a rank filter) and a department; who may circulate (403), what may be (409, 400,
 * each changing nothing); acknowledging once (again changes nothing, concurrent duplicates count
 * once); both audit chains still verify; one "your turn" notice per recipient; a crew change adds
 * joiners, a leaver reads "left"; the tracking figures and the state's SQL twin; and a recipient
 * with no other right reads the record (page, print) while a non-recipient still cannot.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as acknowledgeRoute from "~/routes/api+/acknowledge";
import * as circulationsRoute from "~/routes/api+/circulations";
import * as myAcknowledgementsRoute from "~/routes/api+/myAcknowledgements";
import * as assignmentsRoute from "~/routes/api+/vessels.assignments";
import * as pcrPage from "~/routes/pcrs+/$id";
import * as pcrPrint from "~/routes/pcrs+/$id_.print";
import * as mocPrint from "~/routes/mocs+/$id_.print";
import * as mocPage from "~/routes/mocs+/$id._index";
import * as newPage from "~/routes/circulations+/new";
import * as trackingPage from "~/routes/circulations+/$id";
import { openAttachment, storeAttachment } from "~/models/records/attachments.server";
import { historyOf, verifyAuditTrail } from "~/models/audit/audit.server";
import { pcrListScope } from "~/models/authz/authz.server";
import {
  acknowledge,
  circulationPage,
  circulationsOfRecord,
  circulationsPanel,
  circulationTracking,
  closeCirculation,
  pendingAcknowledgements,
  recipientState,
  recipientStateSql,
  type CirculationJson,
} from "~/models/circulations/circulations.server";
import type { PublicUser } from "~/models/people/user.server";
import { deleteVessel } from "~/models/fleet/vessel.server";
import { closeDb, getDb } from "~/utils/db.server";
import { api } from "../helpers/api";
import { makeAdmin, makeUser } from "../helpers/factories";
import { makeCast, mocAt, tokenOf, type Doc } from "../helpers/moc-flow";
import { createPcrOk, makeHolders, signChain, type PcrDoc } from "../helpers/pcr";
import { buildRequest, type CallOptions } from "../helpers/request";

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

const as = async (
  route: Parameters<typeof api>[0],
  path: string,
  who: { _id: string } | null,
  options: CallOptions = {},
) => api(route, { path, ...options, token: who ? await tokenOf(who) : undefined });
const circulationsApi = (who: { _id: string } | null, options: CallOptions = {}) =>
  as(circulationsRoute, "/api/circulations", who, options);
const acknowledgeApi = (who: { _id: string } | null, body: unknown) =>
  as(acknowledgeRoute, "/api/acknowledge", who, { method: "POST", body });

/** A page loader's answer: 200 with its data, or the status it threw (the 403/404 pages). */
async function load(route: { loader: (args: never) => unknown }, url: string, id: string, user: { _id: string }) {
  const request = await buildRequest({ path: url, token: await tokenOf(user), cookie: true });
  try {
    const value = await route.loader({ request, params: { id }, context: {} } as never);
    return value instanceof Response ? value.status : 200;
  } catch (thrown) {
    if (!(thrown instanceof Response) && !(thrown as { init?: unknown }).init) throw thrown;
    return thrown instanceof Response ? thrown.status : (thrown as { init: { status: number } }).init.status;
  }
}

const counts = async () => {
  const [row] = await getDb().execute<{ c: number; r: number; a: number; e: number }>(sql`select
    (select count(*)::int from circulations) as c, (select count(*)::int from circulation_recipients) as r,
    (select count(*)::int from acknowledgements) as a, (select count(*)::int from email_messages) as e`);
  return row!;
};

async function makeVessel(name: string): Promise<string> {
  const imo = String(1_000_000 + Math.floor(Math.random() * 8_999_999));
  const [row] = await getDb().execute<{ id: string }>(
    sql`insert into vessels (name, imo) values (${name}, ${imo}) returning id`,
  );
  return row!.id;
}
const assign = (userId: string, vesselId: string, from = day(-30), to: string | null = null) =>
  getDb().execute(
    sql`insert into vessel_assignments (vessel_id, user_id, from_date, to_date) values (${vesselId}, ${userId}, ${from}, ${to})`,
  );
const setRank = (user: { _id: string }, rank: string | null) =>
  getDb().execute(sql`update users set rank = ${rank} where id = ${user._id}`);
const emailsTo = async (circulationId: string) =>
  (
    await getDb().execute<{ to_email: string; kind: string; link: string; text: string }>(
      sql`select to_email, kind, link, text from email_messages where link like ${`%/circulations/${circulationId}`} order by to_email`,
    )
  ).map((r) => r);

let admin: PublicUser;
let hseq: PublicUser;
let stranger: PublicUser;
let office: PublicUser; // operations: reached through the department
let polarisMaster: PublicUser;
let polarisMate: PublicUser; // Chief Officer on Polaris, and in operations: counted once, through the vessel
let polarisCook: PublicUser;
let auroraMaster: PublicUser;
let auroraBosun: PublicUser;
let polaris: string;
let aurora: string;
let laid: string; // inactive vessel
let pcr: PcrDoc;
let pcrOriginator: PublicUser;
let pcrCirculation: CirculationJson;
let moc: Doc;
let mocCast: Awaited<ReturnType<typeof makeCast>>;

beforeAll(async () => {
  [admin, hseq, stranger, office, polarisMaster, polarisMate, polarisCook, auroraMaster, auroraBosun, pcrOriginator] =
    await Promise.all([
      makeUser({ name: "Ada Admin", role: "admin", department: "engineering" }),
      makeUser({ name: "Hal Hseq", department: "hseq" }),
      makeUser({ name: "Sam Stranger", department: "engineering" }),
      makeUser({ name: "Olga Office", department: "operations" }),
      makeUser({ name: "Max Master", department: "fleet" }),
      makeUser({ name: "Ann Lee", department: "operations" }),
      makeUser({ name: "Cid Cook", department: "fleet" }),
      makeUser({ name: "Amy Aurora", department: "fleet" }),
      makeUser({ name: "Bo Bosun", department: "fleet" }),
      makeUser({ name: "Pia Pcr", department: "fleet" }),
    ]);
  await Promise.all([
    setRank(polarisMaster, "Master"),
    setRank(polarisMate, "Chief Officer"),
    setRank(polarisCook, "Cook"),
    setRank(auroraMaster, "Master"),
    setRank(auroraBosun, "Bosun"),
  ]);
  [polaris, aurora, laid] = await Promise.all([
    makeVessel("MV Polaris"),
    makeVessel("MV Aurora"),
    makeVessel("MV Laid Up"),
  ]);
  await getDb().execute(sql`update vessels set active = false where id = ${laid}`);
  await Promise.all([
    assign(polarisMaster._id, polaris),
    assign(polarisMate._id, polaris),
    assign(polarisCook._id, polaris),
    assign(auroraMaster._id, aurora),
    assign(auroraBosun._id, aurora),
  ]);
  const holders = await makeHolders("circ");
  pcr = await createPcrOk(pcrOriginator);
  await signChain(pcr._id, { "Change Originator": pcrOriginator, ...holders });
  mocCast = await makeCast();
  moc = await mocAt("completed", mocCast);
}, 120_000);
afterAll(async () => closeDb());

const pcrBody = (overrides: Record<string, unknown> = {}) => ({
  record: `pcr:${pcr._id}`,
  vessels: [polaris, aurora],
  ranks: ["Master", "Chief Officer"],
  departments: ["operations"],
  due: day(14),
  note: "Mooring: a toolbox talk before each operation.",
  ...overrides,
});

/** The operations department's active people (the department part of the audience). */
const operationsPeople = async () =>
  (await getDb().execute<{ id: string }>(sql`select id from users where active and department = 'operations'`)).map(
    (r) => r.id,
  );

describe("circulating", () => {
  it("refuses who may not (403), an unfinished record (409) and bad input (400), each changing nothing", async () => {
    const before = await counts();
    // A standard user who did not raise the PCR.
    const refused = await circulationsApi(stranger, { method: "POST", body: pcrBody() });
    expect(refused.status, refused.text).toBe(403);

    const pending = await createPcrOk(pcrOriginator);
    const unfinished = await circulationsApi(hseq, { method: "POST", body: pcrBody({ record: `pcr:${pending._id}` }) });
    expect(unfinished.status).toBe(409);
    expect(unfinished.body.message).toMatch(/not finished/);
    const open = await mocAt("e", await makeCast());
    const notCompleted = await circulationsApi(hseq, { method: "POST", body: pcrBody({ record: `moc:${open._id}` }) });
    expect(notCompleted.status).toBe(409);
    expect(notCompleted.body.message).toMatch(/not completed/);

    const unknown = await circulationsApi(hseq, {
      method: "POST",
      body: pcrBody({ record: `pcr:${crypto.randomUUID()}` }),
    });
    expect(unknown.status).toBe(404);

    const bad: [Record<string, unknown>, string][] = [
      [{ record: "pcr:12" }, "record"],
      [{ record: `mcr:${pcr._id}` }, "record"],
      [{ vessels: [crypto.randomUUID()] }, "vessels.0"],
      [{ vessels: [polaris, laid] }, "vessels.1"],
      [{ ranks: ["Admiral"] }, "ranks.0"],
      [{ departments: ["sales"] }, "departments.0"],
      [{ vessels: [], departments: [] }, "vessels"],
      [{ due: day(-1) }, "due"],
      [{ due: "2026-02-30" }, "due"],
      [{ note: "   " }, "note"],
      [{ note: "x".repeat(2001) }, "note"],
    ];
    for (const [change, path] of bad) {
      const res = await circulationsApi(hseq, { method: "POST", body: pcrBody(change) });
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(
        res.body.issues.map((i: { path: string }) => i.path),
        JSON.stringify(change),
      ).toContain(path);
    }
    // A vessel with nobody of those ranks on board: it would reach nobody.
    const empty = await makeVessel("MV Empty");
    const nobody = await circulationsApi(hseq, {
      method: "POST",
      body: pcrBody({ vessels: [empty], departments: [] }),
    });
    expect(nobody.status).toBe(409);
    expect(nobody.body.message).toMatch(/reach nobody/);
    const after = await counts();
    expect({ ...after, e: 0 }).toEqual({ ...before, e: 0 });
  });

  it("circulates a finished PCR to two vessels (ranks) and a department: 201, each person once, one notice each, in its chain", async () => {
    const before = await counts();
    const res = await circulationsApi(hseq, { method: "POST", body: pcrBody() });
    expect(res.status, res.text).toBe(201);
    pcrCirculation = res.body.data;
    expect(pcrCirculation).toMatchObject({
      record: { kind: "pcr", _id: pcr._id, label: expect.stringMatching(/^PCR \d+-\d{4}$/), href: `/pcrs/${pcr._id}` },
      vessels: [
        { _id: aurora, name: "MV Aurora" },
        { _id: polaris, name: "MV Polaris" },
      ],
      ranks: ["Master", "Chief Officer"],
      departments: ["operations"],
      due: day(14),
      note: "Mooring: a toolbox talk before each operation.",
      createdBy: { _id: hseq._id, name: "Hal Hseq" },
      closedAt: null,
    });
    const recipients = await getDb().execute<{ user_id: string; vessel_id: string | null }>(
      sql`select user_id, vessel_id from circulation_recipients where circulation_id = ${pcrCirculation._id}`,
    );
    const byUser = new Map(recipients.map((r) => [r.user_id, r.vessel_id]));
    expect(byUser.get(polarisMaster._id)).toBe(polaris);
    expect(byUser.get(polarisMate._id)).toBe(polaris); // in operations too: once, through the vessel
    expect(byUser.get(auroraMaster._id)).toBe(aurora);
    expect(byUser.has(polarisCook._id)).toBe(false); // not a rank named
    expect(byUser.has(auroraBosun._id)).toBe(false);
    expect(byUser.get(office._id)).toBeNull();
    const expected = new Set([polarisMaster._id, polarisMate._id, auroraMaster._id, ...(await operationsPeople())]);
    expect(new Set(byUser.keys())).toEqual(expected);

    // One "your turn" notice per recipient, linking to the acknowledge page, saying what changed and by when.
    const emails = await emailsTo(pcrCirculation._id);
    expect(emails).toHaveLength(expected.size);
    expect((await counts()).e - before.e).toBe(expected.size);
    expect(new Set(emails.map((e) => e.kind))).toEqual(new Set(["step_waiting"]));
    expect(emails[0]!.text).toContain("Mooring: a toolbox talk before each operation.");
    expect(emails[0]!.text).toContain(day(14));

    const history = await historyOf("pcr", pcr._id);
    const entry = history.find((h) => h.action === "Circulated for acknowledgement");
    expect(entry?.comment).toMatch(
      /^To MV (Polaris, MV Aurora|Aurora, MV Polaris) \(Master, Chief Officer\) and the Operations department: \d+ people/,
    );
    expect(entry?.comment).toContain(`due ${day(14)}`);
  });

  it("circulates a completed MOC as its originator (not HSEQ, not admin), to a vessel and a department", async () => {
    const res = await circulationsApi(mocCast.originator, {
      method: "POST",
      body: {
        record: `moc:${moc._id}`,
        vessels: [aurora],
        departments: ["hseq"],
        due: day(7),
        note: "New bunkering checklist.",
      },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.record).toMatchObject({
      kind: "moc",
      label: expect.stringMatching(/^MOC \d+-\d{4}$/),
      href: `/mocs/${moc._id}`,
    });
    const logs = await getDb().execute<{ action: string; comment: string }>(
      sql`select action, comment from moc_logs where moc_id = ${moc._id} order by seq`,
    );
    expect(logs.at(-1)).toMatchObject({ action: "Circulated for acknowledgement" });
    expect(logs.at(-1)!.comment).toContain("MV Aurora and the HSEQ department");
    // Someone else's MOC: a standard user may not.
    const refused = await circulationsApi(stranger, {
      method: "POST",
      body: { record: `moc:${moc._id}`, vessels: [aurora], due: day(7), note: "x" },
    });
    expect(refused.status).toBe(403);
  });
});

describe("acknowledging", () => {
  it("a recipient acknowledges once: 201, then 200 changing nothing; name, rank and vessel in the chain", async () => {
    const first = await acknowledgeApi(polarisMate, {
      circulation_id: pcrCirculation._id,
      comment: "  Does this apply to <b>anchoring</b> too?  ",
    });
    expect(first.status, first.text).toBe(201);
    expect(first.body.data).toMatchObject({ acknowledged: true, created: true });
    const before = await counts();
    const again = await acknowledgeApi(polarisMate, { circulation_id: pcrCirculation._id, comment: "Changed my mind" });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ acknowledged: true, created: false, at: first.body.data.at });
    expect(await counts()).toEqual(before);

    const [stored] = await getDb().execute<Record<string, string | null>>(
      sql`select name_at, rank_at, vessel_id_at, vessel_name_at, comment from acknowledgements
        where circulation_id = ${pcrCirculation._id} and user_id = ${polarisMate._id}`,
    );
    expect(stored).toEqual({
      name_at: "Ann Lee",
      rank_at: "Chief Officer",
      vessel_id_at: polaris,
      vessel_name_at: "MV Polaris",
      comment: "Does this apply to <b>anchoring</b> too?",
    });
    const entries = (await historyOf("pcr", pcr._id)).filter((h) => h.action === "Acknowledged (read and understood)");
    expect(entries).toHaveLength(1);
    expect(entries[0]!.comment).toBe("Ann Lee, Chief Officer, MV Polaris: Does this apply to <b>anchoring</b> too?");
  });

  it("refuses a non-recipient (403) and an unknown circulation (404), and bad bodies (400)", async () => {
    const before = await counts();
    expect((await acknowledgeApi(stranger, { circulation_id: pcrCirculation._id })).status).toBe(403);
    expect((await acknowledgeApi(polarisCook, { circulation_id: pcrCirculation._id })).status).toBe(403);
    expect((await acknowledgeApi(polarisMaster, { circulation_id: crypto.randomUUID() })).status).toBe(404);
    expect((await acknowledgeApi(polarisMaster, { circulation_id: "12" })).status).toBe(400);
    expect(
      (await acknowledgeApi(polarisMaster, { circulation_id: pcrCirculation._id, comment: "x".repeat(2001) })).status,
    ).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it("concurrent duplicates acknowledge once, with one entry in the chain", async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => acknowledge(auroraMaster, { circulationId: pcrCirculation._id, comment: null })),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.at)).size).toBe(1);
    const [row] = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from acknowledgements
      where circulation_id = ${pcrCirculation._id} and user_id = ${auroraMaster._id}`);
    expect(row!.n).toBe(1);
    const entries = (await historyOf("pcr", pcr._id)).filter(
      (h) => h.action === "Acknowledged (read and understood)" && h.comment === "Amy Aurora, Master, MV Aurora",
    );
    expect(entries).toHaveLength(1);
  });

  it("an office recipient's entry names their department; the MOC's chain takes acknowledgements too; both chains verify", async () => {
    await acknowledge(office, { circulationId: pcrCirculation._id, comment: "Noted" });
    const entry = (await historyOf("pcr", pcr._id)).find(
      (h) => h.comment === "Olga Office, Operations department: Noted",
    );
    expect(entry).toBeDefined();

    const [mocCirculation] = await circulationsOfRecord(hseq, { kind: "moc", id: moc._id });
    const recipient = mocCirculation!.recipients.find((r) => r.vessel?._id === aurora)!;
    expect(recipient.user._id).toBe(auroraMaster._id); // the Master before the Bosun
    expect((await acknowledgeApi(auroraMaster, { circulation_id: mocCirculation!.circulation._id })).status).toBe(201);
    const logs = await getDb().execute<{ action: string; comment: string; from_status: string; to_status: string }>(
      sql`select action, comment, from_status, to_status from moc_logs where moc_id = ${moc._id} order by seq`,
    );
    expect(logs.at(-1)!.action).toBe("Acknowledged (read and understood)");
    expect(logs.at(-1)!.comment).toContain("MV Aurora");
    // Neither moves anything: from and to the completed MOC's status.
    const [row] = await getDb().execute<{ status: string }>(sql`select status from mocs where id = ${moc._id}`);
    for (const entry of [logs.find((l) => l.action === "Circulated for acknowledgement"), logs.at(-1)]) {
      expect(entry).toMatchObject({ from_status: row!.status, to_status: row!.status });
    }

    const { broken } = await verifyAuditTrail();
    expect(broken.filter((b) => b.recordId === pcr._id || b.recordId === moc._id)).toEqual([]);
  });
});

describe("crew changes", () => {
  it("a person assigned afterwards gets the vessel's open circulations with a notice; a rank it does not name does not", async () => {
    const joiner = await makeUser({ name: "Jo Joiner", department: "fleet" });
    const cook = await makeUser({ name: "Kit Cook", department: "fleet" });
    await setRank(joiner, "Master");
    await setRank(cook, "Cook");
    const from = day(3);
    for (const person of [joiner, cook]) {
      const res = await as(assignmentsRoute, "/api/vessels/assignments", admin, {
        method: "POST",
        body: { vessel_id: polaris, user_id: person._id, from },
      });
      expect(res.status, res.text).toBe(200);
    }
    const [added] = await getDb().execute<{ due: string; vessel_id: string }>(sql`select due::text, vessel_id
      from circulation_recipients where circulation_id = ${pcrCirculation._id} and user_id = ${joiner._id}`);
    // Due a week after joining, as that is later than the circulation's date... or the circulation's date.
    expect(added).toEqual({ vessel_id: polaris, due: [day(14), day(10)].sort().at(-1) });
    expect((await emailsTo(pcrCirculation._id)).filter((e) => e.to_email === joiner.email)).toHaveLength(1);
    const none = await getDb().execute(sql`select 1 from circulation_recipients
      where circulation_id = ${pcrCirculation._id} and user_id = ${cook._id}`);
    expect(none).toHaveLength(0);
    // Joining later, they are waiting (not left) and the acknowledgement waits for them.
    const mine = await pendingAcknowledgements(joiner);
    expect(mine.items.map((i) => i.circulationId)).toContain(pcrCirculation._id);
    expect(mine.items.find((i) => i.circulationId === pcrCirculation._id)).toMatchObject({
      vessel: { _id: polaris, name: "MV Polaris" },
      overdue: false,
      record: { kind: "pcr", _id: pcr._id },
    });
  });

  it("one who leaves before acknowledging reads 'left', not overdue, and nothing waits for them any more", async () => {
    await getDb().execute(sql`update vessel_assignments set to_date = ${day(-1)}
      where user_id = ${polarisMaster._id} and vessel_id = ${polaris}`);
    await getDb().execute(sql`update circulation_recipients set due = ${day(-2)}
      where circulation_id = ${pcrCirculation._id} and user_id = ${polarisMaster._id}`);
    const tracking = await circulationTracking(hseq, pcrCirculation._id);
    expect(tracking.recipients.find((r) => r.user._id === polarisMaster._id)?.state).toBe("left");
    expect((await pendingAcknowledgements(polarisMaster)).items.map((i) => i.circulationId)).not.toContain(
      pcrCirculation._id,
    );
  });

  it("a closed circulation takes no joiners and chases nobody, but still takes its recipients' answers", async () => {
    const res = await circulationsApi(hseq, {
      method: "POST",
      body: pcrBody({ vessels: [aurora], ranks: [], departments: [], note: "Second circulation" }),
    });
    expect(res.status, res.text).toBe(201);
    const second = res.body.data as CirculationJson;
    await expect(closeCirculation(stranger, second._id)).rejects.toMatchObject({ status: 403 });
    await closeCirculation(hseq, second._id);
    await expect(closeCirculation(hseq, second._id)).rejects.toMatchObject({ status: 409 });
    expect((await historyOf("pcr", pcr._id)).some((h) => h.action === "Circulation closed")).toBe(true);

    const late = await makeUser({ name: "Lee Late", department: "fleet" });
    await as(assignmentsRoute, "/api/vessels/assignments", admin, {
      method: "POST",
      body: { vessel_id: aurora, user_id: late._id, from: day(0) },
    });
    const joined = await getDb().execute(sql`select 1 from circulation_recipients
      where circulation_id = ${second._id} and user_id = ${late._id}`);
    expect(joined).toHaveLength(0);
    expect((await pendingAcknowledgements(auroraBosun)).items.map((i) => i.circulationId)).not.toContain(second._id);
    expect((await acknowledge(auroraBosun, { circulationId: second._id })).created).toBe(true);
  });
});

describe("tracking", () => {
  it("the figures by vessel and rank add up to the totals, the questions are listed, and GET /api/circulations answers the same", async () => {
    const tracking = await circulationTracking(hseq, pcrCirculation._id);
    const { totals } = tracking;
    expect(totals.total).toBe(totals.acknowledged + totals.waiting + totals.overdue + totals.left);
    expect(totals.acknowledged).toBe(3); // Ann Lee, Amy Aurora, Olga Office
    expect(totals.left).toBe(1); // Max Master
    const polarisMasters = tracking.byVesselAndRank.find((g) => g.vessel?._id === polaris && g.rank === "Master")!;
    expect(polarisMasters).toMatchObject({ total: 2, left: 1, waiting: 1, acknowledged: 0 }); // Max left, Jo joins
    expect(tracking.byVesselAndRank.find((g) => g.vessel?._id === polaris && g.rank === "Chief Officer")).toMatchObject(
      {
        total: 1,
        acknowledged: 1,
      },
    );
    const officeRow = tracking.byVesselAndRank.find((g) => g.vessel === null && g.rank === null)!;
    expect(officeRow.acknowledged).toBe(1);
    for (const key of ["total", "acknowledged", "waiting", "overdue", "left"] as const) {
      expect(tracking.byVesselAndRank.reduce((n, g) => n + g[key], 0)).toBe(totals[key]);
    }
    expect(tracking.questions.map((q) => q.comment)).toEqual(["Does this apply to <b>anchoring</b> too?", "Noted"]);
    expect(tracking.questions[0]!.user).toMatchObject({ name: "Ann Lee", rank: "Chief Officer" });

    // Paged recipients, the figures over all.
    const page2 = await circulationTracking(hseq, pcrCirculation._id, { page: 2, pageSize: 2 });
    expect(page2.recipients).toHaveLength(Math.min(2, totals.total - 2));
    expect(page2.totals).toEqual(totals);

    const res = await circulationsApi(stranger, { query: { record: `pcr:${pcr._id}` } });
    expect(res.status).toBe(403);
    const listed = await circulationsApi(hseq, { query: { record: `pcr:${pcr._id}` } });
    expect(listed.status, listed.text).toBe(200);
    const mine = listed.body.data.circulations.find(
      (c: { circulation: { _id: string } }) => c.circulation._id === pcrCirculation._id,
    );
    expect(mine.totals).toEqual(totals);
    expect(mine.byVesselAndRank).toEqual(tracking.byVesselAndRank);
    expect((await circulationsApi(hseq, { query: { record: "pcr:nope" } })).status).toBe(400);
  });

  it("an overdue recipient reads overdue; the state's SQL twin agrees with recipientState on every row", async () => {
    await getDb().execute(sql`update circulation_recipients set due = ${day(-1)}
      where circulation_id = ${pcrCirculation._id} and user_id = ${office._id}`);
    const someoneWaiting = (await circulationTracking(hseq, pcrCirculation._id)).recipients.find(
      (r) => r.state === "waiting" && r.vessel === null,
    )!;
    await getDb().execute(sql`update circulation_recipients set due = ${day(-1)}
      where circulation_id = ${pcrCirculation._id} and user_id = ${someoneWaiting.user._id}`);
    expect(
      (await circulationTracking(hseq, pcrCirculation._id)).recipients.find(
        (r) => r.user._id === someoneWaiting.user._id,
      )?.state,
    ).toBe("overdue");

    const rows = await getDb().execute<{
      user_id: string;
      vessel_id: string | null;
      due: string;
      acknowledged: boolean;
      assignments: { from: string; to: string | null }[];
      state: string;
    }>(sql`select r.user_id, r.vessel_id, r.due::text as due, a.user_id is not null as acknowledged,
        coalesce((select json_agg(json_build_object('from', va.from_date, 'to', va.to_date)) from vessel_assignments va
          where va.user_id = r.user_id and va.vessel_id = r.vessel_id), '[]') as assignments,
        ${recipientStateSql("r", "a")} as state
      from circulation_recipients r
        left join acknowledgements a on a.circulation_id = r.circulation_id and a.user_id = r.user_id`);
    expect(new Set(rows.map((r) => r.state))).toEqual(new Set(["acknowledged", "waiting", "overdue", "left"]));
    for (const row of rows) {
      expect(recipientState({ ...row, vesselId: row.vessel_id }), row.user_id).toBe(row.state);
    }
  });

  it("GET /api/myAcknowledgements lists what waits for the caller, paged", async () => {
    const res = await as(myAcknowledgementsRoute, "/api/myAcknowledgements", office, {});
    expect(res.status).toBe(200);
    // Olga acknowledged the PCR's; nothing else was sent to operations.
    expect(res.body.data).toEqual({ items: [], total: 0 });
    const joinerList = await as(myAcknowledgementsRoute, "/api/myAcknowledgements", polarisCook, {});
    expect(joinerList.body.data.total).toBe(0);
    const hseqList = await as(myAcknowledgementsRoute, "/api/myAcknowledgements", hseq, { query: { limit: "1" } });
    // The MOC's circulation reached the HSEQ department, not its author: Hal did not circulate that one.
    expect(hseqList.body.data.total).toBe(1);
    expect(hseqList.body.data.items).toHaveLength(1);
    expect((await as(myAcknowledgementsRoute, "/api/myAcknowledgements", hseq, { query: { limit: "0" } })).status).toBe(
      400,
    );
  });
});

describe("reading rights", () => {
  it("a department recipient with no other right opens the PCR and its print view; a non-recipient still cannot", async () => {
    const reader = await makeUser({ name: "Rita Reader", department: "engineering" });
    const outsider = await makeUser({ name: "Otto Outsider", department: "fleet" });
    const admin2 = await makeAdmin({ department: "operations" });
    // Before: neither reads it.
    expect(await load(pcrPage, `/pcrs/${pcr._id}`, pcr._id, reader)).toBe(403);
    const res = await circulationsApi(admin2, {
      method: "POST",
      body: pcrBody({ vessels: [], ranks: [], departments: ["engineering"], note: "For engineering" }),
    });
    expect(res.status, res.text).toBe(201);
    expect(await load(pcrPage, `/pcrs/${pcr._id}`, pcr._id, reader)).toBe(200);
    expect(await load(pcrPrint, `/pcrs/${pcr._id}/print`, pcr._id, reader)).toBe(200);
    expect(await load(pcrPage, `/pcrs/${pcr._id}`, pcr._id, outsider)).toBe(403);
    expect(await load(pcrPrint, `/pcrs/${pcr._id}/print`, pcr._id, outsider)).toBe(403);
    // The PCR lists agree (pcrListScope, the predicate's SQL twin).
    const listed = async (who: PublicUser) =>
      (await getDb().execute(sql`select 1 from pcrs p where p.id = ${pcr._id} and ${pcrListScope(who as never)}`))
        .length;
    expect(await listed(reader)).toBe(1);
    expect(await listed(outsider)).toBe(0);
    // Their tracking: whoever reads the record.
    await expect(circulationTracking(outsider, res.body.data._id)).rejects.toMatchObject({ status: 403 });
    expect((await circulationTracking(reader, res.body.data._id)).totals.total).toBeGreaterThan(0);
  });

  it("a recipient with no other right opens the circulated PCR's files; a non-recipient still cannot", async () => {
    const reader = await makeUser({ name: "Fay Files", department: "engineering" });
    const outsider = await makeUser({ name: "Ned Nofiles", department: "fleet" });
    const withFile = await createPcrOk(pcrOriginator);
    async function* bytes() {
      yield new TextEncoder().encode("Revised mooring procedure, rev. 4");
    }
    const stored = await storeAttachment(pcrOriginator, { pcrId: withFile._id }, "file", {
      name: "Mooring.txt",
      data: bytes(),
    });
    await signChain(withFile._id, { "Change Originator": pcrOriginator, ...(await makeHolders("files")) });
    await expect(openAttachment(reader, { id: stored._id })).rejects.toMatchObject({ status: 403 });
    const res = await circulationsApi(hseq, {
      method: "POST",
      body: pcrBody({ record: `pcr:${withFile._id}`, vessels: [], ranks: [], departments: ["engineering"] }),
    });
    expect(res.status, res.text).toBe(201);
    expect((await openAttachment(reader, { id: stored._id })).name).toBe("Mooring.txt");
    await expect(openAttachment(outsider, { id: stored._id })).rejects.toMatchObject({ status: 403 });
  });

  it("a recipient of a circulated MOC opens its print view (a completed MOC is everyone's to read)", async () => {
    const [mocCirculation] = await circulationsOfRecord(hseq, { kind: "moc", id: moc._id });
    expect(mocCirculation!.recipients.map((r) => r.user._id)).toContain(auroraBosun._id);
    expect(await load(mocPrint, `/mocs/${moc._id}/print`, moc._id, auroraBosun)).toBe(200);
    expect(await load(mocPage, `/mocs/${moc._id}`, moc._id, auroraBosun)).toBe(200);
    // The MOC page's Circulation section: its figures; the link to circulate for its originator.
    const panel = await circulationsPanel(mocCast.originator, { kind: "moc", id: moc._id });
    expect(panel?.mayCirculate).toBe(true);
    expect(panel?.circulations).toHaveLength(1);
    expect(panel?.circulations[0]!.totals.acknowledged).toBe(1);
    expect((await circulationsPanel(auroraBosun, { kind: "moc", id: moc._id }))?.mayCirculate).toBe(false);
  });
});

describe("the pages", () => {
  const post = async (
    route: { action: (args: never) => unknown },
    url: string,
    id: string | undefined,
    user: { _id: string },
    form: Record<string, string | string[]>,
  ) => {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const one of [v].flat()) body.append(k, one);
    const request = await buildRequest({
      method: "POST",
      path: url,
      token: await tokenOf(user),
      cookie: true,
      body: body.toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "http://localhost:3000" },
    });
    try {
      const value = await route.action({ request, params: id ? { id } : {}, context: {} } as never);
      return value instanceof Response
        ? { status: value.status, location: value.headers.get("Location"), data: null }
        : { status: (value as { init?: { status?: number } }).init?.status ?? 200, location: null, data: value };
    } catch (thrown) {
      if (thrown instanceof Response) return { status: thrown.status, location: null, data: null };
      const init = (thrown as { init?: { status?: number } }).init;
      if (!init) throw thrown;
      return { status: init.status ?? 500, location: null, data: null };
    }
  };

  it("the form circulates (errors by field, 403 and 409 pages), the page acknowledges once and closes", async () => {
    const url = `/circulations/new?record=pcr:${pcr._id}`;
    expect(await load(newPage, url, "", hseq)).toBe(200);
    expect(await load(newPage, url, "", stranger)).toBe(403);
    const pending = await createPcrOk(pcrOriginator);
    expect(await load(newPage, `/circulations/new?record=pcr:${pending._id}`, "", hseq)).toBe(409);
    expect(await load(newPage, `/circulations/new?record=nonsense`, "", hseq)).toBe(400);

    const refused = await post(newPage, url, undefined, hseq, {
      record: `pcr:${pcr._id}`,
      vessels: [polaris, laid],
      due: day(5),
      note: "",
    });
    expect(refused.status).toBe(400);
    const errors = (refused.data as { data: { error: Record<string, string[]> } }).data.error;
    expect(Object.keys(errors)).toContain("note");

    const made = await post(newPage, url, undefined, hseq, {
      record: `pcr:${pcr._id}`,
      vessels: polaris,
      ranks: "Cook",
      due: day(5),
      note: "Galley: new allergen labels.",
    });
    expect(made.status).toBe(302);
    const id = made.location!.split("/").pop()!;
    expect(await load(trackingPage, `/circulations/${id}`, id, hseq)).toBe(200);
    expect(await load(trackingPage, `/circulations/${id}`, id, polarisCook)).toBe(200);

    const first = await post(trackingPage, `/circulations/${id}`, id, polarisCook, {
      intent: "acknowledge",
      comment: "",
    });
    expect(first.status).toBe(302);
    const again = await post(trackingPage, `/circulations/${id}`, id, polarisCook, { intent: "acknowledge" });
    expect(again.status).toBe(302);
    const acks = await getDb().execute(sql`select 1 from acknowledgements where circulation_id = ${id}`);
    expect(acks).toHaveLength(1);
    const page = await circulationPage(polarisCook, id);
    expect(page.me.acknowledgedAt).not.toBeNull();
    expect(page.mayClose).toBe(false);
    expect((await circulationPage(hseq, id)).mayClose).toBe(true);
    expect((await post(trackingPage, `/circulations/${id}`, id, hseq, { intent: "close" })).status).toBe(302);
    expect((await circulationPage(hseq, id)).tracking.circulation.closedAt).not.toBeNull();

    // The record page's section.
    const panel = await circulationsPanel(hseq, { kind: "pcr", id: pcr._id });
    expect(panel?.mayCirculate).toBe(true);
    expect(panel?.circulations.find((c) => c._id === id)?.totals).toMatchObject({ total: 2, acknowledged: 1 }); // Cid, and Kit who joins in three days
    expect(await circulationsPanel(hseq, { kind: "pcr", id: pending._id })).toBeNull();
  });
});

describe("the vessel register", () => {
  it("a vessel a circulation names is not deleted (409), it is deactivated", async () => {
    await expect(deleteVessel(admin, aurora)).rejects.toMatchObject({ status: 409 });
  });
});
