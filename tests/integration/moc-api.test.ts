/**
 * Every MOC endpoint's contract (docs/api-contract.md, "MOC management"; docs/decisions/002-differences-from-spec.md, app/models/authz/authz.server.ts, docs/decisions/004-moc-workflow.md):
 * body keys, response shapes, population, who may see and change what, and what each change
 * leaves behind. Every answer goes through `api`, which also fails on any password, hash or
 * `$argon2` in the raw text.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as actionTableRoute from "~/routes/api+/actionTable";
import * as addUserRoute from "~/routes/api+/addUser";
import * as cloneMocRoute from "~/routes/api+/cloneMoc";
import * as createImplementerRoute from "~/routes/api+/createImplementer";
import * as deleteMocRoute from "~/routes/api+/deleteMoC";
import * as getAllMocRoute from "~/routes/api+/getAllMoc";
import * as impactRoute from "~/routes/api+/impact";
import * as implementerRoute from "~/routes/api+/implementer";
import * as manualsPlanRoute from "~/routes/api+/manualsPlan";
import * as newImplementerRoute from "~/routes/api+/newImplementer";
import * as newmocRoute from "~/routes/api+/newmoc";
import * as riskRoute from "~/routes/api+/risk_assessment";
import * as singlemocRoute from "~/routes/api+/singlemoc";
import * as userRoute from "~/routes/api+/user";
import * as dashboardPage from "~/routes/_index";
import * as mocListPage from "~/routes/mocs+/_index";
import { buildRequest, call } from "../helpers/request";
import type { PublicUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { searchMocs, type MocListRow } from "~/models/moc/moc-list.server";
import { MOC_SORTS } from "~/models/moc/moc-status";
import { api } from "../helpers/api";
import { makeAdmin, makeUser } from "../helpers/factories";
import { futureDate, newMocBody, type Cast } from "../helpers/moc";
import {
  ISO_Z,
  createMocOk,
  UUID,
  defaultStepBody,
  emailsDuring,
  emailsOf,
  expectError,
  makeCast,
  mocAt,
  mocSnapshot,
  stepOk,
  submitStep,
  tokenOf,
  type Doc,
  type Stage,
} from "../helpers/moc-flow";
import { describeMocInvariants } from "../helpers/db-state";

type RouteModule = Parameters<typeof api>[0];
type Who = { _id: string } | null;

const YEAR = new Date().getUTCFullYear();
const SERIAL = new RegExp(`^\\d+-${YEAR}$`);
const USER_KEYS = ["_id", "access", "active", "department", "email", "name", "position", "role"];
// `submittedBy`: who submitted the form (docs/decisions/035-decision-context-and-one-record-description.md, an addition).
const FORM_META = ["_id", "createdAt", "submittedAt", "submittedBy", "updatedAt"];
const MOC_KEYS = [
  "_id",
  "serial_num",
  "status",
  "completed",
  "isDeleted",
  "cloned",
  "previous_moc",
  "originator_form",
  "implementer_form",
  "hseq_form",
  "approver_form",
  "implementation",
  "verifier_form",
  "originator_id",
  "implementer_id",
  "approver_id",
  "verifier_id",
  "hseq_id",
  "all_users",
  "logs",
  "signatureManifestations",
  "decline",
  "extentionsAndDeviations",
  "impact_assessment",
  "risk_assessment",
  // The MOC's risk, null when not ranked (docs/decisions/037-risk-ranking-and-approvals.md, an addition)
  "risk_level",
  // The highest level HSEQ reviewed it at: approvals never follow a lower one (decision 037, an addition)
  "reviewed_risk_level",
  // Where it stands, in words, read live (issue 38 "stages named once", an addition)
  "stage",
  // The implementer's "no significant hazard" declaration (issue 38's risk gate, an addition)
  "no_significant_hazard",
  // Its effectiveness review, null before closure (issue 42, an addition)
  "effectiveness_review",
  "action",
  "manual_plan",
  "chat",
  "target_date",
  // docs/decisions/023-temporary-changes-and-delegation.md (an addition)
  "temporary",
  // The plans' owners by name (docs/decisions/035-decision-context-and-one-record-description.md, an addition)
  "plan_owners",
  "createdAt",
  "updatedAt",
];

let cast: Cast;
let admin: PublicUser;
let hseqUser: PublicUser;
let fullUser: PublicUser;
let stranger: PublicUser;

beforeAll(async () => {
  cast = await makeCast();
  [admin, hseqUser, fullUser, stranger] = await Promise.all([
    makeAdmin({ name: "Ada Admin", department: "operations" }),
    makeUser({ name: "Hal Hseq-Dept", department: "hseq" }),
    makeUser({ name: "Fay Full-Access", department: "fleet", access: "full" }),
    makeUser({ name: "Sam Stranger", department: "engineering" }),
  ]);
});

async function get(route: RouteModule, path: string, who: Who, query?: Record<string, string>) {
  const res = await api(route, { path, query, token: who ? await tokenOf(who) : undefined });
  expectCleanUsers(res.body);
  return res;
}

async function send(route: RouteModule, method: string, path: string, who: Who, body: unknown) {
  const res = await api(route, { method, path, body, token: who ? await tokenOf(who) : undefined });
  expectCleanUsers(res.body);
  return res;
}

const singlemoc = (who: Who, id: string) => get(singlemocRoute, "/api/singlemoc", who, { moc_id: id });
const deleteMoc = async (who: Who, id: string, reason?: string) =>
  api(deleteMocRoute, {
    method: "DELETE",
    path: "/api/deleteMoC",
    query: reason ? { id, reason } : { id },
    token: who ? await tokenOf(who) : undefined,
  });

/** Every object that looks like a user carries exactly the public keys, never a secret. */
function expectCleanUsers(value: unknown): void {
  if (Array.isArray(value)) {
    value.forEach(expectCleanUsers);
  } else if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      expect(key.toLowerCase()).not.toContain("password");
      expect(key.toLowerCase()).not.toContain("hash");
    }
    Object.values(record).forEach(expectCleanUsers);
  } else if (typeof value === "string") {
    expect(value).not.toContain("$argon2");
  }
}

function expectUser(value: unknown, user: { _id: string; name: string; email: string }): void {
  expect(value).toBeTypeOf("object");
  expect(Object.keys(value as object).sort()).toEqual(USER_KEYS);
  expect(value).toMatchObject({ _id: user._id, name: user.name, email: user.email });
}

/** A form document: `_id` plus `{ key: { value } }` fields. */
function expectForm(form: Record<string, unknown> | null | undefined): void {
  expect(form, "form document").toBeTruthy();
  expect(form!._id).toMatch(UUID);
  const fields = Object.keys(form!).filter((k) => !FORM_META.includes(k));
  expect(fields.length).toBeGreaterThan(0);
  for (const key of fields) {
    expect(form![key], key).toBeTypeOf("object");
    expect(Object.keys(form![key] as object), key).toEqual(["value"]);
  }
}

const fieldsOf = (form: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(form).filter(([k]) => !FORM_META.includes(k)));
const ids = (list: { _id: string }[]) => list.map((x) => x._id).sort();

async function dbIds(where: string): Promise<string[]> {
  const rows = await getDb().execute<{ id: string }>(sql.raw(`select id from mocs m where ${where} order by id`));
  return [...rows].map((r) => r.id);
}

// ---------------------------------------------------------------------------------------------

describe("POST /api/newmoc", () => {
  it("creates the MOC in b with the caller as originator: { data, status: 200 }, populated; emails the implementer", async () => {
    const body = newMocBody(cast.implementer);
    const res = await send(newmocRoute, "POST", "/api/newmoc", cast.originator, body);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["data", "status"]);
    expect(res.body.status).toBe(200);
    const doc = res.body.data;
    expect(Object.keys(doc).sort()).toEqual([...MOC_KEYS].sort());
    expect(doc).toMatchObject({
      _id: expect.stringMatching(UUID),
      serial_num: expect.stringMatching(SERIAL),
      status: "b",
      completed: false,
      isDeleted: false,
      cloned: false,
      previous_moc: null,
      implementer_form: null,
      hseq_form: null,
      approver_form: null,
      implementation: null,
      verifier_form: null,
      approver_id: null,
      verifier_id: null,
      hseq_id: null,
      decline: null,
      extentionsAndDeviations: null,
      impact_assessment: [],
      risk_assessment: null,
      risk_level: null,
      action: { items: [] },
      manual_plan: { items: [] },
      chat: expect.stringMatching(UUID),
    });
    expectForm(doc.originator_form);
    expect(fieldsOf(doc.originator_form)).toEqual({
      "implementer-name": { value: { _id: cast.implementer._id, name: cast.implementer.name } },
      "description-of-change": body["description-of-change"],
      "reason-for-change": body["reason-for-change"],
      "department-of-change": body["department-of-change"],
      "affected-departments": body["affected-departments"],
      "departments-to-inform": body["departments-to-inform"],
      // Absent from the body: a permanent change (docs/decisions/023-temporary-changes-and-delegation.md).
      "change-type": { value: "permanent" },
    });
    expectUser(doc.originator_id, cast.originator);
    expectUser(doc.implementer_id, cast.implementer);
    expect(ids(doc.all_users)).toEqual(ids([cast.originator, cast.implementer]));
    doc.all_users.forEach((u: PublicUser) => expectUser(u, u));
    expect(doc.logs).toHaveLength(1);
    expect(doc.logs[0]).toMatchObject({ from: null, to: "b", comment: null, at: expect.stringMatching(ISO_Z) });
    expectUser(doc.logs[0].userId, cast.originator);
    const [chat] = await getDb().execute(sql`select id from chat_rooms where id = ${doc.chat}`);
    expect(chat).toBeTruthy();
    const emails = await getDb().execute<{ to_email: string }>(
      sql`select to_email from email_messages where record_id = ${doc._id}`,
    );
    expect([...emails].map((e) => e.to_email)).toEqual([cast.implementer.email]);
  });

  it("POST /api/newImplementer takes the same body and does the same", async () => {
    const res = await send(
      newImplementerRoute,
      "POST",
      "/api/newImplementer",
      cast.originator,
      newMocBody(cast.implementer),
    );
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["data", "status"]);
    const doc = res.body.data;
    expect(doc).toMatchObject({ status: "b", serial_num: expect.stringMatching(SERIAL), cloned: false });
    expectUser(doc.originator_id, cast.originator);
    expectUser(doc.implementer_id, cast.implementer);
    expectForm(doc.originator_form);
    const emails = await getDb().execute<{ to_email: string }>(
      sql`select to_email from email_messages where record_id = ${doc._id}`,
    );
    expect([...emails].map((e) => e.to_email)).toEqual([cast.implementer.email]);
    const again = await singlemoc(cast.implementer, doc._id);
    expect(again.body).toEqual(doc);
  });

  it("anonymous callers get 401 and nothing is created", async () => {
    const before = await dbIds("true");
    expectError(await send(newmocRoute, "POST", "/api/newmoc", null, newMocBody(cast.implementer)), 401);
    expectError(await get(newmocRoute, "/api/newmoc", null), 401);
    expectError(await get(getAllMocRoute, "/api/getAllMoc", null), 401);
    expect(await dbIds("true")).toEqual(before);
  });
});

describe("population", () => {
  let complete: Doc;
  beforeAll(async () => {
    complete = await mocAt("completed", cast, { verifier: true });
  });

  it("a completed MOC carries all six form documents, five users, all_users and populated logs", async () => {
    const res = await singlemoc(cast.originator, complete._id);
    expect(res.status, res.text).toBe(200);
    const doc = res.body;
    expect(Object.keys(doc).sort()).toEqual([...MOC_KEYS].sort());
    for (const form of [
      "originator_form",
      "implementer_form",
      "hseq_form",
      "approver_form",
      "implementation",
      "verifier_form",
    ]) {
      expectForm(doc[form]);
      expect(doc[form].submittedAt).toMatch(ISO_Z);
    }
    expectUser(doc.originator_id, cast.originator);
    expectUser(doc.implementer_id, cast.implementer);
    expectUser(doc.approver_id, cast.approver);
    expectUser(doc.verifier_id, cast.verifier);
    expectUser(doc.hseq_id, cast.hseq);
    expect(ids(doc.all_users)).toEqual(ids(Object.values(cast)));
    doc.all_users.forEach((u: PublicUser) => expectUser(u, u));
    expect(doc.logs.length).toBeGreaterThanOrEqual(7);
    for (const log of doc.logs) {
      expect(Object.keys(log).sort()).toEqual(["_id", "action", "at", "comment", "from", "onBehalfOf", "to", "userId"]);
      expectUser(log.userId, log.userId);
    }
    expect(doc.completed).toBe(true);
    expect(doc.target_date).toBe(doc.implementer_form["target-date"].value);
  });

  it("GET /api/newmoc and GET /api/getAllMoc carry the same populated document, stage included", async () => {
    // Every answer reads the stage live with the document (decision 054).
    const single = (await singlemoc(admin, complete._id)).body;
    expect(single.stage).toBe("Completed");
    for (const [route, path] of [
      [newmocRoute, "/api/newmoc"],
      [getAllMocRoute, "/api/getAllMoc"],
    ] as const) {
      const res = await get(route, path, cast.approver);
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(["data", "status"]);
      expect(res.body.status).toBe(200);
      expect(res.body.data.find((m: Doc) => m._id === complete._id)).toEqual(single);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Visibility (app/models/authz/authz.server.ts)

describe("who sees what", () => {
  let open: Doc;
  let done: Doc;
  let gone: Doc;
  let goneDone: Doc;
  beforeAll(async () => {
    open = await mocAt("d", cast);
    done = await mocAt("completed", cast);
    gone = await mocAt("b", cast);
    goneDone = await mocAt("completed", cast);
    expect((await deleteMoc(cast.originator, gone._id)).status).toBe(200);
    // A completed MOC can no longer be deleted through the app; one deleted before that rule stays so.
    await getDb().execute(sql`update mocs set is_deleted = true where id = ${goneDone._id}`);
  });

  const VIEWERS = ["admin", "hseq", "full", "involved", "stranger", "anonymous"] as const;
  const viewer = (name: (typeof VIEWERS)[number]): Who =>
    ({ admin, hseq: hseqUser, full: fullUser, involved: cast.approver, stranger, anonymous: null })[name];

  /** singlemoc and cloneMoc: expected status for an open and a completed MOC. */
  const VIEW: Record<(typeof VIEWERS)[number], [number, number]> = {
    admin: [200, 200],
    hseq: [200, 200],
    full: [200, 200],
    involved: [200, 200],
    stranger: [403, 200],
    anonymous: [401, 401],
  };

  it.each(VIEWERS)("GET /api/singlemoc for %s", async (name) => {
    const [onOpen, onDone] = VIEW[name];
    for (const [moc, expected] of [
      [open, onOpen],
      [done, onDone],
    ] as const) {
      const res = await singlemoc(viewer(name), moc._id);
      if (expected === 200) {
        expect(res.status, res.text).toBe(200);
        expect(res.body._id).toBe(moc._id);
      } else {
        expectError(res, expected);
      }
    }
    // Deleted or unknown: 404 for everyone signed in.
    for (const id of [gone._id, goneDone._id, randomUUID()]) {
      expectError(await singlemoc(viewer(name), id), name === "anonymous" ? 401 : 404);
    }
  });

  it.each(VIEWERS)("POST /api/cloneMoc for %s follows the same rule", async (name) => {
    const [onOpen, onDone] = VIEW[name];
    for (const [moc, expected] of [
      [open, onOpen],
      [done, onDone],
    ] as const) {
      const res = await send(cloneMocRoute, "POST", "/api/cloneMoc", viewer(name), { old_moc: { _id: moc._id } });
      if (expected === 200) {
        expect(res.status, res.text).toBe(200);
        expect(res.body.moc.previous_moc).toBe(moc._id);
      } else {
        expectError(res, expected);
      }
    }
    for (const id of [gone._id, randomUUID()]) {
      const res = await send(cloneMocRoute, "POST", "/api/cloneMoc", viewer(name), { old_moc: { _id: id } });
      expectError(res, name === "anonymous" ? 401 : 404);
    }
  });

  it("GET /api/newmoc: admin and HSEQ see every non-deleted MOC; others the MOCs listing them in all_users", async () => {
    const everything = await dbIds("not m.is_deleted");
    expect(everything).toContain(open._id);
    expect(everything).not.toContain(gone._id);
    const listed = async (who: Who) => ids((await get(newmocRoute, "/api/newmoc", who)).body.data);
    expect(await listed(admin)).toEqual(everything);
    expect(await listed(hseqUser)).toEqual(everything);
    for (const who of [fullUser, stranger, cast.approver, cast.verifier]) {
      const expected = await dbIds(
        `not m.is_deleted and exists (select 1 from moc_users mu where mu.moc_id = m.id and mu.user_id = '${who!._id}')`,
      );
      expect(await listed(who)).toEqual(expected);
    }
    // Full access widens getAllMoc, not this list; strangers see only the clones they originated.
    expect(await listed(fullUser)).not.toContain(open._id);
    expect(await listed(stranger)).not.toContain(done._id);
    expect(await listed(cast.approver)).toEqual(expect.arrayContaining([open._id, done._id]));
    expect(await listed(cast.approver)).not.toContain(gone._id);
  });

  it("GET /api/getAllMoc: admin, HSEQ and full access see every non-deleted MOC; others only completed ones", async () => {
    const everything = await dbIds("not m.is_deleted");
    const completed = await dbIds("not m.is_deleted and m.completed");
    expect(completed).toContain(done._id);
    expect(completed).not.toContain(goneDone._id);
    expect(completed).not.toContain(open._id);
    const listed = async (who: Who) => ids((await get(getAllMocRoute, "/api/getAllMoc", who)).body.data);
    expect(await listed(admin)).toEqual(everything);
    expect(await listed(hseqUser)).toEqual(everything);
    expect(await listed(fullUser)).toEqual(everything);
    expect(await listed(stranger)).toEqual(completed);
    expect(await listed(cast.approver)).toEqual(completed); // involved, but standard access
  });
});

// ---------------------------------------------------------------------------------------------

describe("POST /api/cloneMoc", () => {
  it("copies Part A, Part B and the implementation into new documents; new serial; cloned; caller is the originator; status b", async () => {
    const old = await mocAt("f", cast);
    const oldSnapshot = await mocSnapshot(old._id);
    const { result: res, to } = await emailsDuring(old._id, () =>
      send(cloneMocRoute, "POST", "/api/cloneMoc", hseqUser, { old_moc: { _id: old._id } }),
    );
    expect(to).toEqual([]);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["body", "moc", "status"]);
    expect(res.body.status).toBe(200);
    expect(res.body.body).toBeTypeOf("string");
    expect(res.body.body.length).toBeGreaterThan(0);
    const moc = res.body.moc;
    expect(Object.keys(moc).sort()).toEqual([...MOC_KEYS].sort());
    expect(moc._id).not.toBe(old._id);
    expect(moc.serial_num).toMatch(SERIAL);
    expect(moc.serial_num).not.toBe(old.serial_num);
    expect(moc).toMatchObject({
      cloned: true,
      previous_moc: old._id,
      status: "b",
      completed: false,
      hseq_form: null,
      approver_form: null,
      verifier_form: null,
      approver_id: null,
      hseq_id: null,
    });
    expect(moc.chat).not.toBe(old.chat);
    expectUser(moc.originator_id, hseqUser);
    expectUser(moc.implementer_id, cast.implementer);
    expect(ids(moc.all_users)).toEqual(ids([hseqUser, cast.implementer]));
    for (const form of ["originator_form", "implementer_form", "implementation"]) {
      expectForm(moc[form]);
      expect(moc[form]._id).not.toBe(old[form]._id);
      expect(fieldsOf(moc[form])).toEqual(fieldsOf(old[form]));
    }
    expect(moc.logs).toHaveLength(1);
    expectUser(moc.logs[0].userId, hseqUser);
    const emails = await getDb().execute<{ to_email: string }>(
      sql`select to_email from email_messages where record_id = ${moc._id}`,
    );
    expect([...emails].map((e) => e.to_email)).toEqual([cast.implementer.email]);
    expect(await mocSnapshot(old._id)).toEqual(oldSnapshot);
    // The clone is a MOC of its own: the implementer assesses it.
    const assessed = await stepOk("implementer", cast.implementer, defaultStepBody("implementer", moc, cast));
    expect(assessed.status).toBe("c");
  });

  it.each(["decline-b", "decline-d"] as const)("a MOC declined at %s can be cloned", async (stage) => {
    const old = await mocAt(stage, cast);
    expect(old.status).toBe("decline");
    const res = await send(cloneMocRoute, "POST", "/api/cloneMoc", cast.originator, { old_moc: { _id: old._id } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.moc).toMatchObject({ status: "b", cloned: true, previous_moc: old._id, decline: null });
    expect((await singlemoc(cast.originator, old._id)).body.status).toBe("decline");
  });
});

// ---------------------------------------------------------------------------------------------

describe("DELETE /api/deleteMoC", () => {
  it("only the originator or an admin; { status: 200, data: { _id } }; then gone everywhere", async () => {
    const moc = await mocAt("b", cast);
    const before = await mocSnapshot(moc._id);
    for (const who of [cast.implementer, cast.approver, cast.hseq, hseqUser, fullUser, stranger]) {
      expectError(await deleteMoc(who, moc._id), 403);
    }
    expectError(await deleteMoc(null, moc._id), 401);
    expect(await mocSnapshot(moc._id)).toEqual(before);

    const res = await deleteMoc(cast.originator, moc._id);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ status: 200, data: { _id: moc._id } });
    const [row] = await getDb().execute<{ is_deleted: boolean }>(
      sql`select is_deleted from mocs where id = ${moc._id}`,
    );
    expect(row!.is_deleted).toBe(true);
    expectError(await singlemoc(admin, moc._id), 404);
    expect(ids((await get(newmocRoute, "/api/newmoc", admin)).body.data)).not.toContain(moc._id);
    expect(ids((await get(getAllMocRoute, "/api/getAllMoc", admin)).body.data)).not.toContain(moc._id);
    expectError(await deleteMoc(cast.originator, moc._id), 404);
  });

  it("a completed MOC is kept: 409 for an admin too (tests/integration/moc-delete.test.ts has the rest)", async () => {
    const moc = await mocAt("completed", cast);
    expectError(await deleteMoc(admin, moc._id), 409);
  });
});

// ---------------------------------------------------------------------------------------------

describe("POST /api/addUser and PUT /api/implementer", () => {
  const addUser = (who: Who, body: unknown) => send(addUserRoute, "POST", "/api/addUser", who, body);

  it("the originator adds a person in a role: set on the MOC, added to all_users, emailed, logged", async () => {
    const moc = await mocAt("b", cast);
    const { result: res, to } = await emailsDuring(moc._id, () =>
      addUser(cast.originator, { userId: cast.approver._id, mocId: moc._id, role: "approver" }),
    );
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["data", "status"]);
    expectUser(res.body.data.approver_id, cast.approver);
    expect(ids(res.body.data.all_users)).toContain(cast.approver._id);
    expect(res.body.data.logs).toHaveLength(moc.logs.length + 1);
    expectUser(res.body.data.logs.at(-1).userId, cast.originator);
    expect(to).toEqual(emailsOf(cast.approver));

    const byAdmin = await addUser(admin, { userId: cast.verifier._id, mocId: moc._id, role: "verifier" });
    expect(byAdmin.status, byAdmin.text).toBe(200);
    expectUser(byAdmin.body.data.verifier_id, cast.verifier);
  });

  it("anyone else is refused (403), anonymous 401; nothing changes", async () => {
    const moc = await mocAt("c", cast);
    const before = await mocSnapshot(moc._id);
    for (const who of [cast.implementer, cast.approver, cast.hseq, hseqUser, fullUser, stranger]) {
      expectError(await addUser(who, { userId: stranger._id, mocId: moc._id, role: "verifier" }), 403);
    }
    expectError(await addUser(null, { userId: stranger._id, mocId: moc._id, role: "verifier" }), 401);
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });

  it.each(["completed", "decline-d"] as const)("a %s MOC takes no new people (409)", async (stage) => {
    const moc = await mocAt(stage, cast);
    const before = await mocSnapshot(moc._id);
    expectError(await addUser(cast.originator, { userId: stranger._id, mocId: moc._id, role: "verifier" }), 409);
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });

  it("PUT /api/implementer re-assigns the implementer (originator or admin only)", async () => {
    const moc = await mocAt("b", cast);
    const newcomer = await makeUser({ name: "Nina Newcomer", department: "operations" });
    const before = await mocSnapshot(moc._id);
    for (const who of [cast.implementer, hseqUser, fullUser, stranger]) {
      const res = await send(implementerRoute, "PUT", "/api/implementer", who, {
        moc_id: moc._id,
        implementer_id: newcomer._id,
      });
      expectError(res, 403);
    }
    expect(await mocSnapshot(moc._id)).toEqual(before);

    const { result: res, to } = await emailsDuring(moc._id, () =>
      send(implementerRoute, "PUT", "/api/implementer", cast.originator, {
        moc_id: moc._id,
        implementer_id: newcomer._id,
      }),
    );
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["data", "status"]);
    expectUser(res.body.data.implementer_id, newcomer);
    expect(ids(res.body.data.all_users)).toEqual(ids([cast.originator, newcomer]));
    expect(res.body.data.status).toBe("b");
    expect(to).toEqual(emailsOf(newcomer));
    expectError(await submitStep("implementer", cast.implementer, defaultStepBody("implementer", moc, cast)), 403);

    const back = await send(implementerRoute, "PUT", "/api/implementer", admin, {
      moc_id: moc._id,
      implementer_id: cast.implementer._id,
    });
    expect(back.status, back.text).toBe(200);
    expectUser(back.body.data.implementer_id, cast.implementer);
  });
});

// ---------------------------------------------------------------------------------------------
// Plans: impact assessment, risk attachment, action plan, manuals plan

type PlanEndpoint = {
  name: string;
  route: RouteModule;
  path: string;
  body: (mocId: string) => Record<string, unknown>;
  check: (doc: Doc) => void;
};

const PLANS: PlanEndpoint[] = [
  {
    name: "impact",
    route: impactRoute,
    path: "/api/impact",
    body: (id) => ({
      moc_id: id,
      impact_assessment: [
        { category: "Safety", hazards: ["Pinch points", "Stored energy"] },
        { category: "Environment", hazards: [] },
      ],
    }),
    check: (doc) =>
      expect(doc.impact_assessment).toEqual([
        { category: "Safety", hazards: ["Pinch points", "Stored energy"] },
        { category: "Environment", hazards: [] },
      ]),
  },
  {
    name: "risk_assessment",
    route: riskRoute,
    path: "/api/risk_assessment",
    body: (id) => ({ moc_id: id, risk_assessment: "https://files.example.com/risk-1.pdf" }),
    check: (doc) => expect(doc.risk_assessment).toBe("https://files.example.com/risk-1.pdf"),
  },
  {
    name: "actionTable",
    route: actionTableRoute,
    path: "/api/actionTable",
    body: (id) => ({
      id,
      action: { items: [{ description: "Order parts", owner: null, due: futureDate(10), done: false }] },
    }),
    check: (doc) =>
      expect(doc.action).toEqual({
        items: [
          {
            _id: expect.stringMatching(UUID),
            description: "Order parts",
            owner: null,
            due: futureDate(10),
            done: false,
          },
        ],
      }),
  },
  {
    name: "manualsPlan",
    route: manualsPlanRoute,
    path: "/api/manualsPlan",
    body: (id) => ({
      id,
      manual_plan: { items: [{ _id: "m-1", document: "Ops manual 4.2", change: "New pump section", done: true }] },
    }),
    check: (doc) =>
      expect(doc.manual_plan).toEqual({
        items: [
          { _id: "m-1", document: "Ops manual 4.2", change: "New pump section", owner: null, due: null, done: true },
        ],
      }),
  },
];

describe.each(PLANS)("POST $path", ({ route, path, body, check }) => {
  it("the originator, implementer, assigned HSEQ user and an admin may change it while open; logged; { status, data }", async () => {
    const moc = await mocAt("d", cast);
    let logs = moc.logs.length;
    for (const who of [cast.originator, cast.implementer, cast.hseq, admin]) {
      const res = await send(route, "POST", path, who, body(moc._id));
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(["data", "status"]);
      expect(res.body.data._id).toBe(moc._id);
      expect(res.body.data.status).toBe("d");
      check(res.body.data);
      logs += 1;
      expect(res.body.data.logs).toHaveLength(logs);
      expect(res.body.data.logs.at(-1)).toMatchObject({ from: "d", to: "d", userId: { _id: who._id } });
    }
    check((await singlemoc(cast.originator, moc._id)).body);
  });

  it("the approver, another HSEQ user, a full-access user and a stranger are refused (403); anonymous 401", async () => {
    const moc = await mocAt("d", cast);
    const before = await mocSnapshot(moc._id);
    for (const who of [cast.approver, hseqUser, fullUser, stranger]) {
      expectError(await send(route, "POST", path, who, body(moc._id)), 403);
    }
    expectError(await send(route, "POST", path, null, body(moc._id)), 401);
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });

  it.each(["completed", "decline-b", "decline-d"] as Stage[])(
    "a %s MOC: 409 for its editors, 403 for others",
    async (stage) => {
      const moc = await mocAt(stage, cast);
      const before = await mocSnapshot(moc._id);
      for (const who of [cast.originator, cast.implementer, admin]) {
        expectError(await send(route, "POST", path, who, body(moc._id)), 409);
      }
      expectError(await send(route, "POST", path, stranger, body(moc._id)), 403);
      expect(await mocSnapshot(moc._id)).toEqual(before);
    },
  );

  it("an unknown or deleted MOC is 404", async () => {
    expectError(await send(route, "POST", path, admin, body(randomUUID())), 404);
    const moc = await mocAt("b", cast);
    expect((await deleteMoc(cast.originator, moc._id)).status).toBe(200);
    expectError(await send(route, "POST", path, cast.originator, body(moc._id)), 404);
  });
});

// ---------------------------------------------------------------------------------------------
// Implementer drafts

describe("implementer drafts: POST /api/createImplementer, POST and GET /api/implementer", () => {
  it("createImplementer saves a draft and assigns the approver without moving the status", async () => {
    const moc = await mocAt("b", cast);
    const res = await send(createImplementerRoute, "POST", "/api/createImplementer", cast.implementer, {
      moc_id: moc._id,
      implementer_form: { "approver-name": { value: cast.approver._id } },
    });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["data", "status"]);
    const doc = res.body.data;
    expect(doc.status).toBe("b");
    expectUser(doc.approver_id, cast.approver);
    expect(ids(doc.all_users)).toContain(cast.approver._id);
    expectForm(doc.implementer_form);
    expect(doc.implementer_form.submittedAt).toBeNull();
    expect(doc.implementer_form["approver-name"]).toEqual({
      value: { _id: cast.approver._id, name: cast.approver.name },
    });
    expect(doc.logs.at(-1)).toMatchObject({ from: "b", to: "b", userId: { _id: cast.implementer._id } });

    // POST /api/implementer does the same and merges further fields into the draft.
    const more = await send(implementerRoute, "POST", "/api/implementer", cast.implementer, {
      moc_id: moc._id,
      implementer_form: { "details-assessed": { value: "yes" }, "target-date": { value: futureDate(20) } },
    });
    expect(more.status, more.text).toBe(200);
    expect(more.body.data.status).toBe("b");
    expect(more.body.data.implementer_form._id).toBe(doc.implementer_form._id);
    expect(fieldsOf(more.body.data.implementer_form)).toEqual({
      "approver-name": { value: { _id: cast.approver._id, name: cast.approver.name } },
      "details-assessed": { value: "yes" },
      "target-date": { value: futureDate(20) },
    });

    // GET /api/implementer returns the form.
    const read = await get(implementerRoute, "/api/implementer", cast.originator, { moc_id: moc._id });
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual({ status: 200, data: more.body.data.implementer_form });

    // The draft does not count as the assessment: Part A is still open, Part B still to submit.
    const partA = await submitStep("originator", cast.originator, defaultStepBody("originator", moc, cast));
    expect(partA.status, partA.text).toBe(200);
    const submitted = await stepOk("implementer", cast.implementer, defaultStepBody("implementer", moc, cast));
    expect(submitted.status).toBe("c");
    expect(submitted.implementer_form.submittedAt).toMatch(ISO_Z);
  });

  it("GET /api/implementer is null before any implementer form, and follows the MOC's visibility", async () => {
    const moc = await mocAt("b", cast);
    const read = await get(implementerRoute, "/api/implementer", cast.implementer, { moc_id: moc._id });
    expect(read.body).toEqual({ status: 200, data: null });
    expectError(await get(implementerRoute, "/api/implementer", stranger, { moc_id: moc._id }), 403);
    expectError(await get(implementerRoute, "/api/implementer", null, { moc_id: moc._id }), 401);
    expectError(await get(implementerRoute, "/api/implementer", admin, { moc_id: randomUUID() }), 404);
  });

  it.each([
    ["createImplementer", createImplementerRoute, "/api/createImplementer"],
    ["implementer", implementerRoute, "/api/implementer"],
  ] as const)("POST /api/%s: only the implementer (or an admin), only in b", async (_name, route, path) => {
    const body = (id: string) => ({ moc_id: id, implementer_form: { "approver-name": { value: cast.approver._id } } });
    const moc = await mocAt("b", cast);
    const before = await mocSnapshot(moc._id);
    for (const who of [cast.originator, cast.approver, hseqUser, stranger]) {
      expectError(await send(route, "POST", path, who, body(moc._id)), 403);
    }
    expectError(await send(route, "POST", path, null, body(moc._id)), 401);
    expect(await mocSnapshot(moc._id)).toEqual(before);
    expect((await send(route, "POST", path, admin, body(moc._id))).status).toBe(200);

    for (const stage of ["c", "decline-b", "completed"] as const) {
      const later = await mocAt(stage, cast);
      const snapshot = await mocSnapshot(later._id);
      expectError(await send(route, "POST", path, cast.implementer, body(later._id)), 409);
      expect(await mocSnapshot(later._id)).toEqual(snapshot);
    }
  });

  // Issue 40, finding 13: a draft on a MOC whose Part B was submitted before (returned by HSEQ)
  // answered 500 (`value.toISOString is not a function`): the stored submission time came back
  // from SQL as text where a Date was promised.
  it.each([
    ["createImplementer", createImplementerRoute, "/api/createImplementer"],
    ["implementer", implementerRoute, "/api/implementer"],
  ] as const)(
    "POST /api/%s on a returned MOC saves the draft and keeps Part B's submission",
    async (_n, route, path) => {
      const moc = await mocAt("b-returned", cast);
      const submittedAt = moc.implementer_form.submittedAt;
      expect(submittedAt).toMatch(ISO_Z);
      for (const form of [{}, { "decline-reason": { value: "Still thinking" } }]) {
        const res = await send(route, "POST", path, cast.implementer, { moc_id: moc._id, implementer_form: form });
        expect(res.status, res.text).toBe(200);
        expect(res.body.data.status).toBe("b");
        expect(res.body.data.implementer_form.submittedAt).toBe(submittedAt);
      }
    },
  );

  it.each([
    ["createImplementer", createImplementerRoute, "/api/createImplementer"],
    ["implementer", implementerRoute, "/api/implementer"],
  ] as const)("POST /api/%s: a date field that is not a date is 400 naming it", async (_n, route, path) => {
    for (const stage of ["b", "b-returned"] as const) {
      const moc = await mocAt(stage, cast);
      const before = await mocSnapshot(moc._id);
      for (const value of [20260101, true, { y: 2026 }, ["2026-01-01"], "1 January 2026", "2026-02-30"]) {
        const res = await send(route, "POST", path, cast.implementer, {
          moc_id: moc._id,
          implementer_form: { "target-date": { value } },
        });
        expectError(res, 400);
        expect(res.body.issues, res.text).toContainEqual({
          path: "implementer_form.target-date.value",
          message: "Expected a date (YYYY-MM-DD)",
        });
      }
      expect(await mocSnapshot(moc._id)).toEqual(before);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Pending actions

describe("GET /api/user actions", () => {
  it("lists exactly the caller's pending steps, each MOC with its originator form and originator", async () => {
    const crew = await makeCast();
    const at = async (stage: Stage, options?: { verifier?: boolean }) => (await mocAt(stage, crew, options))._id;
    const waitB = await at("b");
    const waitC = await at("c");
    const waitD = await at("d");
    const waitE = await at("e");
    const waitF = await at("f");
    const waitDeviation = await at("b-both");
    const waitVerifier = await at("f", { verifier: true });
    await at("completed");
    await at("decline-d");
    await at("decline-b");
    const deleted = await at("e");
    expect((await deleteMoc(admin, deleted, "Raised twice")).status).toBe(200);

    const actionsOf = async (who: PublicUser) => {
      const res = await get(userRoute, "/api/user", who);
      expect(res.status, res.text).toBe(200);
      return res.body.data.actions as { type: string; moc: Doc }[];
    };
    const pairs = (actions: { type: string; moc: Doc }[]) => actions.map((a) => `${a.type}:${a.moc._id}`).sort();
    // "hseq" waits on every HSEQ user for every MOC in status c (other tests' MOCs too) that they
    // neither originated nor implement (four eyes, docs/decisions/021).
    const inCFor = async (user: PublicUser) =>
      (
        await dbIds(
          `m.status = 'c' and not m.is_deleted and m.originator_id <> '${user._id}' and m.implementer_id is distinct from '${user._id}'`,
        )
      ).map((id) => `hseq:${id}`);
    const inC = await inCFor(crew.hseq);
    expect(inC).toContain(`hseq:${waitC}`);

    expect(pairs(await actionsOf(crew.originator))).toEqual([]);
    expect(pairs(await actionsOf(crew.implementer))).toEqual(
      [`implementer:${waitB}`, `implementation:${waitE}`].sort(),
    );
    expect(pairs(await actionsOf(crew.approver))).toEqual(
      [`approver:${waitD}`, `deviation-extension:${waitDeviation}`].sort(),
    );
    expect(pairs(await actionsOf(crew.hseq))).toEqual(
      [...inC, `verifier:${waitF}`, `deviation-extension:${waitDeviation}`].sort(),
    );
    expect(pairs(await actionsOf(crew.verifier))).toEqual([`verifier:${waitVerifier}`]);
    expect(pairs(await actionsOf(hseqUser))).toEqual([...(await inCFor(hseqUser))].sort());
    expect(pairs(await actionsOf(stranger))).toEqual([]);

    const [first] = await actionsOf(crew.implementer);
    expect(first!.moc._id).toBe(waitB);
    expect(first!.moc.serial_num).toMatch(SERIAL);
    expectForm(first!.moc.originator_form);
    expect(first!.moc.originator_form["description-of-change"].value).toContain("ballast pump");
    expectUser(first!.moc.originator_id, crew.originator);

    // Once the step is done it is no longer pending.
    await stepOk("implementer", crew.implementer, defaultStepBody("implementer", { _id: waitB }, crew));
    expect(pairs(await actionsOf(crew.implementer))).toEqual([`implementation:${waitE}`]);
  });

  it("the dashboard shows the 20 longest-waiting and links to the list of all of them", async () => {
    const crew = await makeCast();
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) ids.push((await createMocOk(crew))._id); // each waits on the implementer
    const token = await tokenOf(crew.implementer);
    const request = (path: string) => buildRequest({ path, token, cookie: true });

    const board = await dashboardPage.loader({ request: await request("/"), params: {}, context: {} });
    expect(board.waitingTotal).toBe(23);
    expect(board.waiting.map((w) => w.mocId)).toEqual(ids.slice(0, 20)); // oldest wait first
    expect((await get(userRoute, "/api/user", crew.implementer)).body.data.actions).toHaveLength(23);

    const list = await mocListPage.loader({ request: await request("/mocs?scope=waiting"), params: {}, context: {} });
    expect(list.total).toBe(23);
    expect(list.rows.map((r) => r.id).sort()).toEqual([...ids].sort());
  });
});

/** Orders key tuples element by element. */
const lexicographic = (x: (number | string)[], y: (number | string)[]) => {
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return 0;
};

describe("the MOC list page's search (searchMocs)", () => {
  it("every sort orders as it says, and pages split the same order without gaps or repeats", async () => {
    const crew = await makeCast();
    for (const stage of ["a", "b", "c", "d", "e", "f", "completed", "decline-b"] as const) await mocAt(stage, crew);
    const filter = { mine: true } as const;
    for (const sort of MOC_SORTS) {
      const whole = await searchMocs(crew.originator, { ...filter, sort, pageSize: 100 });
      expect(whole.total, sort).toBe(8);
      expect(whole.rows).toHaveLength(8);
      const paged: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const part = await searchMocs(crew.originator, { ...filter, sort, pageSize: 3, page });
        expect(part.total, sort).toBe(8);
        paged.push(...part.rows.map((r) => r.id));
      }
      expect(paged, sort).toEqual(whole.rows.map((r) => r.id));
      const key = {
        newest: (r: MocListRow) => [-Date.parse(r.createdAt)],
        oldest: (r: MocListRow) => [Date.parse(r.createdAt)],
        serial: (r: MocListRow) =>
          r.serialNum
            .split("-")
            .reverse()
            .map((n) => -Number(n)),
        target: (r: MocListRow) => [r.targetDate ? Date.parse(r.targetDate) : Infinity],
        status: (r: MocListRow) => [r.completed ? 1 : 0, r.status],
        temporary: (r: MocListRow) => [r.temporaryUntil ? Date.parse(r.temporaryUntil) : Infinity],
      }[sort];
      const keys = whole.rows.map(key);
      const sorted = [...keys].sort(lexicographic);
      expect(keys, sort).toEqual(sorted);
    }
    // Rows carry what the page shows.
    const [first] = (await searchMocs(crew.originator, { ...filter, state: "open", sort: "status" })).rows;
    expect(first).toMatchObject({
      status: "a",
      completed: false,
      originator: crew.originator.name,
      owner: crew.originator.name,
    });
  });
});

// Issue 40, findings 12 and 15: the list page's filters and sorts apply to the JSON lists and
// their pages as to their CSV, and a cursor serves only its own list and order.
describe("GET /api/newmoc and /api/getAllMoc: filters and order, JSON, pages and CSV alike", () => {
  let crew: Cast;
  const STAGES = ["a", "b", "c", "d", "e", "f", "completed", "decline-b"] as const;
  beforeAll(async () => {
    crew = await makeCast();
    for (const stage of STAGES) await mocAt(stage, crew);
  });
  const list = async (route: RouteModule, path: string, query: Record<string, string>) =>
    get(route, path, crew.originator, query);
  const nextCursor = (res: { headers: Headers }) => {
    const link = res.headers.get("Link");
    return link ? new URL(/<([^>]+)>/.exec(link)![1]!, "http://x").searchParams.get("cursor") : null;
  };
  const idsOf = (res: { body: { data: { _id: string }[] } }) => res.body.data.map((d) => d._id);

  it.each(MOC_SORTS)("sort=%s: the whole list, its pages and its CSV follow the list page's order", async (sort) => {
    const expected = (await searchMocs(crew.originator, { mine: true, sort, pageSize: 100 })).rows;
    expect(expected).toHaveLength(STAGES.length);
    const whole = await list(newmocRoute, "/api/newmoc", { sort });
    expect(whole.status, whole.text).toBe(200);
    expect(idsOf(whole)).toEqual(expected.map((r) => r.id));
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(newmocRoute, "/api/newmoc", { sort, limit: "3", ...(cursor ? { cursor } : {}) });
      expect(res.status, res.text).toBe(200);
      paged.push(...idsOf(res));
      cursor = nextCursor(res);
    } while (cursor);
    expect(paged).toEqual(expected.map((r) => r.id));
    const csv = await call(newmocRoute, {
      path: "/api/newmoc",
      query: { sort, format: "csv" },
      token: await tokenOf(crew.originator),
    });
    expect(csv.status, csv.text).toBe(200);
    const serials = csv.text
      .replace(/^\uFEFF/, "")
      .trim()
      .split("\r\n")
      .slice(1)
      .map((line) => line.split(",")[0]);
    expect(serials).toEqual(expected.map((r) => r.serialNum));
  });

  it("filters apply to the JSON lists (they answered every MOC)", async () => {
    const open = await list(newmocRoute, "/api/newmoc", { state: "open" });
    expect(idsOf(open).sort()).toEqual(
      (await searchMocs(crew.originator, { mine: true, state: "open", pageSize: 100 })).rows.map((r) => r.id).sort(),
    );
    expect(idsOf(open).length).toBeLessThan(STAGES.length);
    const atC = await list(newmocRoute, "/api/newmoc", { status: "c" });
    expect(atC.body.data.map((d: { status: string }) => d.status)).toEqual(["c"]);
    const serial = atC.body.data[0].serial_num as string;
    expect(idsOf(await list(newmocRoute, "/api/newmoc", { q: serial }))).toEqual(idsOf(atC));
    // getAllMoc answers a standard user the completed MOCs; a filter narrows them.
    const all = await list(getAllMocRoute, "/api/getAllMoc", {});
    expect(all.body.data.length).toBeGreaterThan(0);
    expect((await list(getAllMocRoute, "/api/getAllMoc", { state: "open" })).body.data).toEqual([]);
    expect((await list(getAllMocRoute, "/api/getAllMoc", { q: `nothing-${randomUUID()}` })).body.data).toEqual([]);
  });

  it("a cursor of another list or order is 400", async () => {
    const first = await list(newmocRoute, "/api/newmoc", { limit: "2" });
    const cursor = nextCursor(first)!;
    expect(cursor).toBeTruthy();
    for (const [route, path, query] of [
      [getAllMocRoute, "/api/getAllMoc", {}],
      [newmocRoute, "/api/newmoc", { sort: "oldest" }],
    ] as const) {
      const res = await list(route, path, { ...query, cursor });
      expectError(res, 400);
      expect(res.body.issues).toEqual([
        {
          path: "cursor",
          message: "The cursor belongs to another list/order; start again without it, or keep the list's sort and dir",
        },
      ]);
    }
  });
});

describeMocInvariants();
