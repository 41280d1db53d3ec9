/**
 * Stored MOC documents (moc_documents, db/derived.ts): the lists and GET /api/singlemoc answer from
 * copies that deferred triggers rebuild at every commit. These tests check the copies never drift
 * from the documents built from the tables: after user edits, under concurrent edits and steps, and
 * when the definition changes.
 */
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { beforeAll, describe, expect, it } from "vitest";
import { mocListScope } from "~/models/authz/authz.server";
import { buildMocListJson, mocListBody } from "~/models/moc/moc-query.server";
import * as getAllMocRoute from "~/routes/api+/getAllMoc";
import * as newmocRoute from "~/routes/api+/newmoc";
import * as singlemocRoute from "~/routes/api+/singlemoc";
import * as usersRoute from "~/routes/api+/users";
import { getDb, inRequestTransaction } from "~/utils/db.server";
import { runStepForDocument } from "~/models/moc/moc-workflow.server";
import { DERIVED_HASH, syncDerivedObjects } from "#db/derived";
import { startBoss } from "#jobs/boss";
import { api } from "../helpers/api";
import { expectStoredDocumentsFresh } from "../helpers/db-state";
import { makeAdmin, makeUser, tokenFor } from "../helpers/factories";
import { createSession, revokeSession, sessionClaims } from "~/models/sign-in/session.server";
import { signToken } from "~/utils/token.server";
import { approverForm, hseqForm, type Cast } from "../helpers/moc";
import {
  createMocOk,
  deactivate,
  defaultStepBody,
  makeCast,
  mocAt,
  post,
  submitStep,
  tokenOf,
  type Doc,
} from "../helpers/moc-flow";
import * as addUserRoute from "~/routes/api+/addUser";

let cast: Cast;
let admin: Awaited<ReturnType<typeof makeAdmin>>;
let adminToken: string;

beforeAll(async () => {
  cast = await makeCast();
  admin = await makeAdmin();
  adminToken = await tokenOf(admin);
  await startBoss();
});

const rename = (user: { _id: string }, name: string) =>
  api(usersRoute, { method: "PUT", path: "/api/users", token: adminToken, body: { _id: user._id, name } });

describe("stored documents", () => {
  it("every MOC has one from its creation, equal to the built document", async () => {
    const moc = await mocAt("e", cast);
    const [row] = await getDb().execute<{ doc: string }>(sql`select doc from moc_documents where moc_id = ${moc._id}`);
    // The answer is the stored document with its stage read live (never stored: it depends on the date).
    const { stage, ...stored } = moc;
    expect(JSON.parse(row!.doc)).toEqual(stored);
    expect(stage).toBe("Implementation");
    await expectStoredDocumentsFresh();
  });

  it("a step answers with the document it stored, built once at the step's end, equal to the one built from the tables", async () => {
    const moc = await mocAt("c", cast);
    const res = await submitStep("hseq", cast.hseq, defaultStepBody("hseq", moc, cast));
    expect(res.status, res.text).toBe(200);
    const [row] = await getDb().execute<{ doc: string; built: string }>(
      sql`select doc, build_moc_document(moc_id) as built from moc_documents where moc_id = ${moc._id}`,
    );
    expect(res.text).toBe(`{"data":${row!.doc.slice(0, -1)},"stage":"Approval"},"status":200}`);
    expect(JSON.parse(row!.doc)).toEqual(JSON.parse(row!.built));
    expect(res.body.data.status).toBe("d");
    expect(res.body.data.logs.at(-1)).toMatchObject({ from: "c", to: "d" });
    await expectStoredDocumentsFresh();
  });

  it("two steps on one MOC in one transaction: the second answers, and stores, the document after it", async () => {
    const moc = await mocAt("c", cast);
    const [afterHseq, afterApproval] = await inRequestTransaction(async () => [
      await runStepForDocument("hseq", cast.hseq, moc._id, hseqForm("yes") as never),
      await runStepForDocument("approver", cast.approver, moc._id, approverForm("yes") as never),
    ]);
    expect(afterHseq.status).toBe("d");
    expect(afterApproval.status).toBe("e");
    const [row] = await getDb().execute<{ doc: string; built: string }>(
      sql`select doc, build_moc_document(moc_id) as built from moc_documents where moc_id = ${moc._id}`,
    );
    expect(JSON.parse(row!.doc)).toEqual(JSON.parse(row!.built));
    expect(JSON.parse(row!.doc).status).toBe("e");
    await expectStoredDocumentsFresh();
  });

  it("the list from stored documents equals the list built from the tables", async () => {
    await mocAt("c", cast);
    await mocAt("completed", cast);
    const where = mocListScope.newmoc(admin);
    expect(JSON.parse((await mocListBody("all", admin._id)).body.toString()).data).toEqual(
      JSON.parse(await buildMocListJson(where)),
    );
  });

  it("a renamed user shows under the new name in the lists and in singlemoc at once", async () => {
    const moc = await mocAt("d", cast);
    const res = await rename(cast.approver, "Alma Renamed");
    expect(res.status, res.text).toBe(200);
    const list = await api(newmocRoute, { path: "/api/newmoc", token: await tokenOf(cast.approver) });
    const listed = list.body.data.find((doc: Doc) => doc._id === moc._id);
    expect(listed.approver_id.name).toBe("Alma Renamed");
    expect(listed.all_users.map((u: Doc) => u.name)).toContain("Alma Renamed");
    const single = await api(singlemocRoute, { path: "/api/singlemoc", query: { moc_id: moc._id }, token: adminToken });
    expect(single.status, single.text).toBe(200);
    expect(single.body.approver_id.name).toBe("Alma Renamed");
    await expectStoredDocumentsFresh();
  });

  it("a deactivated user shows as inactive in every document naming them", async () => {
    await mocAt("c", cast);
    const res = await api(usersRoute, {
      method: "PUT",
      path: "/api/users",
      token: adminToken,
      body: { _id: cast.verifier._id, active: false },
    });
    expect(res.status, res.text).toBe(200);
    await expectStoredDocumentsFresh();
    await api(usersRoute, {
      method: "PUT",
      path: "/api/users",
      token: adminToken,
      body: { _id: cast.verifier._id, active: true },
    });
  });
});

describe("under concurrency", () => {
  it("renames of the people of MOCs racing with steps on those MOCs: all succeed, no copy goes stale", async () => {
    const mocs = await Promise.all(Array.from({ length: 6 }, () => mocAt("c", cast)));
    const steps = mocs.map(async (moc) => submitStep("hseq", cast.hseq, defaultStepBody("hseq", moc, cast)));
    const people = [cast.hseq, cast.originator, cast.implementer, cast.approver];
    const renames = people.map((person, i) => rename(person, `Racing Name ${i}`));
    const added = mocs.map((moc) =>
      post(addUserRoute, "/api/addUser", cast.originator, {
        body: { userId: cast.verifier._id, mocId: moc._id, role: "verifier" },
      }),
    );
    const results = await Promise.all([...steps, ...renames, ...added]);
    for (const res of results) expect(res.status, res.text).toBe(200);
    await expectStoredDocumentsFresh();
  });

  it("the same user renamed by several admins at once ends with one name everywhere", async () => {
    await mocAt("e", cast);
    const results = await Promise.all(["A", "B", "C", "D"].map((tag) => rename(cast.implementer, `Ian ${tag}`)));
    for (const res of results) expect(res.status, res.text).toBe(200);
    await expectStoredDocumentsFresh();
  });
});

describe("definition changes", () => {
  it("syncDerivedObjects does nothing while the definition's hash is unchanged", async () => {
    const client = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
    try {
      expect(await syncDerivedObjects(client)).toBe(false);
    } finally {
      await client.end();
    }
  });

  it("a changed definition recreates the objects and rebuilds every stored document", async () => {
    const moc = await mocAt("b", cast);
    // Simulate copies written by an older definition.
    await getDb().execute(sql`update moc_documents set doc = '{"stale":true}' where moc_id = ${moc._id}`);
    await getDb().execute(sql`update derived_objects set hash = 'an older definition' where name = 'moc_documents'`);
    const client = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
    try {
      expect(await syncDerivedObjects(client)).toBe(true);
    } finally {
      await client.end();
    }
    const [row] = await getDb().execute<{ hash: string }>(
      sql`select hash from derived_objects where name = 'moc_documents'`,
    );
    expect(row!.hash).toBe(DERIVED_HASH);
    await expectStoredDocumentsFresh();
  });
});

describe("list answers kept in memory", () => {
  const list = (who: { _id: string }, headers: Record<string, string> = {}) =>
    tokenOf(who).then((token) => api(newmocRoute, { path: "/api/newmoc", token, headers }));

  it("a repeated list is the same bytes under the same ETag; If-None-Match gets 304", async () => {
    await mocAt("c", cast);
    const first = await list(cast.implementer);
    const second = await list(cast.implementer);
    expect(first.status).toBe(200);
    // The fingerprint and, after its dot, how many MOCs the list holds (models/moc/moc-query.server.ts).
    expect(first.headers.get("etag")).toMatch(/^"[0-9a-f]{32}\.\d+"$/);
    expect(second.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(second.text).toBe(first.text);
    expect(Number(second.headers.get("content-length"))).toBe(Buffer.byteLength(second.text));
    const again = await list(cast.implementer, { "If-None-Match": first.headers.get("etag")! });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("cache-control")).toBe("no-store");
  });

  it("any change to a listed MOC or to a person it shows gives a new ETag and the new content", async () => {
    const moc = await mocAt("c", cast);
    const before = await list(cast.implementer);
    const stepped = await submitStep("hseq", cast.hseq, defaultStepBody("hseq", moc, cast));
    expect(stepped.status, stepped.text).toBe(200);
    const afterStep = await list(cast.implementer);
    expect(afterStep.headers.get("etag")).not.toBe(before.headers.get("etag"));
    expect(afterStep.body.data.find((doc: Doc) => doc._id === moc._id).status).toBe("d");

    expect((await rename(cast.hseq, "Hugo Renamed Again")).status).toBe(200);
    const afterRename = await list(cast.implementer);
    expect(afterRename.headers.get("etag")).not.toBe(afterStep.headers.get("etag"));
    expect(afterRename.body.data.find((doc: Doc) => doc._id === moc._id).hseq_id.name).toBe("Hugo Renamed Again");
    // A stale ETag gets the full answer.
    const stale = await list(cast.implementer, { "If-None-Match": before.headers.get("etag")! });
    expect(stale.status).toBe(200);
    await expectStoredDocumentsFresh();
  });
});

describe("lists read beside the session lookup", () => {
  const routes = [
    { label: "GET /api/newmoc", route: newmocRoute, path: "/api/newmoc" },
    { label: "GET /api/getAllMoc", route: getAllMocRoute, path: "/api/getAllMoc" },
  ];
  const ids = (res: { body: { data: Doc[] } }) => res.body.data.map((doc) => doc._id).sort();

  it.each(routes)(
    "$label refuses every token GET /api/users refuses, with the same answer",
    async ({ route, path }) => {
      const user = await makeUser();
      const session = await createSession(user);
      const past = signToken(sessionClaims(user, session.sessionId), Date.now() - 8 * 24 * 60 * 60 * 1000);
      const future = signToken(sessionClaims(user, session.sessionId), Date.now() + 60 * 60 * 1000);
      const otherUsers = signToken(sessionClaims(await makeUser(), session.sessionId));
      const revoked = await createSession(user);
      await revokeSession(revoked.sessionId);
      const inactive = await makeUser();
      const inactiveToken = await tokenFor(inactive);
      await deactivate(inactive);
      const newcomerToken = await tokenFor(await makeUser({ onboarded: false }));
      const cases: [string, string | undefined][] = [
        ["no token", undefined],
        ["garbage", "not-a-token"],
        ["expired", past],
        ["not yet valid", future],
        ["another user's session", otherUsers],
        ["revoked session", revoked.token],
        ["deactivated user", inactiveToken],
        ["not onboarded", newcomerToken],
      ];
      for (const [label, token] of cases) {
        const reference = await api(usersRoute, { path: "/api/users", token });
        const res = await api(route, { path, token });
        expect(reference.status, label).toBeGreaterThanOrEqual(400);
        expect([res.status, res.body], label).toEqual([reference.status, reference.body]);
      }
    },
  );

  it("a role changed since sign-in decides the list, never the role the token names", async () => {
    const member = await makeUser({ department: "fleet" });
    const signedInAsUser = await tokenFor(member);
    const theirs = await createMocOk({ ...cast, originator: member });
    const others = await createMocOk(cast);
    const setRole = async (role: string) => {
      const res = await api(usersRoute, {
        method: "PUT",
        path: "/api/users",
        token: adminToken,
        body: { _id: member._id, role },
      });
      expect(res.status, res.text).toBe(200);
    };
    const list = (token: string, headers: Record<string, string> = {}) =>
      api(newmocRoute, { path: "/api/newmoc", token, headers });

    expect(ids(await list(signedInAsUser))).toEqual([theirs._id]);
    await setRole("admin");
    const signedInAsAdmin = await tokenFor({ ...member, role: "admin" }); // what signing in now would sign
    const promoted = await list(signedInAsUser);
    expect(ids(promoted)).toEqual(expect.arrayContaining([theirs._id, others._id]));
    expect(promoted.text).toBe((await list(adminToken)).text);

    await setRole("user");
    // The full list is in memory under its fingerprint (an admin just read it); a token signed
    // while the member was an admin still gets only their own, even holding that fingerprint.
    const full = await list(adminToken);
    expect(ids(full)).toEqual(expect.arrayContaining([theirs._id, others._id]));
    const demoted = await list(signedInAsAdmin);
    expect(ids(demoted)).toEqual([theirs._id]);
    const holdingFullTag = await list(signedInAsAdmin, { "If-None-Match": full.headers.get("etag")! });
    expect(holdingFullTag.status).toBe(200);
    expect(ids(holdingFullTag)).toEqual([theirs._id]);
  });

  it("access changed since sign-in decides GET /api/getAllMoc", async () => {
    const member = await makeUser({ department: "operations" });
    const token = await tokenFor(member);
    const open = await mocAt("c", cast);
    const done = await mocAt("completed", cast);
    const all = () => api(getAllMocRoute, { path: "/api/getAllMoc", token });
    expect(ids(await all())).toContain(done._id);
    expect(ids(await all())).not.toContain(open._id);
    const changed = await api(usersRoute, {
      method: "PUT",
      path: "/api/users",
      token: adminToken,
      body: { _id: member._id, access: "full" },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(ids(await all())).toEqual(expect.arrayContaining([open._id, done._id]));
    await expectStoredDocumentsFresh();
  });
});
