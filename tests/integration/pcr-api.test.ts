/**
 * The PCR API as a client sees it (docs/api-contract.md, "PCR"; app/models/authz/authz.server.ts, docs/decisions/005-pcr-signatures.md, docs/decisions/003-email-outbox.md): who reads,
 * lists, edits and deletes what; the creation contract; the signature chain in order with slot
 * holders, comments and affected parties; completion in either order; the emails each step
 * writes; two signers at once; cloning; the lightweight summary; and list queries that do not
 * grow with the number of PCRs.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as allPcrRoute from "~/routes/api+/allPcr";
import * as clonePcrRoute from "~/routes/api+/clonePcr";
import * as getAllPcrRoute from "~/routes/api+/getAllPcr";
import * as newmocRoute from "~/routes/api+/newmoc";
import * as pcrByIdRoute from "~/routes/api+/pcr.$id";
import * as affectedPartiesRoute from "~/routes/api+/pcr.affectedParties";
import * as signaturesRoute from "~/routes/api+/pcr.signatures";
import * as summaryRoute from "~/routes/api+/pcr.summary";
import * as pcrRoute from "~/routes/api+/pcr";
import * as singlePcrRoute from "~/routes/api+/singlePcr";
import { createPcr } from "~/models/pcr/pcr.server";
import { newPcrSchema } from "~/models/pcr/pcr.schema";
import type { PublicUser } from "~/models/people/user.server";
import { closeDb, getDb } from "~/utils/db.server";
import type { QueryCounter } from "#db/client";
import { api } from "../helpers/api";
import { makeAdmin, makeUser, PASSWORD } from "../helpers/factories";
import { newMocBody } from "../helpers/moc";
import {
  activeEmails,
  createPcrOk,
  currentChain,
  deactivate,
  emailCount,
  emailRows,
  emailsDuring,
  emailsOf,
  emptyChain,
  makeHolders,
  partySign,
  pcrBody,
  pcrRow,
  PCR_ROLES,
  pngOfSize,
  POSITION_ROLES,
  postParties,
  postSignatures,
  SERIAL,
  sign,
  signChain,
  signOk,
  TINY_PNG,
  tokenOf,
  unknownId,
  UUID,
  type PcrDoc,
  type PcrRole,
} from "../helpers/pcr";
import type { CallOptions, CallResult } from "../helpers/request";

type RouteModule = Parameters<typeof api>[0];

const YEAR = new Date().getUTCFullYear();

async function as(who: { _id: string } | null, route: RouteModule, options: CallOptions): Promise<CallResult> {
  return api(route, { ...options, token: who ? await tokenOf(who) : undefined });
}

const getById = (who: { _id: string } | null, id: string) =>
  as(who, pcrByIdRoute, { path: `/api/pcr/${id}`, params: { id } });
const getSingle = (who: { _id: string } | null, id: string) =>
  as(who, singlePcrRoute, { path: "/api/singlePcr", query: { id } });
const putPcr = (who: { _id: string } | null, id: string, body: unknown) =>
  as(who, pcrRoute, { method: "PUT", path: "/api/pcr", query: { id }, body });
const deletePcrCall = (who: { _id: string } | null, id: string) =>
  as(who, pcrRoute, { method: "DELETE", path: "/api/pcr", query: { id } });
const postPcr = (who: { _id: string } | null, body: unknown) =>
  as(who, pcrRoute, { method: "POST", path: "/api/pcr", body });
const clone = (who: { _id: string } | null, body: unknown) =>
  as(who, clonePcrRoute, { method: "POST", path: "/api/clonePcr", body });

const LISTS: [string, RouteModule][] = [
  ["/api/allPcr", allPcrRoute],
  ["/api/getAllPcr", getAllPcrRoute],
  ["/api/pcr/summary", summaryRoute],
];

async function listIds(who: { _id: string }, path: string, route: RouteModule): Promise<string[]> {
  const res = await as(who, route, { path });
  expect(res.status, res.text).toBe(200);
  expect(Array.isArray(res.body.data)).toBe(true);
  return (res.body.data as { _id: string }[]).map((p) => p._id).sort();
}

async function allPcrIds(): Promise<string[]> {
  const rows = await getDb().execute<{ id: string }>(sql`select id from pcrs`);
  return rows.map((r) => r.id).sort();
}

function expectError(res: CallResult, status: number) {
  expect(res.status, res.text).toBe(status);
  expect(res.body.status).toBe(status);
  expect(typeof res.body.message).toBe("string");
  expect(res.body.message.length).toBeGreaterThan(0);
}

function expectIssues(res: CallResult) {
  expectError(res, 400);
  expect(Array.isArray(res.body.issues), res.text).toBe(true);
  expect(res.body.issues.length).toBeGreaterThan(0);
  for (const issue of res.body.issues) {
    expect(typeof issue.path).toBe("string");
    expect(typeof issue.message).toBe("string");
  }
}

const signatureOf = (doc: PcrDoc, role: PcrRole) => doc.signatures.find((s: { Name: string }) => s.Name === role);

// =============================================================================================
// Who sees and changes what

describe("access", () => {
  type Key = "originator" | "party" | PcrRole | "admin" | "hseq department user" | "full-access user" | "outsider";
  const people = {} as Record<Key, PublicUser>;
  let other: PublicUser;
  /** A: by the originator with the party. B: by someone else. C: the outsider's own. */
  const pcr = {} as Record<"A" | "B" | "C", PcrDoc>;

  beforeAll(async () => {
    const holders = await makeHolders("(access)");
    const [originator, party, admin, hseq, full, outsider, someoneElse] = await Promise.all([
      makeUser({ name: "Olga Originator", department: "engineering" }),
      makeUser({ name: "Pia Party", department: "operations" }),
      makeAdmin({ name: "Ada Admin", department: "engineering", access: "standard" }),
      makeUser({ name: "Hanna Hseq", department: "hseq" }),
      makeUser({ name: "Fritz Full", department: "fleet", access: "full" }),
      makeUser({ name: "Otto Outsider", department: "fleet" }),
      makeUser({ name: "Eli Else", department: "operations" }),
    ]);
    Object.assign(people, {
      originator,
      party,
      ...holders,
      admin,
      "hseq department user": hseq,
      "full-access user": full,
      outsider,
    });
    other = someoneElse!;
    pcr.A = await createPcrOk(originator!, { parties: [party!] });
    pcr.B = await createPcrOk(other);
    pcr.C = await createPcrOk(outsider!);
  });

  // Which of A, B, C each sees; "all" means every PCR in the database.
  const TABLE: { who: Key; readsA: 200 | 403; sees: "all" | ("A" | "B" | "C")[] }[] = [
    { who: "originator", readsA: 200, sees: ["A"] },
    { who: "party", readsA: 200, sees: ["A"] },
    { who: "VP Fleet Management", readsA: 200, sees: "all" },
    { who: "HSEQ Coordinator", readsA: 200, sees: "all" },
    { who: "Group HSEQ Manager", readsA: 200, sees: "all" },
    { who: "Director HSEQ", readsA: 200, sees: "all" },
    { who: "President", readsA: 200, sees: "all" },
    { who: "admin", readsA: 200, sees: "all" },
    { who: "hseq department user", readsA: 200, sees: "all" },
    { who: "full-access user", readsA: 200, sees: "all" },
    { who: "outsider", readsA: 403, sees: ["C"] },
  ];

  it.each(TABLE)("$who: GET /api/pcr/[id] and /api/singlePcr answer $readsA", async ({ who, readsA }) => {
    for (const res of [await getById(people[who], pcr.A._id), await getSingle(people[who], pcr.A._id)]) {
      if (readsA === 200) {
        expect(res.status, res.text).toBe(200);
        expect(res.body.data._id).toBe(pcr.A._id);
        expect(res.body.data.serial_num).toBe(pcr.A.serial_num);
        expect(res.body.data.originator.name).toBe("Olga Originator");
        expect(res.body.data.affectedParties[0].Name.value).toBe(people.party._id);
      } else {
        expectError(res, 403);
        expect(res.text).not.toContain(pcr.A.serial_num);
        expect(res.text).not.toContain("mooring lines");
      }
    }
  });

  it.each(TABLE)("$who: the three lists hold exactly what they may see", async ({ who, sees }) => {
    const expected = sees === "all" ? await allPcrIds() : sees.map((k) => pcr[k]._id).sort();
    if (sees === "all") expect(expected).toEqual(expect.arrayContaining([pcr.A._id, pcr.B._id, pcr.C._id]));
    for (const [path, route] of LISTS) {
      expect(await listIds(people[who], path, route), `${who} ${path}`).toEqual(expected);
    }
  });

  it("lists are newest first", async () => {
    const res = await as(people.admin, allPcrRoute, { path: "/api/allPcr" });
    const dates = (res.body.data as { createdAt: string }[]).map((p) => p.createdAt);
    expect([...dates].sort().reverse()).toEqual(dates);
    const summary = await as(people.admin, summaryRoute, { path: "/api/pcr/summary" });
    expect((summary.body.data as { _id: string }[]).map((p) => p._id)).toEqual(
      (res.body.data as { _id: string }[]).map((p) => p._id),
    );
  });

  const editors: Key[] = ["originator", "admin"];
  const nonEditors = TABLE.map((r) => r.who).filter((k) => !editors.includes(k));

  it.each(nonEditors)("%s: PUT and DELETE /api/pcr on a pending PCR are 403 and change nothing", async (who) => {
    const before = await pcrRow(pcr.A._id);
    const put = await putPcr(people[who], pcr.A._id, { form: { "manual-procedure": `<p>by ${who}</p>` } });
    expectError(put, 403);
    const del = await deletePcrCall(people[who], pcr.A._id);
    expectError(del, 403);
    expect(await pcrRow(pcr.A._id)).toEqual(before);
  });

  it.each(editors)("%s: PUT merges the form into a pending PCR", async (who) => {
    const res = await putPcr(people[who], pcr.A._id, { form: { "manual-procedure": `<p>Edited by ${who}</p>` } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.form["manual-procedure"]).toBe(`<p>Edited by ${who}</p>`);
    // Merged: the other fields are kept, and the originator stays the originator.
    expect(res.body.data.form["suggestion-details"]).toContain("mooring lines");
    expect(res.body.data.form.originator).toBe(people.originator._id);
    expect(res.body.data.originator_id).toBe(people.originator._id);
    expect(res.body.data.status).toBe("pending");
  });

  it.each(editors)("%s: DELETE removes a pending PCR for good", async (who) => {
    const doomed = await createPcrOk(people.originator, { parties: [people.party] });
    const res = await deletePcrCall(people[who], doomed._id);
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({ _id: doomed._id });
    expect(await pcrRow(doomed._id)).toBeUndefined();
    expectError(await getById(people.admin, doomed._id), 404);
    const chats = await getDb().execute(sql`select 1 from chat_rooms where id = ${doomed.chatId}`);
    expect(chats).toHaveLength(0);
  });

  describe("a finished PCR", () => {
    let finished: PcrDoc;
    beforeAll(async () => {
      finished = await createPcrOk(people.originator, { parties: [people.party] });
      await signChain(finished._id, { ...people, "Change Originator": people.originator });
      expect((await partySign(people.party, finished._id)).body.data.status).toBe("finished");
    });

    it("the originator can no longer edit or delete it (409)", async () => {
      const before = await pcrRow(finished._id);
      expectError(await putPcr(people.originator, finished._id, { form: { "manual-procedure": "<p>late</p>" } }), 409);
      expectError(await deletePcrCall(people.originator, finished._id), 409);
      expect(await pcrRow(finished._id)).toEqual(before);
    });

    it.each(nonEditors)("%s: 403", async (who) => {
      expectError(await putPcr(people[who], finished._id, { form: { "manual-procedure": "<p>x</p>" } }), 403);
      expectError(await deletePcrCall(people[who], finished._id), 403);
    });

    it("an admin cannot change its signed form nor add a party to it, nor delete it (409): it is withdrawn instead", async () => {
      const put = await putPcr(people.admin, finished._id, { form: { "manual-procedure": "<p>Typo fixed</p>" } });
      expectError(put, 409);
      expect(put.body.message).toBe("Signed PCRs cannot be edited; clone it to propose a change");
      const newParty = await putPcr(people.admin, finished._id, {
        affectedParties: [people.party, people.outsider].map((p) => ({ Name: { value: p._id } })),
      });
      expectError(newParty, 409);
      const del = await deletePcrCall(people.admin, finished._id);
      expectError(del, 409);
      expect(await pcrRow(finished._id)).toBeDefined();
    });
  });

  it("PUT replaces the affected parties, keeps those already there as they were, and emails only the new ones", async () => {
    const doc = await createPcrOk(people.originator, { parties: [people.party] });
    expect((await partySign(people.party, doc._id, { comments: "Fine by me" })).status).toBe(200);
    const { result, to } = await emailsDuring(doc._id, () =>
      putPcr(people.originator, doc._id, {
        affectedParties: [people.party, people.outsider].map((p) => ({ Name: { value: p._id } })),
      }),
    );
    expect(result.status, result.text).toBe(200);
    expect(to).toEqual(emailsOf(people.outsider));
    const [kept, added] = result.body.data.affectedParties;
    expect(kept.Name.value).toBe(people.party._id);
    expect(kept.Signature).toBe(people.party.name);
    expect(kept.Comments).toBe("Fine by me");
    expect(added).toMatchObject({ Name: { value: people.outsider._id }, Signature: false, Comments: "" });
    // The new party now sees it.
    expect((await getById(people.outsider, doc._id)).status).toBe(200);
  });
});

// =============================================================================================
// Anonymous, unknown, malformed, oversized

describe("requests that are refused before any rule", () => {
  let user: PublicUser;
  let doc: PcrDoc;
  beforeAll(async () => {
    user = await makeUser({ name: "Rita Requester" });
    doc = await createPcrOk(user);
  });

  it("anonymous callers get 401 everywhere", async () => {
    const id = doc._id;
    const calls: [string, () => Promise<CallResult>][] = [
      ["POST /api/pcr", () => postPcr(null, pcrBody())],
      ["PUT /api/pcr", () => putPcr(null, id, { form: {} })],
      ["DELETE /api/pcr", () => deletePcrCall(null, id)],
      ["GET /api/pcr/[id]", () => getById(null, id)],
      ["GET /api/singlePcr", () => getSingle(null, id)],
      ["GET /api/allPcr", () => as(null, allPcrRoute, { path: "/api/allPcr" })],
      ["GET /api/getAllPcr", () => as(null, getAllPcrRoute, { path: "/api/getAllPcr" })],
      ["GET /api/pcr/summary", () => as(null, summaryRoute, { path: "/api/pcr/summary" })],
      ["POST /api/pcr/signatures", () => postSignatures(null, { pcrId: id, signatures: emptyChain() })],
      ["POST /api/pcr/affectedParties", () => postParties(null, { pcrId: id, affectedParties: [] })],
      ["POST /api/clonePcr", () => clone(null, { old_pcr: { serial_num: doc.serial_num } })],
    ];
    const before = await pcrRow(id);
    const emails = await emailCount();
    for (const [name, run] of calls) {
      const res = await run();
      expect(res.status, name).toBe(401);
      expect(res.body.status, name).toBe(401);
    }
    expect(await pcrRow(id)).toEqual(before);
    expect(await emailCount()).toBe(emails);
    // A bad token is no better than none.
    const forged = await api(pcrByIdRoute, { path: `/api/pcr/${id}`, params: { id }, token: "not.a.token" });
    expect(forged.status).toBe(401);
  });

  it("unknown ids are 404", async () => {
    const id = unknownId();
    expectError(await getById(user, id), 404);
    expectError(await getSingle(user, id), 404);
    expectError(await putPcr(user, id, { form: { "manual-procedure": "x" } }), 404);
    expectError(await deletePcrCall(user, id), 404);
    expectError(await postSignatures(user, { pcrId: id, signatures: emptyChain() }), 404);
    expectError(await postParties(user, { pcrId: id, affectedParties: [] }), 404);
    expectError(await clone(user, { old_pcr: { serial_num: "99999-2001" } }), 404);
  });

  const MALFORMED: [string, (id: string) => Promise<CallResult>][] = [
    ["POST /api/pcr: not JSON", () => as(user, pcrRoute, { method: "POST", path: "/api/pcr", body: "{form:" })],
    ["POST /api/pcr: empty body", () => as(user, pcrRoute, { method: "POST", path: "/api/pcr", body: "" })],
    ["POST /api/pcr: a JSON array", () => postPcr(user, [])],
    ["POST /api/pcr: no form", () => postPcr(user, { affectedParties: [] })],
    ["POST /api/pcr: suggestion-details missing", () => postPcr(user, { form: { "reason-for-change": "Because" } })],
    ["POST /api/pcr: a flag that is not boolean", () => postPcr(user, pcrBody({ form: { "safety-critical": "yes" } }))],
    ["POST /api/pcr: html that is not text", () => postPcr(user, pcrBody({ form: { "reason-for-change": 42 } }))],
    ["POST /api/pcr: affectedParties not a list", () => postPcr(user, { ...pcrBody(), affectedParties: "everyone" })],
    [
      "POST /api/pcr: a party id that is not a uuid",
      () => postPcr(user, { ...pcrBody(), affectedParties: [{ Name: { value: "bob" }, Signature: false }] }),
    ],
    [
      "POST /api/pcr: an unknown role",
      () => postPcr(user, pcrBody({ signatures: [...emptyChain().slice(0, 5), { Name: "CEO", Signature: false }] })),
    ],
    ["GET /api/pcr/[id]: not a uuid", () => getById(user, "not-a-uuid")],
    ["GET /api/singlePcr: no id", () => as(user, singlePcrRoute, { path: "/api/singlePcr" })],
    ["GET /api/singlePcr: not a uuid", () => getSingle(user, "12")],
    ["PUT /api/pcr: no id", () => as(user, pcrRoute, { method: "PUT", path: "/api/pcr", body: { form: {} } })],
    ["PUT /api/pcr: a flag that is not boolean", (id) => putPcr(user, id, { form: { "new-suggestion": 1 } })],
    ["PUT /api/pcr: not JSON", (id) => putPcr(user, id, "nope")],
    ["DELETE /api/pcr: not a uuid", () => deletePcrCall(user, "x")],
    ["signatures: no pcrId", () => postSignatures(user, { signatures: emptyChain() })],
    ["signatures: five slots", (id) => postSignatures(user, { pcrId: id, signatures: emptyChain().slice(1) })],
    [
      "signatures: a number as signature",
      (id) =>
        postSignatures(user, {
          pcrId: id,
          signatures: emptyChain().map((s, i) => (i === 0 ? { ...s, Signature: 7 } : s)),
        }),
    ],
    [
      "signatures: not JSON",
      () => as(user, signaturesRoute, { method: "POST", path: "/api/pcr/signatures", body: "[" }),
    ],
    ["affectedParties: no list", (id) => postParties(user, { pcrId: id })],
    ["affectedParties: no Name", (id) => postParties(user, { pcrId: id, affectedParties: [{ Signature: "Me" }] })],
    [
      "affectedParties: pcrId not a uuid",
      () =>
        as(user, affectedPartiesRoute, {
          method: "POST",
          path: "/api/pcr/affectedParties",
          body: { pcrId: 1, affectedParties: [] },
        }),
    ],
    ["clonePcr: no old_pcr", () => clone(user, {})],
    ["clonePcr: a serial of the wrong shape", () => clone(user, { old_pcr: { serial_num: "abc" } })],
  ];

  it.each(MALFORMED)("%s: 400 with issues, nothing changed", async (_name, run) => {
    const pcrs = await allPcrIds();
    const before = await pcrRow(doc._id);
    const emails = await emailCount();
    expectIssues(await run(doc._id));
    expect(await allPcrIds()).toEqual(pcrs);
    expect(await pcrRow(doc._id)).toEqual(before);
    expect(await emailCount()).toBe(emails);
  });

  it("bodies over 1 MiB are 413 on every writing endpoint", async () => {
    const huge = JSON.stringify({ ...pcrBody(), padding: "x".repeat(1024 * 1024) });
    const results = [
      await postPcr(user, huge),
      await putPcr(user, doc._id, huge),
      await postSignatures(user, huge),
      await postParties(user, huge),
      await clone(user, huge),
      // A drawn signature so large that the whole body is over the limit.
      await postSignatures(user, {
        pcrId: doc._id,
        signatures: emptyChain().map((s, i) => (i === 0 ? { ...s, Signature: pngOfSize(900 * 1024) } : s)),
      }),
    ];
    for (const res of results) expectError(res, 413);
    expect((await pcrRow(doc._id))!.signatures.every((s) => s.state === "unsigned")).toBe(true);
  });

  it("methods a route does not have are 405", async () => {
    const res = await as(user, pcrByIdRoute, { method: "POST", path: `/api/pcr/${doc._id}`, params: { id: doc._id } });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("GET");
  });
});

// =============================================================================================
// POST /api/pcr

describe("POST /api/pcr", () => {
  let originator: PublicUser;
  let party: PublicUser;
  let party2: PublicUser;
  let vp: PublicUser;
  let vp2: PublicUser;

  beforeAll(async () => {
    [originator, party, party2, vp, vp2] = await Promise.all([
      makeUser({ name: "Nora New", department: "engineering" }),
      makeUser({ name: "Paul Party", department: "operations" }),
      makeUser({ name: "Petra Party", department: "fleet" }),
      makeUser({ name: "Victor Vp", department: "fleet", position: "VP Fleet Management" }),
      makeUser({ name: "Vanessa Vp", department: "fleet", position: "VP Fleet Management" }),
    ]);
    // Inactive people are never emailed.
    const [oldVp, oldAdmin] = await Promise.all([
      makeUser({ name: "Retired Vp", position: "VP Fleet Management" }),
      makeAdmin({ name: "Retired Admin" }),
      makeAdmin({ name: "Active Admin" }),
    ]);
    await deactivate(oldVp!);
    await deactivate(oldAdmin!);
  });

  it("answers { success: true, data } with a pending PCR, its serial, and the chain built", async () => {
    const res = await postPcr(originator, pcrBody({ parties: [party], form: { "safety-critical": true } }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.success).toBe(true);
    const data = res.body.data;
    expect(data._id).toMatch(UUID);
    expect(data.chatId).toMatch(UUID);
    expect(data.status).toBe("pending");
    expect(data.cloned).toBe(false);
    expect(data.previous_serial_num).toBeNull();
    expect(data.serial_num).toMatch(SERIAL);
    expect(data.serial_num.endsWith(`-${YEAR}`)).toBe(true);
    expect(new Date(data.createdAt).toISOString()).toBe(data.createdAt);
    expect(data.originator_id).toBe(originator._id);
    expect(data.originator).toMatchObject({ _id: originator._id, name: "Nora New", email: originator.email });
    expect(data.form).toMatchObject({
      originator: originator._id,
      "safety-critical": true,
      "procedure-change": true,
      "new-suggestion": false,
    });
    expect(data.signatures).toEqual(
      PCR_ROLES.map((Name) => expect.objectContaining({ Name, Signature: false, signatureDate: null, Comments: "" })),
    );
    expect(data.affectedParties).toEqual([
      expect.objectContaining({ Name: { value: party._id }, Signature: false, Comments: "" }),
    ]);
    // What the API answered is what a read answers.
    const read = await getById(originator, data._id);
    expect(read.body.data).toEqual(data);
  });

  it("the caller is the originator whatever form.originator says", async () => {
    const data = await createPcrOk(originator, { form: { originator: party._id } });
    expect(data.originator_id).toBe(originator._id);
    expect(data.form.originator).toBe(originator._id);
  });

  it("serials count PCRs on their own, apart from MOCs", async () => {
    const first = await createPcrOk(originator);
    const mocs: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await as(originator, newmocRoute, { method: "POST", path: "/api/newmoc", body: newMocBody(party) });
      expect(res.status, res.text).toBe(200);
      mocs.push(res.body.data.serial_num);
    }
    const second = await createPcrOk(originator);
    const count = (serial: string) => Number(SERIAL.exec(serial)![1]);
    expect(count(second.serial_num)).toBe(count(first.serial_num) + 1);
    expect(count(mocs[1]!)).toBe(count(mocs[0]!) + 1);
    // This file's MOC counter started at 1 and is well behind the PCR one.
    expect(mocs[0]).toBe(`1-${YEAR}`);
    expect(count(first.serial_num)).toBeGreaterThan(1);
  });

  it("accepts the six roles sent in chain order, unsigned", async () => {
    const res = await postPcr(originator, pcrBody({ signatures: emptyChain() }));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.signatures.map((s: { Name: string }) => s.Name)).toEqual([...PCR_ROLES]);
  });

  const BAD_SIGNATURES: [string, () => unknown][] = [
    ["in the wrong order", () => [...emptyChain()].reverse()],
    ["with a role missing", () => emptyChain().slice(0, 5)],
    ["with a role twice", () => [...emptyChain().slice(0, 5), { Name: "Director HSEQ", Signature: false }]],
    ["with one already signed", () => emptyChain().map((s, i) => (i === 0 ? { ...s, Signature: "Nora New" } : s))],
    ["with one already drawn", () => emptyChain().map((s, i) => (i === 2 ? { ...s, Signature: TINY_PNG } : s))],
    ["with one commented (null)", () => emptyChain().map((s, i) => (i === 1 ? { ...s, Signature: null } : s))],
  ];

  it.each(BAD_SIGNATURES)("signatures %s: 400, nothing created, no email", async (_name, signatures) => {
    const pcrs = await allPcrIds();
    const emails = await emailCount();
    expectIssues(await postPcr(originator, pcrBody({ signatures: signatures() })));
    expect(await allPcrIds()).toEqual(pcrs);
    expect(await emailCount()).toBe(emails);
  });

  it.each([
    ["unknown", async () => [{ _id: unknownId() }]],
    [
      "inactive",
      async () => {
        const gone = await makeUser({ name: "Gone Party" });
        await deactivate(gone);
        return [gone];
      },
    ],
    ["listed twice", async () => [party, party2, party]],
  ] as [string, () => Promise<{ _id: string }[]>][])(
    "an affected party %s: 400, nothing created",
    async (_name, parties) => {
      const list = await parties();
      const pcrs = await allPcrIds();
      const emails = await emailCount();
      expectIssues(await postPcr(originator, pcrBody({ parties: list })));
      expect(await allPcrIds()).toEqual(pcrs);
      expect(await emailCount()).toBe(emails);
    },
  );

  it("an affected party already signed: 400", async () => {
    const body = pcrBody({ parties: [party] });
    Object.assign(body.affectedParties[0]!, { Signature: "Paul Party" });
    expectIssues(await postPcr(originator, body));
  });

  it("sanitises every html field: no script, event handler or javascript: URL survives", async () => {
    const dirty =
      '<p onclick="steal()">Keep <strong>this</strong><script>alert(1)</script>' +
      '<img src="x" onerror="alert(2)"><a href="javascript:alert(3)">link</a></p>';
    const data = await createPcrOk(originator, {
      form: { "manual-procedure": dirty, "suggestion-details": dirty, "reason-for-change": dirty },
    });
    const stored = (await pcrRow(data._id))!.form;
    for (const field of ["manual-procedure", "suggestion-details", "reason-for-change"] as const) {
      for (const html of [data.form[field] as string, stored[field]]) {
        expect(html).toContain("Keep <strong>this</strong>");
        expect(html).toContain("link");
        expect(html).not.toMatch(/<script|alert\(1\)|onerror|onclick|javascript:/i);
      }
    }
    // PUT goes through the same cleaning.
    const put = await putPcr(originator, data._id, { form: { "reason-for-change": dirty } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data.form["reason-for-change"]).not.toMatch(/<script|onerror|onclick|javascript:/i);
  });

  it("emails every active VP Fleet Management holder, every active admin and every affected party, once each", async () => {
    // The second party also holds the VP position: one message all the same.
    const vpParty = await makeUser({ name: "Vera VpParty", position: "VP Fleet Management" });
    const data = await createPcrOk(originator, { parties: [party, party2, vpParty] });
    const rows = await emailRows(data._id);
    const expected = [
      ...new Set([
        ...(await activeEmails({ positions: ["VP Fleet Management"], admins: true })),
        ...emailsOf(party, party2, vpParty),
      ]),
    ].sort();
    expect(rows.map((r) => r.toEmail).sort()).toEqual(expected);
    expect(expected).toEqual(expect.arrayContaining(emailsOf(vp, vp2)));
    expect(rows.every((r) => r.recordType === "pcr")).toBe(true);
    // Not the originator (not an admin, not a VP), nor anyone inactive.
    const addresses = rows.map((r) => r.toEmail);
    expect(addresses).not.toContain(originator.email);
    const inactive = await getDb().execute<{ email: string }>(sql`select email from users where not active`);
    expect(inactive.length).toBeGreaterThanOrEqual(2);
    for (const { email } of inactive) expect(addresses).not.toContain(email);
  });
});

// =============================================================================================
// The chain

describe("the signature chain", () => {
  let originator: PublicUser;
  let party: PublicUser;
  let otherParty: PublicUser;
  let outsider: PublicUser;
  let admin: PublicUser;
  let holders: Awaited<ReturnType<typeof makeHolders>>;
  let signers: Record<PcrRole, PublicUser>;
  let secondCoordinator: PublicUser;
  let formerDirector: PublicUser;

  beforeAll(async () => {
    holders = await makeHolders("(chain)");
    [originator, party, otherParty, outsider, admin] = await Promise.all([
      makeUser({ name: "Cora Chain", department: "engineering" }),
      makeUser({ name: "Pete Party", department: "operations" }),
      makeUser({ name: "Quinn Party", department: "operations" }),
      makeUser({ name: "Oscar Outsider", department: "engineering" }),
      makeAdmin({ name: "Abe Admin" }),
    ]);
    signers = { "Change Originator": originator, ...holders };
    // Two holders of one position are both emailed when it is their turn; a deactivated one is not.
    secondCoordinator = await makeUser({ name: "Second Coordinator", position: "HSEQ Coordinator" });
    formerDirector = await makeUser({ name: "Former Director", position: "Director HSEQ" });
    await deactivate(formerDirector);
  });

  const fresh = () => createPcrOk(originator, { parties: [party] });

  it("refuses a slot out of order (409) and changes nothing", async () => {
    const doc = await fresh();
    const before = await pcrRow(doc._id);
    expectError(await sign(holders["VP Fleet Management"], doc._id, "VP Fleet Management"), 409);
    await signOk(originator, doc._id, "Change Originator");
    const middle = await pcrRow(doc._id);
    expectError(await sign(holders.President, doc._id, "President"), 409);
    expectError(await sign(holders["HSEQ Coordinator"], doc._id, "HSEQ Coordinator"), 409);
    expect(await pcrRow(doc._id)).toEqual(middle);
    expect(before!.signatures.every((s) => s.state === "unsigned")).toBe(true);
  });

  it("refuses the wrong person (403): another position, the originator, an admin, a party, an outsider", async () => {
    const doc = await fresh();
    // Only the originator holds "Change Originator".
    for (const who of [holders["VP Fleet Management"], admin, party, outsider]) {
      expectError(await sign(who, doc._id, "Change Originator"), 403);
    }
    await signOk(originator, doc._id, "Change Originator");
    const before = await pcrRow(doc._id);
    for (const who of [holders["HSEQ Coordinator"], holders.President, originator, admin, party, outsider]) {
      expectError(await sign(who, doc._id, "VP Fleet Management"), 403);
    }
    expect(await pcrRow(doc._id)).toEqual(before);
  });

  it("refuses a second signature on a signed slot (409); sending the array back unchanged is a no-op", async () => {
    const doc = await fresh();
    const signed = await signOk(originator, doc._id, "Change Originator", { signature: "Cora Chain" });
    const before = await pcrRow(doc._id);
    expectError(await sign(originator, doc._id, "Change Originator", { signature: "Cora C. Chain" }), 409);
    expectError(await sign(originator, doc._id, "Change Originator", { signature: TINY_PNG }), 409);
    expect(await pcrRow(doc._id)).toEqual(before);
    const { result, to } = await emailsDuring(doc._id, async () =>
      postSignatures(originator, { pcrId: doc._id, signatures: await currentChain(doc._id) }),
    );
    expect(result.status, result.text).toBe(200);
    expect(to).toEqual([]);
    expect(signatureOf(result.body.data, "Change Originator")).toEqual(signatureOf(signed, "Change Originator"));
  });

  it("cannot be forged through the whole array: changing someone else's slot is 403", async () => {
    const doc = await fresh();
    await signOk(originator, doc._id, "Change Originator");
    const chain = await currentChain(doc._id);
    chain[0]!.Signature = "Forged Name";
    chain[1]!.Signature = "Victor";
    expectError(
      await postSignatures(holders["VP Fleet Management"], { pcrId: doc._id, signatures: chain, password: PASSWORD }),
      403,
    );
    // Nor can a slot be unsigned by sending it back as false.
    const unsign = await currentChain(doc._id);
    unsign[0]!.Signature = false;
    const res = await postSignatures(originator, { pcrId: doc._id, signatures: unsign });
    expect(res.status, res.text).toBe(200);
    expect(signatureOf(res.body.data, "Change Originator").Signature).toBe(originator.name);
  });

  it("keeps the positions of the array: a slot sent under another name is 400", async () => {
    const doc = await fresh();
    const chain = await currentChain(doc._id);
    [chain[0], chain[1]] = [chain[1]!, chain[0]!];
    expectIssues(await postSignatures(originator, { pcrId: doc._id, signatures: chain }));
  });

  it("stores a comment without a signature as Signature: null, before and after the holder's turn", async () => {
    const doc = await fresh();
    const director = holders["Director HSEQ"];
    const early = await emailsDuring(doc._id, () =>
      sign(director, doc._id, "Director HSEQ", { signature: false, comments: "Please attach the risk assessment" }),
    );
    expect(early.result.status, early.result.text).toBe(200);
    expect(early.to).toEqual([]);
    const data = early.result.body.data;
    expect(data.signatures.map((s: { Name: string }) => s.Name)).toEqual([...PCR_ROLES]);
    expect(signatureOf(data, "Director HSEQ")).toMatchObject({
      Signature: null,
      signatureDate: null,
      Comments: "Please attach the risk assessment",
    });
    for (const role of PCR_ROLES.filter((r) => r !== "Director HSEQ")) {
      expect(signatureOf(data, role)).toMatchObject({ Signature: false, signatureDate: null, Comments: "" });
    }
    // A comment is not a signature: the chain still starts with the originator.
    expectError(await sign(holders.President, doc._id, "President"), 409);
    await signChain(doc._id, signers, PCR_ROLES.slice(0, 4));
    // Their turn: the comment stays with the signature.
    const signedDoc = await signOk(director, doc._id, "Director HSEQ", { signature: director.name });
    expect(signatureOf(signedDoc, "Director HSEQ")).toMatchObject({
      Signature: director.name,
      Comments: "Please attach the risk assessment",
    });
    const date = signatureOf(signedDoc, "Director HSEQ").signatureDate;
    expect(date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // After their turn they may still change their comment; the signature and its date stay.
    const after = await sign(director, doc._id, "Director HSEQ", {
      signature: director.name,
      comments: "Risk assessment attached, thanks",
    });
    expect(after.status, after.text).toBe(200);
    expect(signatureOf(after.body.data, "Director HSEQ")).toMatchObject({
      Signature: director.name,
      signatureDate: date,
      Comments: "Risk assessment attached, thanks",
    });
    // Someone else cannot comment on that slot.
    expectError(
      await sign(holders.President, doc._id, "Director HSEQ", { signature: director.name, comments: "Not mine" }),
      403,
    );
    // The originator comments without signing, before their own signature.
    const other = await fresh();
    const commented = await sign(originator, other._id, "Change Originator", { signature: null, comments: "Draft" });
    expect(commented.status, commented.text).toBe(200);
    expect(signatureOf(commented.body.data, "Change Originator")).toMatchObject({ Signature: null, Comments: "Draft" });
  });

  it("emails the holders of the next role after each signature (active ones only)", async () => {
    const doc = await fresh();
    const allHolders = async (role: PcrRole) => activeEmails({ positions: [role] });
    const sent: Record<string, string[]> = {};
    for (let i = 0; i < PCR_ROLES.length; i++) {
      const role = PCR_ROLES[i]!;
      const { to } = await emailsDuring(doc._id, () => signOk(signers[role], doc._id, role));
      const next = PCR_ROLES[i + 1];
      sent[role] = to;
      // After the President nobody is next in the chain; the party has not signed, so no completion.
      expect(to, `after ${role}`).toEqual(next ? await allHolders(next) : []);
    }
    expect(sent["VP Fleet Management"]).toEqual(
      expect.arrayContaining(emailsOf(holders["HSEQ Coordinator"], secondCoordinator)),
    );
    expect(sent["Group HSEQ Manager"]).toContain(holders["Director HSEQ"].email);
    expect(sent["Group HSEQ Manager"]).not.toContain(formerDirector.email);
    expect(sent["Change Originator"]).toContain(holders["VP Fleet Management"].email);
  });

  it("signs with a drawn PNG (up to 200 KB) or a typed full name; anything else is 400", async () => {
    const doc = await fresh();
    const before = await pcrRow(doc._id);
    const bad: [string, unknown][] = [
      ["a PNG over 200 KB", pngOfSize(200 * 1024 + 1)],
      ["a PNG far over 200 KB", pngOfSize(400 * 1024)],
      ["a JPEG data URL", "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD"],
      ["an HTML data URL", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="],
      ["an SVG data URL", "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4="],
      ["a PNG data URL that is not base64", "data:image/png;base64,<svg onload=alert(1)>"],
      ["a name of one letter", "C"],
      ["a name of blanks around one letter", "   C   "],
      ["a name that is too long", "N".repeat(121)],
      ["true", true],
    ];
    for (const [name, value] of bad) {
      const chain = (await currentChain(doc._id)).map((s, i) => (i === 0 ? { ...s, Signature: value } : s));
      const res = await postSignatures(originator, { pcrId: doc._id, signatures: chain });
      expect(res.status, `${name}: ${res.text}`).toBe(400);
      expect(res.body.issues?.[0]?.path, name).toMatch(/^signatures\.0\.Signature/);
      const partyRes = await postParties(party, {
        pcrId: doc._id,
        affectedParties: [{ Name: { value: party._id }, Signature: value, Comments: "" }],
      });
      expect(partyRes.status, `party, ${name}: ${partyRes.text}`).toBe(400);
    }
    expect(await pcrRow(doc._id)).toEqual(before);
    // Exactly 200 KB is fine, and comes back as it was drawn.
    const png = pngOfSize(200 * 1024);
    const ok = await signOk(originator, doc._id, "Change Originator", { signature: png });
    expect(signatureOf(ok, "Change Originator").Signature).toBe(png);
    const drawn = await signOk(holders["VP Fleet Management"], doc._id, "VP Fleet Management", {
      signature: TINY_PNG,
    });
    expect(signatureOf(drawn, "VP Fleet Management").Signature).toBe(TINY_PNG);
    // A typed name is kept without its surrounding blanks.
    const typed = await signOk(holders["HSEQ Coordinator"], doc._id, "HSEQ Coordinator", {
      signature: `  ${holders["HSEQ Coordinator"].name} `,
    });
    expect(signatureOf(typed, "HSEQ Coordinator").Signature).toBe(holders["HSEQ Coordinator"].name);
    expect(signatureOf(typed, "HSEQ Coordinator").signedBy._id).toBe(holders["HSEQ Coordinator"]._id);
  });

  it("affected parties sign and comment for themselves only", async () => {
    const doc = await createPcrOk(originator, { parties: [party, otherParty] });
    const before = await pcrRow(doc._id);
    // For someone else: 403, whoever tries.
    expectError(await partySign(party, doc._id, { partyId: otherParty._id }), 403);
    expectError(await partySign(originator, doc._id, { partyId: party._id }), 403);
    expectError(await partySign(admin, doc._id, { partyId: party._id }), 403);
    expectError(await partySign(holders.President, doc._id, { partyId: party._id }), 403);
    // Someone who is not on this PCR, as an entry: 400 (they can read it, being an admin).
    const notOnIt = await partySign(admin, doc._id);
    expectIssues(notOnIt);
    expect(notOnIt.body.issues[0].path).toBe("affectedParties.0.Name.value");
    // An outsider cannot even read it.
    expectError(await partySign(outsider, doc._id), 403);
    expect(await pcrRow(doc._id)).toEqual(before);
    // A comment alone is Signature: null; then their signature, at any point of the chain.
    const commented = await partySign(party, doc._id, { signature: null, comments: "Training needed first" });
    expect(commented.status, commented.text).toBe(200);
    expect(commented.body.data.affectedParties[0]).toMatchObject({
      Name: { value: party._id },
      Signature: null,
      signatureDate: null,
      Comments: "Training needed first",
    });
    const signedRes = await partySign(party, doc._id, { signature: TINY_PNG });
    expect(signedRes.status, signedRes.text).toBe(200);
    expect(signedRes.body.data.affectedParties[0]).toMatchObject({
      Signature: TINY_PNG,
      Comments: "Training needed first",
    });
    expect(signedRes.body.data.affectedParties[1]).toMatchObject({ Signature: false });
    expect(signedRes.body.data.status).toBe("pending");
    // Signing twice: 409.
    expectError(await partySign(party, doc._id, { signature: "Pete Party" }), 409);
  });
});

// =============================================================================================
// Completion

describe("completion", () => {
  let originator: PublicUser;
  let partyA: PublicUser;
  let partyB: PublicUser;
  let signers: Record<PcrRole, PublicUser>;

  beforeAll(async () => {
    const holders = await makeHolders("(completion)");
    [originator, partyA, partyB] = await Promise.all([
      makeUser({ name: "Fay Finisher", department: "engineering" }),
      makeUser({ name: "Alf Party", department: "operations" }),
      makeUser({ name: "Bea Party", department: "fleet" }),
    ]);
    signers = { "Change Originator": originator, ...holders };
  });

  /** Everyone the completion emails go to: the originator, every signer, every party. */
  // Everyone involved but the person whose signature finished it (nobody is told of their own action).
  const completionRecipients = (actor: { email: string }) =>
    emailsOf(originator, ...POSITION_ROLES.map((r) => signers[r]), partyA, partyB).filter((e) => e !== actor.email);

  it("with the chain last: the President's signature finishes it", async () => {
    const doc = await createPcrOk(originator, { parties: [partyA, partyB] });
    for (const p of [partyA, partyB]) {
      const { result, to } = await emailsDuring(doc._id, () => partySign(p, doc._id));
      expect(result.status, result.text).toBe(200);
      expect(result.body.data.status).toBe("pending");
      expect(to).toEqual([]);
    }
    const before = await signChain(doc._id, signers, PCR_ROLES.slice(0, 5));
    expect(before.status).toBe("pending");
    expect(before.finishedAt).toBeNull();
    const { result, to } = await emailsDuring(doc._id, () => signOk(signers.President, doc._id, "President"));
    expect(result.status).toBe("finished");
    expect(new Date(result.finishedAt).toISOString()).toBe(result.finishedAt);
    expect(to).toEqual(completionRecipients(signers.President));
    expect((await pcrRow(doc._id))!.status).toBe("finished");
  });

  it("with a party last: the last party's signature finishes it, and a comment alone does not", async () => {
    const doc = await createPcrOk(originator, { parties: [partyA, partyB] });
    await signChain(doc._id, signers);
    const afterChain = await getById(originator, doc._id);
    expect(afterChain.body.data.status).toBe("pending");
    expect((await partySign(partyA, doc._id)).body.data.status).toBe("pending");
    const commented = await partySign(partyB, doc._id, { signature: null, comments: "Looks fine" });
    expect(commented.body.data.status).toBe("pending");
    const { result, to } = await emailsDuring(doc._id, () => partySign(partyB, doc._id, { signature: TINY_PNG }));
    expect(result.status, result.text).toBe(200);
    expect(result.body.data.status).toBe("finished");
    expect(to).toEqual(completionRecipients(partyB));
  });

  it("without affected parties the chain alone finishes it", async () => {
    const doc = await createPcrOk(originator);
    expect((await signChain(doc._id, signers, PCR_ROLES.slice(0, 5))).status).toBe("pending");
    const { result, to } = await emailsDuring(doc._id, () => signOk(signers.President, doc._id, "President"));
    expect(result.status).toBe("finished");
    expect(to).toEqual(
      emailsOf(originator, ...POSITION_ROLES.map((r) => signers[r])).filter((e) => e !== signers.President.email),
    );
  });

  it("after it is finished, signing is 409; comments are still taken", async () => {
    const doc = await createPcrOk(originator, { parties: [partyA] });
    await signChain(doc._id, signers);
    await partySign(partyA, doc._id);
    expect((await pcrRow(doc._id))!.status).toBe("finished");
    const before = await pcrRow(doc._id);
    expectError(await sign(signers.President, doc._id, "President", { signature: "Again" }), 409);
    expectError(await partySign(partyA, doc._id, { signature: "Again" }), 409);
    expect(await pcrRow(doc._id)).toEqual(before);
    const comment = await sign(signers.President, doc._id, "President", {
      signature: signers.President.name,
      comments: "For the record",
    });
    expect(comment.status, comment.text).toBe(200);
    expect(comment.body.data.status).toBe("finished");
    expect(signatureOf(comment.body.data, "President").Comments).toBe("For the record");
  });
});

// =============================================================================================
// Two signers at once

describe("concurrency", () => {
  it("two holders of one position submitting the same slot at once: one 200, one 409, signed once", async () => {
    const holders = await makeHolders("(race)");
    const originator = await makeUser({ name: "Rae Racer" });
    const rival = await makeUser({ name: "Rival Vp", position: "VP Fleet Management", department: "fleet" });
    const vp = holders["VP Fleet Management"];
    for (let round = 0; round < 3; round++) {
      const doc = await createPcrOk(originator);
      await signOk(originator, doc._id, "Change Originator");
      // Both read the PCR before either signs.
      const [chainA, chainB] = await Promise.all([
        currentChain(doc._id).then((c) => c.map((s, i) => (i === 1 ? { ...s, Signature: vp.name } : s))),
        currentChain(doc._id).then((c) => c.map((s, i) => (i === 1 ? { ...s, Signature: rival.name } : s))),
      ]);
      await Promise.all([tokenOf(vp), tokenOf(rival)]);
      const { result, to } = await emailsDuring(doc._id, () =>
        Promise.all([
          postSignatures(vp, { pcrId: doc._id, signatures: chainA, password: PASSWORD }),
          postSignatures(rival, { pcrId: doc._id, signatures: chainB, password: PASSWORD }),
        ]),
      );
      expect(result.map((r) => r.status).sort(), result.map((r) => r.text).join("\n")).toEqual([200, 409]);
      const winner = result[0]!.status === 200 ? vp : rival;
      const row = (await pcrRow(doc._id))!;
      expect(row.signatures[1]).toMatchObject({ state: "signed", signature: winner.name, signedBy: winner._id });
      expect(row.signatures.filter((s) => s.state === "signed")).toHaveLength(2);
      // The next role was emailed once, not twice.
      expect(to).toEqual(await activeEmails({ positions: ["HSEQ Coordinator"] }));
    }
  });

  it("an affected party submitting twice at once signs once", async () => {
    const originator = await makeUser({ name: "Dora Double" });
    const party = await makeUser({ name: "Dan Double" });
    const doc = await createPcrOk(originator, { parties: [party] });
    await tokenOf(party);
    const results = await Promise.all(
      ["Dan Double", " dan  DOUBLE "].map((Signature) =>
        postParties(party, { pcrId: doc._id, affectedParties: [{ Name: { value: party._id }, Signature }] }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const row = (await pcrRow(doc._id))!;
    expect(row.affectedParties[0]!.state).toBe("signed");
  });
});

// =============================================================================================
// Clone

describe("POST /api/clonePcr", () => {
  let originator: PublicUser;
  let party: PublicUser;
  let cloner: PublicUser;
  let outsider: PublicUser;
  let source: PcrDoc;

  beforeAll(async () => {
    const holders = await makeHolders("(clone)");
    [originator, party, outsider] = await Promise.all([
      makeUser({ name: "Sam Source", department: "engineering" }),
      makeUser({ name: "Cleo Party", department: "operations" }),
      makeUser({ name: "Ozzy Outsider", department: "operations" }),
    ]);
    cloner = holders["Group HSEQ Manager"];
    source = await createPcrOk(originator, {
      parties: [party],
      form: { "safety-critical": true, "suggestion-details": "<p>Use the <em>new</em> checklist</p>" },
    });
    await signChain(source._id, { "Change Originator": originator, ...holders }, PCR_ROLES.slice(0, 3));
    await sign(holders["Director HSEQ"], source._id, "Director HSEQ", { signature: null, comments: "Later" });
    await partySign(party, source._id, { signature: TINY_PNG, comments: "Agreed" });
    source = (await getById(originator, source._id)).body.data;
  });

  it("copies the form, with the caller as originator and every signature reset", async () => {
    const before = await pcrRow(source._id);
    // A client sends the PCR as it read it.
    const { _id: _ignored, ...oldPcr } = source;
    const res = await clone(cloner, { old_pcr: oldPcr });
    expect(res.status, res.text).toBe(200);
    const copy = res.body.data;
    expect(copy._id).not.toBe(source._id);
    expect(copy.serial_num).toMatch(SERIAL);
    expect(copy.serial_num).not.toBe(source.serial_num);
    expect(copy.cloned).toBe(true);
    expect(copy.previous_serial_num).toBe(source.serial_num);
    expect(copy.status).toBe("pending");
    expect(copy.chatId).not.toBe(source.chatId);
    expect(copy.originator_id).toBe(cloner._id);
    expect(copy.form).toEqual({ ...source.form, originator: cloner._id });
    expect(copy.signatures).toEqual(
      PCR_ROLES.map((Name) => expect.objectContaining({ Name, Signature: false, signatureDate: null, Comments: "" })),
    );
    expect(copy.affectedParties).toEqual([
      expect.objectContaining({ Name: { value: party._id }, Signature: false, signatureDate: null, Comments: "" }),
    ]);
    // The source is untouched, and the copy is emailed like a new PCR.
    expect(await pcrRow(source._id)).toEqual(before);
    const to = (await emailRows(copy._id)).map((r) => r.toEmail).sort();
    expect(to).toEqual(
      [...new Set([...(await activeEmails({ positions: ["VP Fleet Management"], admins: true })), party.email])].sort(),
    );
    // The cloner now owns the copy, and the chain starts with them.
    expectError(await sign(originator, copy._id, "Change Originator"), 403);
    await signOk(cloner, copy._id, "Change Originator");
  });

  it("takes just the serial number, and clones a finished PCR too", async () => {
    const res = await clone(party, { old_pcr: { serial_num: source.serial_num } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.originator_id).toBe(party._id);
    expect(res.body.data.previous_serial_num).toBe(source.serial_num);
  });

  it("a PCR the caller cannot see: 403, nothing created", async () => {
    const pcrs = await allPcrIds();
    expectError(await clone(outsider, { old_pcr: { serial_num: source.serial_num } }), 403);
    expect(await allPcrIds()).toEqual(pcrs);
  });

  it("an unknown serial: 404", async () => {
    expectError(await clone(cloner, { old_pcr: { serial_num: `424242-${YEAR}` } }), 404);
  });
});

// =============================================================================================
// Summary

describe("GET /api/pcr/summary", () => {
  it("has only the lightweight fields, and never a drawn signature", async () => {
    const holders = await makeHolders("(summary)");
    const originator = await makeUser({ name: "Sue Summary" });
    const party = await makeUser({ name: "Sid Party" });
    const doc = await createPcrOk(originator, { parties: [party] });
    await signOk(originator, doc._id, "Change Originator", { signature: pngOfSize(150 * 1024) });
    await sign(holders["VP Fleet Management"], doc._id, "VP Fleet Management", {
      signature: null,
      comments: "Reading it",
    });
    await partySign(party, doc._id, { signature: TINY_PNG });

    for (const who of [originator, party, holders.President]) {
      const res = await as(who, summaryRoute, { path: "/api/pcr/summary" });
      expect(res.status).toBe(200);
      expect(res.text).not.toContain("data:");
      expect(res.text).not.toContain("base64");
      expect(res.text.length).toBeLessThan(100 * 1024);
      const item = (res.body.data as { _id: string }[]).find((p) => p._id === doc._id) as PcrDoc;
      expect(Object.keys(item).sort()).toEqual(
        [
          "_id",
          "serial_num",
          "chatId",
          "status",
          "createdAt",
          "cloned",
          "signatures",
          "affectedParties",
          "originator",
        ].sort(),
      );
      expect(item).toMatchObject({
        _id: doc._id,
        serial_num: doc.serial_num,
        chatId: doc.chatId,
        status: "pending",
        createdAt: doc.createdAt,
        cloned: false,
      });
      expect(item.originator).toEqual({
        _id: originator._id,
        name: "Sue Summary",
        email: originator.email,
        department: originator.department,
      });
      expect(item.signatures.map((s: { Name: string }) => s.Name)).toEqual([...PCR_ROLES]);
      expect(item.signatures[0].Signature).toBe(true);
      expect(item.signatures[1]).toMatchObject({ Signature: null, Comments: "Reading it" });
      expect(item.signatures[2].Signature).toBe(false);
      expect(item.affectedParties).toEqual([{ Name: { value: party._id }, Signature: true, Comments: "" }]);
    }
  });
});

// =============================================================================================
// Query counts

describe("list queries", () => {
  const counter: QueryCounter = { count: 0 };
  const holder = globalThis as { __cmQueryCounter?: QueryCounter };

  beforeAll(async () => {
    // The pool reads the hook when it is made: install it, then make a new pool.
    holder.__cmQueryCounter = counter;
    await closeDb();
  });
  afterAll(async () => {
    delete holder.__cmQueryCounter;
    await closeDb();
  });

  it("GET /api/allPcr, /api/getAllPcr and /api/pcr/summary cost the same with 5 PCRs as with 50", async () => {
    const admin = await makeAdmin({ name: "Quentin Queries" });
    const member = await makeUser({ name: "Mia Member", department: "operations" });
    const people = await Promise.all(Array.from({ length: 6 }, (_, i) => makeUser({ name: `Person ${i}` })));
    const holders = await makeHolders("(queries)");
    const addPcrs = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const author = people[i % people.length]!;
        const parties = [people[(i + 1) % people.length]!, ...(i % 2 === 0 ? [member] : [])];
        const doc = await createPcr(author, newPcrSchema.parse(pcrBody({ parties })));
        // Every third is partly signed, so signers are people to load too.
        if (i % 3 === 0) {
          await signChain(doc._id, { "Change Originator": author, ...holders }, PCR_ROLES.slice(0, 1 + (i % 5)));
        }
      }
    };
    const counted = async (who: PublicUser, route: RouteModule, path: string) => {
      const token = await tokenOf(who);
      const start = counter.count;
      const res = await api(route, { path, token });
      expect(res.status, res.text).toBe(200);
      return { queries: counter.count - start, length: (res.body.data as unknown[]).length };
    };
    const measure = async () => {
      const out: Record<string, { queries: number; length: number }> = {};
      for (const [path, route] of LISTS) {
        out[`admin ${path}`] = await counted(admin, route, path);
        out[`member ${path}`] = await counted(member, route, path);
      }
      return out;
    };
    await addPcrs(5);
    const few = await measure();
    await addPcrs(45);
    const many = await measure();
    expect(counter.count).toBeGreaterThan(0);
    for (const key of Object.keys(few)) {
      expect(many[key]!.length, key).toBeGreaterThan(few[key]!.length);
      expect(many[key]!.queries, key).toBe(few[key]!.queries);
      expect(many[key]!.queries, key).toBeLessThanOrEqual(4);
    }
    expect(many["member /api/allPcr"]!.length - few["member /api/allPcr"]!.length).toBe(23);
  });
});
