/**
 * Records people can trust (docs/decisions/021-records-people-can-trust.md): four eyes on every
 * check-step and assignment path, signed PCRs frozen, typed signatures that must be the signer's
 * name, signature manifestations, and the append-only hash-chained audit trail.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as addUserRoute from "~/routes/api+/addUser";
import * as createImplementerRoute from "~/routes/api+/createImplementer";
import * as pcrRoute from "~/routes/api+/pcr";
import * as clonePcrRoute from "~/routes/api+/clonePcr";
import * as usersRoute from "~/routes/api+/users";
import * as mocPage from "~/routes/mocs+/$id._index";
import * as implementerPage from "~/routes/mocs+/$id.implementer";
import * as pcrEditPage from "~/routes/pcrs+/$id_.edit";
import * as pcrViewPage from "~/routes/pcrs+/$id";
import * as auditPage from "~/routes/admin+/audit";
import { historyOf, signaturesOf, verifyAuditTrail } from "~/models/audit/audit.server";
import { createArchiveRecord, deleteArchiveRecord, patchArchiveRecord } from "~/models/archive/archive.server";
import { withDefaults } from "~/models/archive/archive.schema";
import { reviewBodySchema } from "~/models/review/review.schema";
import { createReview, updateReview } from "~/models/review/review.server";
import type { MocStep } from "~/models/moc/moc-steps.server";
import type { PublicUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { api, expectNoSecrets } from "../helpers/api";
import { makeAdmin, makeUser, PASSWORD } from "../helpers/factories";
import { futureDate, implementationForm, implementerForm, resolution, type Cast } from "../helpers/moc";
import {
  defaultStepBody,
  emailRows as mocEmailRows,
  expectError,
  issuePaths,
  mocAt,
  post,
  stepOk,
  submitStep,
  tokenOf,
  type Doc,
  type Stage,
} from "../helpers/moc-flow";
import {
  createPcrOk,
  emailRows,
  makeHolders,
  partySign,
  pcrRow,
  PCR_ROLES,
  sign,
  signChain,
  signOk,
  TINY_PNG,
  type PcrRole,
} from "../helpers/pcr";
import { buildRequest } from "../helpers/request";

const db = () => getDb();

/** A cast whose `who` (originator or implementer) is in the HSEQ department, an admin when asked. */
async function castWith(options: { hseqMember?: "originator" | "implementer"; adminOriginator?: boolean } = {}) {
  const person = (role: keyof Cast, department: "engineering" | "operations" | "fleet" | "hseq") =>
    makeUser({
      name: `${role[0]!.toUpperCase()}${role.slice(1)} ${crypto.randomUUID().slice(0, 6)}`,
      department: options.hseqMember === role ? "hseq" : department,
      ...(role === "originator" && options.adminOriginator ? { role: "admin" as const } : {}),
    });
  return {
    originator: await person("originator", "engineering"),
    implementer: await person("implementer", "operations"),
    approver: await person("approver", "fleet"),
    hseq: await person("hseq", "hseq"),
    verifier: await person("verifier", "engineering"),
  } satisfies Cast;
}

/** Puts `person` into `columns` of the MOC as a record from before the rule could (direct SQL). */
async function legacyAssign(mocId: string, columns: string[], person: { _id: string }) {
  for (const column of columns) {
    await db().execute(sql`update mocs set ${sql.raw(column)} = ${person._id} where id = ${mocId}`);
  }
}

type CheckStep = { step: MocStep; stage: Stage; columns: string[]; body: (moc: Doc, cast: Cast) => unknown };

const CHECK_STEPS: CheckStep[] = [
  { step: "hseq", stage: "c", columns: ["hseq_id"], body: (moc, cast) => defaultStepBody("hseq", moc, cast) },
  {
    step: "approver",
    stage: "d",
    columns: ["approver_id"],
    body: (moc, cast) => defaultStepBody("approver", moc, cast),
  },
  {
    step: "deviation-extension",
    stage: "b-deviation",
    columns: ["approver_id"],
    body: (moc) => resolution(moc, "deviation"),
  },
  { step: "verifier", stage: "f", columns: ["hseq_id"], body: (moc, cast) => defaultStepBody("verifier", moc, cast) },
];

const ACTORS = ["originator", "implementer", "other eligible person", "admin who is also the originator"] as const;

describe("four eyes: every check-step x actor", () => {
  const cases = CHECK_STEPS.flatMap((c) => ACTORS.map((actor) => [c.step, actor, c] as const));
  it.each(cases)("%s by the %s", async (_step, actor, check) => {
    const cast = await castWith({
      hseqMember:
        actor === "implementer" ? "implementer" : actor === "other eligible person" ? undefined : "originator",
      adminOriginator: actor === "admin who is also the originator",
    });
    const moc = await mocAt(check.stage, cast);
    if (actor === "other eligible person") {
      const checker = check.step === "hseq" || check.step === "verifier" ? cast.hseq : cast.approver;
      const res = await submitStep(check.step, checker, check.body(moc, cast));
      expect(res.status, res.text).toBe(200);
      return;
    }
    const self = actor === "implementer" ? cast.implementer : cast.originator;
    await legacyAssign(moc._id, check.columns, self);
    const before = await db().execute(sql`select status, completed, updated_at from mocs where id = ${moc._id}`);
    const emails = (await mocEmailRows(moc._id)).length;
    const res = await submitStep(check.step, self, check.body(moc, cast));
    expectError(res, 403);
    const role = actor === "implementer" ? "implementer" : "originator";
    expect(res.body.message).toContain(`You are the ${role} of this MOC`);
    expect(res.body.message).toContain("four eyes");
    expect(await db().execute(sql`select status, completed, updated_at from mocs where id = ${moc._id}`)).toEqual(
      before,
    );
    expect((await mocEmailRows(moc._id)).length).toBe(emails);
  });

  it("the record page names the conflict and who may reassign; the step page refuses with the reason", async () => {
    const cast = await castWith();
    const moc = await mocAt("d", cast);
    await legacyAssign(moc._id, ["approver_id"], cast.originator);
    const token = await tokenOf(cast.originator);
    const page = await mocPage.loader({
      request: await buildRequest({ path: `/mocs/${moc._id}`, token, cookie: true }),
      params: { id: moc._id },
      context: {},
    });
    expect(page.fourEyes).toEqual([
      "The approver is also the originator of this MOC, so they cannot approve it (four eyes). An admin or the HSEQ department can assign another approver below, giving the reason.",
    ]);
    // The pickers do not offer people who would break it.
    const approverIds = page.pickers.approver.map((u: { _id: string }) => u._id);
    expect(approverIds).not.toContain(cast.originator._id);
    expect(approverIds).not.toContain(cast.implementer._id);
    expect(approverIds).toContain(cast.verifier._id);
    expect(page.pickers.verifier.map((u: { _id: string }) => u._id)).not.toContain(cast.originator._id);
    // Reassigning fixes it (the decision is pending: the HSEQ department, with the reason): the new approver approves.
    const fixed = await post(addUserRoute, "/api/addUser", cast.hseq, {
      body: { userId: cast.approver._id, mocId: moc._id, role: "approver", reason: "The approver was the originator" },
    });
    expect(fixed.status, fixed.text).toBe(200);
    await stepOk("approver", cast.approver, defaultStepBody("approver", moc, cast));
  });

  it("Part B's pickers offer only people independent of the MOC", async () => {
    const cast = await castWith({ hseqMember: "originator" });
    const moc = await mocAt("b", cast);
    const page = await implementerPage.loader({
      request: await buildRequest({
        path: `/mocs/${moc._id}/implementer`,
        token: await tokenOf(cast.implementer),
        cookie: true,
      }),
      params: { id: moc._id },
      context: {},
    });
    const ids = page.checkers.map((u: { _id: string }) => u._id);
    expect(ids).not.toContain(cast.originator._id);
    expect(ids).not.toContain(cast.implementer._id);
    expect(ids).toContain(cast.hseq._id);
  });
});

describe("four eyes: every path that assigns people answers 400 on the field", () => {
  let cast: Cast;
  beforeAll(async () => {
    cast = await castWith({ hseqMember: "implementer" });
  });

  it("/api/addUser: the originator or implementer as approver or verifier; a checker as implementer", async () => {
    const moc = await mocAt("c", cast);
    const tries: [string, PublicUser, string][] = [
      ["approver", cast.originator, "the originator"],
      ["approver", cast.implementer, "the implementer"],
      ["verifier", cast.originator, "the originator"],
      ["verifier", cast.implementer, "the implementer"],
      ["implementer", cast.approver, "the approver"],
    ];
    for (const [role, person, why] of tries) {
      const res = await post(addUserRoute, "/api/addUser", cast.originator, {
        body: { userId: person._id, mocId: moc._id, role },
      });
      expectError(res, 400);
      expect(issuePaths(res)).toEqual(["userId"]);
      expect(res.body.message, `${role} ${why}`).toContain(why);
      expect(res.body.message).toContain("four eyes");
    }
  });

  it("an admin who originated the MOC cannot name themselves approver either", async () => {
    const adminCast = await castWith({ adminOriginator: true });
    const moc = await mocAt("d", adminCast);
    const res = await post(addUserRoute, "/api/addUser", adminCast.originator, {
      body: { userId: adminCast.originator._id, mocId: moc._id, role: "approver" },
    });
    expectError(res, 400);
  });

  it("Part B: the implementer naming themselves or the originator as approver or HSEQ user", async () => {
    const moc = await mocAt("b", cast);
    const tries: [Record<string, unknown>, string][] = [
      [implementerForm(cast.implementer, cast.hseq), "implementer_form.approver-name"],
      [implementerForm(cast.originator, cast.hseq), "implementer_form.approver-name"],
      [implementerForm(cast.approver, cast.implementer), "implementer_form.hseq-name"],
    ];
    for (const [form, path] of tries) {
      const res = await submitStep("implementer", cast.implementer, { moc_id: moc._id, implementer_form: form });
      expectError(res, 400);
      expect(issuePaths(res)).toContain(path);
    }
    // The draft path too.
    const draft = await post(createImplementerRoute, "/api/createImplementer", cast.implementer, {
      body: { moc_id: moc._id, implementer_form: { "approver-name": { value: { _id: cast.originator._id } } } },
    });
    expectError(draft, 400);
    expect(issuePaths(draft).join(" ")).toContain("approver-name");
  });
});

// ---------------------------------------------------------------------------------------------
// PCRs

describe("PCRs: frozen after the first signature, one person one slot, typed names", () => {
  let originator: PublicUser;
  let admin: PublicUser;
  let party: PublicUser;
  let holders: Awaited<ReturnType<typeof makeHolders>>;
  let signers: Record<PcrRole, PublicUser>;
  beforeAll(async () => {
    originator = await makeUser({ name: "Olivia Grant" });
    admin = await makeAdmin();
    party = await makeUser();
    holders = await makeHolders("trust");
    signers = { "Change Originator": originator, ...holders } as Record<PcrRole, PublicUser>;
  });

  const put = async (who: PublicUser, id: string, body: unknown) =>
    api(pcrRoute, { method: "PUT", path: "/api/pcr", query: { id }, token: await tokenOf(who), body });

  it("PUT after a signature: 409 for the originator and an admin, nothing changed, no email", async () => {
    const doc = await createPcrOk(originator, { parties: [party] });
    await signOk(originator, doc._id, "Change Originator");
    for (const who of [originator, admin]) {
      const before = await pcrRow(doc._id);
      const emails = (await emailRows(doc._id)).length;
      const res = await put(who, doc._id, {
        form: { "suggestion-details": "<p>Rewritten</p>" },
        affectedParties: [],
      });
      expectError(res, 409);
      expect(res.body.message).toBe("Signed PCRs cannot be edited; clone it to propose a change");
      expect(await pcrRow(doc._id)).toEqual(before);
      expect((await emailRows(doc._id)).length).toBe(emails);
    }
  });

  it("the edit page says so and offers Clone; its action refuses with 409", async () => {
    const doc = await createPcrOk(originator);
    await signOk(originator, doc._id, "Change Originator");
    const token = await tokenOf(originator);
    const page = await pcrEditPage.loader({
      request: await buildRequest({ path: `/pcrs/${doc._id}/edit`, token, cookie: true }),
      params: { id: doc._id },
      context: {},
    });
    expect(page.frozen).toBe("Signed PCRs cannot be edited; clone it to propose a change");
    const before = await pcrRow(doc._id);
    const form = new URLSearchParams({
      title: "Rewritten",
      "suggestion-details": "<p>Rewritten</p>",
      "reason-for-change": "<p>x</p>",
    });
    const response = (await pcrEditPage.action({
      request: await buildRequest({
        method: "POST",
        path: `/pcrs/${doc._id}/edit`,
        token,
        cookie: true,
        body: form.toString(),
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      }),
      params: { id: doc._id },
      context: {},
    })) as unknown as { init: { status: number } | null };
    expect(response.init?.status).toBe(409);
    expect(await pcrRow(doc._id)).toEqual(before);
    const view = await pcrViewPage.loader({
      request: await buildRequest({ path: `/pcrs/${doc._id}`, token, cookie: true }),
      params: { id: doc._id },
      context: {},
    });
    expect(view.canEdit).toBe(false);
    expect(view.frozen).toBe(true);
    // Clone still works and starts unsigned, editable.
    const cloned = await api(clonePcrRoute, {
      method: "POST",
      path: "/api/clonePcr",
      token,
      body: { old_pcr: { serial_num: doc.serial_num } },
    });
    expect(cloned.status, cloned.text).toBe(200);
    expect((await put(originator, cloned.body.data._id, { form: { "suggestion-details": "<p>New</p>" } })).status).toBe(
      200,
    );
  });

  it("one person signs one slot: the originator who also holds the next position is refused", async () => {
    const vp = await makeUser({ position: "VP Fleet Management", name: "Vic Twohats" });
    const doc = await createPcrOk(vp);
    await signOk(vp, doc._id, "Change Originator");
    const res = await sign(vp, doc._id, "VP Fleet Management");
    expectError(res, 403);
    expect(res.body.message).toContain("one person signs one slot");
    expect((await pcrRow(doc._id))!.signatures[1]!.state).toBe("unsigned");
  });

  it("a typed signature must be the signer's own name, case and spacing aside", async () => {
    const doc = await createPcrOk(originator, { parties: [party] });
    const wrong = await sign(originator, doc._id, "Change Originator", { signature: "Someone Else" });
    expectError(wrong, 400);
    expect(issuePaths(wrong)).toEqual(["signatures.0.Signature"]);
    expect((await pcrRow(doc._id))!.signatures[0]!.state).toBe("unsigned");
    const wrongParty = await partySign(party, doc._id, { signature: "Not Me At All" });
    expectError(wrongParty, 400);
    expect(issuePaths(wrongParty)).toEqual(["affectedParties.0.Signature"]);
    await signOk(originator, doc._id, "Change Originator", { signature: "  olivia   GRANT " });
    // A drawn signature is not a name.
    await signOk(holders["VP Fleet Management"], doc._id, "VP Fleet Management", { signature: TINY_PNG });
  });

  it("every signature has its manifestation, in /api (a new key) and from signaturesOf", async () => {
    const doc = await createPcrOk(originator, { parties: [party] });
    const signedDoc = await signChain(doc._id, signers, PCR_ROLES);
    const partyRes = await partySign(party, doc._id);
    expect(partyRes.status, partyRes.text).toBe(200);
    const manifestations = partyRes.body.data.signatureManifestations;
    expect(manifestations).toHaveLength(7);
    expect(manifestations).toEqual(await signaturesOf("pcr", doc._id));
    for (const [i, role] of PCR_ROLES.entries()) {
      expect(manifestations[i]).toEqual({
        signerId: signers[role]._id,
        printedName: signers[role].name,
        accountName: null,
        position: signers[role].position,
        role,
        meaning: `reviewed and approved as ${role}`,
        signedAt: expect.stringMatching(/Z$/),
        onBehalfOf: null,
      });
    }
    expect(manifestations[6]).toMatchObject({
      signerId: party._id,
      role: "Affected party",
      meaning: "reviewed as an affected party",
    });
    // Existing keys keep their shape.
    expect(signedDoc.signatures[0]).toEqual({
      Name: "Change Originator",
      Signature: originator.name,
      signatureDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      signedAt: expect.any(String),
      Comments: "",
      signedBy: expect.objectContaining({ _id: originator._id }),
    });
  });
});

// ---------------------------------------------------------------------------------------------
// MOC manifestations

describe("MOC decisions carry signature manifestations", () => {
  it("b, c, d, deviation and f: who, as what, when, meaning; on /api and the page's data", async () => {
    const cast = await castWith();
    let moc = await mocAt("e", cast, { verifier: true });
    // A deviation reported with its completion date: closing needs one (docs/decisions/033-closure-gates.md).
    moc = await stepOk("implementation", cast.implementer, {
      moc_id: moc._id,
      implementation: { ...implementationForm({ deviation: true }), "completion-date": { value: futureDate(0) } },
    });
    moc = await stepOk("deviation-extension", cast.approver, resolution(moc, "deviation"));
    moc = await stepOk("verifier", cast.verifier, defaultStepBody("verifier", moc, cast));
    const expected = [
      [cast.implementer, "Implementer", "assessed the change and sent it for HSEQ review"],
      [cast.hseq, "HSEQ reviewer", "reviewed and found adequate"],
      [cast.approver, "Approver", "approved"],
      [cast.approver, "Approver", "approved the deviation"],
      [cast.verifier, "Verifier", "verified and closed"],
    ] as const;
    expect(moc.signatureManifestations).toEqual(
      expected.map(([who, role, meaning]) => ({
        signerId: who._id,
        printedName: who.name,
        accountName: null,
        position: who.position,
        role,
        meaning,
        signedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        onBehalfOf: null,
      })),
    );
    expect(await signaturesOf("moc", moc._id)).toEqual(moc.signatureManifestations);
  });

  it("a return and a decline are signed with their meaning", async () => {
    const cast = await castWith();
    const returned = await mocAt("b-returned", cast);
    expect(returned.signatureManifestations.at(-1)).toMatchObject({
      role: "HSEQ reviewer",
      meaning: "returned to implementer",
    });
    const declined = await mocAt("decline-d", cast);
    expect(declined.signatureManifestations.at(-1)).toMatchObject({ role: "Approver", meaning: "declined" });
  });
});

// ---------------------------------------------------------------------------------------------
// The audit trail

const actionsOf = async (kind: Parameters<typeof historyOf>[0], id: string) =>
  (await historyOf(kind, id)).map((e) => e.action);

describe("the audit trail", () => {
  it("PCRs: create, edit, party change, comment, sign, finish, clone: one entry each; a signed PCR is not deleted", async () => {
    const originator = await makeUser();
    const admin = await makeAdmin();
    const party = await makeUser();
    const holders = await makeHolders("audit");
    const signers = { "Change Originator": originator, ...holders } as Record<PcrRole, PublicUser>;
    const doc = await createPcrOk(originator);
    const token = await tokenOf(originator);
    const putRes = await api(pcrRoute, {
      method: "PUT",
      path: "/api/pcr",
      query: { id: doc._id },
      token,
      body: { form: { "suggestion-details": "<p>Better</p>" }, affectedParties: [{ Name: { value: party._id } }] },
    });
    expect(putRes.status, putRes.text).toBe(200);
    const comment = await sign(holders.President, doc._id, "President", { signature: false, comments: "Later" });
    expect(comment.status, comment.text).toBe(200);
    await signChain(doc._id, signers, PCR_ROLES);
    expect((await partySign(party, doc._id)).status).toBe(200);
    const cloned = await api(clonePcrRoute, {
      method: "POST",
      path: "/api/clonePcr",
      token,
      body: { old_pcr: { serial_num: doc.serial_num } },
    });
    const del = await api(pcrRoute, {
      method: "DELETE",
      path: "/api/pcr",
      query: { id: doc._id },
      token: await tokenOf(admin),
    });
    // A PCR that carries signatures is withdrawn, never deleted (docs/decisions/026-four-eyes-by-record.md): nothing changes.
    expect(del.status, del.text).toBe(409);
    expect(await actionsOf("pcr", doc._id)).toEqual([
      "Created",
      "Edited the form",
      "Changed the affected parties",
      "Commented as President",
      ...PCR_ROLES.map((r) => `Signed as ${r}`),
      "Signed as affected party",
      "Finished: every signature is in",
      `Cloned into PCR ${cloned.body.data.serial_num}`,
    ]);
    expect(await actionsOf("pcr", cloned.body.data._id)).toEqual([`Cloned from PCR ${doc.serial_num}`]);
  });

  it("users: created, each field change, password reset, deactivation; never a secret", async () => {
    const admin = await makeAdmin();
    const token = await tokenOf(admin);
    const created = await api(usersRoute, {
      method: "POST",
      path: "/api/users",
      token,
      body: {
        name: "Una User",
        email: `una-${crypto.randomUUID()}@example.com`,
        password: PASSWORD,
        department: "fleet",
      },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data._id;
    const changed = await api(usersRoute, {
      method: "PUT",
      path: "/api/users",
      token,
      body: { _id: id, role: "admin", department: "hseq", password: "A new password 123!", active: false },
    });
    expect(changed.status, changed.text).toBe(200);
    const history = await historyOf("user", id);
    expect(history.map((e) => [e.action, e.from, e.to])).toEqual([
      ["Created", null, null],
      ["Changed role", "user", "admin"],
      ["Changed department", "fleet", "hseq"],
      ["Deactivated", "true", "false"],
      ["Password reset by an admin", null, null],
    ]);
    const [hash] = await db().execute<{ password_hash: string }>(sql`select password_hash from users where id = ${id}`);
    const stored = await db().execute(sql`select * from audit_entries where record_id = ${id}`);
    expectNoSecrets(JSON.stringify(stored), [PASSWORD, "A new password 123!", hash!.password_hash]);
  });

  it("legacy archive records and year-end reviews: create, edit, delete; the history outlives the record", async () => {
    const admin = await makeAdmin();
    const record = await createArchiveRecord(
      admin,
      "moc",
      withDefaults("moc", {
        serial_num: `1-2019-${crypto.randomUUID().slice(0, 8)}`,
        title: "Paper MOC",
        originator_name: "Someone",
        date_raised: "2019-01-01",
      }),
    );
    await patchArchiveRecord(admin, "moc", record._id, { title: "Paper MOC, corrected" });
    await deleteArchiveRecord(admin, "moc", record._id);
    expect(await actionsOf("archive-moc", record._id)).toEqual([
      `Created legacy MOC ${record.serial_num}`,
      "Edited",
      `Deleted legacy MOC ${record.serial_num}`,
    ]);
    const review = await createReview(admin, reviewBodySchema.parse({ year: 2021, title: "Review 2021" }));
    await updateReview(admin, review._id, reviewBodySchema.parse({ year: 2021, title: "Review 2021, final" }));
    expect(await actionsOf("review", review._id)).toEqual(["Created the 2021 review", "Edited"]);
  });

  it("MOC entries are chained (seq, prev_hash, hash) and keep the /api logs shape", async () => {
    const cast = await castWith();
    const moc = await mocAt("d", cast);
    const rows = await db().execute<{ seq: number; prev_hash: string | null; hash: string }>(
      sql`select seq, prev_hash, hash from moc_logs where moc_id = ${moc._id} order by seq`,
    );
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(rows[0]!.prev_hash).toBeNull();
    expect(rows[1]!.prev_hash).toBe(rows[0]!.hash);
    expect(rows[2]!.prev_hash).toBe(rows[1]!.hash);
    // No seq or hash in /api; onBehalfOf is docs/decisions/023-temporary-changes-and-delegation.md's addition (null unless a delegate acted).
    expect(Object.keys(moc.logs[0]).sort()).toEqual([
      "_id",
      "action",
      "at",
      "comment",
      "from",
      "onBehalfOf",
      "to",
      "userId",
    ]);
  });

  it("PostgreSQL refuses UPDATE, DELETE and TRUNCATE on the audit tables; the triggers exist", async () => {
    const triggers = await db().execute<{ tgname: string; tgenabled: string }>(sql`
      select tgname, tgenabled from pg_trigger where not tgisinternal
        and tgrelid in ('moc_logs'::regclass, 'audit_entries'::regclass, 'signature_manifestations'::regclass)
      order by tgname`);
    expect(triggers.map((t) => t.tgname)).toEqual(
      expect.arrayContaining([
        "audit_entries_append_only",
        "audit_entries_chain",
        "audit_entries_no_truncate",
        "moc_logs_append_only",
        "moc_logs_chain",
        "moc_logs_no_truncate",
        "signature_manifestations_append_only",
        "signature_manifestations_chain",
        "signature_manifestations_no_truncate",
      ]),
    );
    // ENABLE ALWAYS ("A"): they fire in replica mode too (session_replication_role = replica).
    const trail = triggers.filter((t) => /_(append_only|no_truncate|chain)$/.test(t.tgname));
    expect(trail).toHaveLength(9);
    expect(trail.every((t) => t.tgenabled === "A")).toBe(true);
    for (const statement of [
      sql`update moc_logs set comment = 'changed'`,
      sql`delete from moc_logs`,
      sql`truncate moc_logs`,
      sql`update audit_entries set action = 'changed'`,
      sql`delete from audit_entries`,
      sql`truncate audit_entries cascade`,
      sql`update signature_manifestations set meaning = 'changed'`,
      sql`delete from signature_manifestations`,
    ]) {
      const error = await db()
        .execute(statement)
        .then(() => null)
        .catch((e: Error & { cause?: Error }) => e);
      expect(String(error?.cause?.message ?? error?.message)).toMatch(/append-only: (UPDATE|DELETE|TRUNCATE) refused/);
    }
  });

  it("verify passes on good data, and fails at exactly the tampered entry", async () => {
    const good = await verifyAuditTrail();
    expect(good.broken).toEqual([]);
    expect(good.entries).toBeGreaterThan(10);
    const cast = await castWith();
    const moc = await mocAt("d", cast);
    const doc = await createPcrOk(cast.originator);
    const [mocEntry] = await db().execute<{ id: string }>(
      sql`select id from moc_logs where moc_id = ${moc._id} and seq = 2`,
    );
    const [pcrEntry] = await db().execute<{ id: string }>(
      sql`select id from audit_entries where record_id = ${doc._id} and seq = 1`,
    );
    // As a superuser with database access would: switch the trigger off, change a row, switch it on.
    // (Statement by statement: the stored MOC documents' deferred trigger must run before re-enabling.)
    await db().execute(sql`alter table moc_logs disable trigger moc_logs_append_only`);
    await db().execute(sql`update moc_logs set comment = 'nobody will notice' where id = ${mocEntry!.id}`);
    await db().execute(sql`alter table moc_logs enable trigger moc_logs_append_only`);
    await db().execute(sql`alter table audit_entries disable trigger audit_entries_append_only`);
    await db().execute(sql`update audit_entries set actor_id = null where id = ${pcrEntry!.id}`);
    await db().execute(sql`alter table audit_entries enable trigger audit_entries_append_only`);
    const bad = await verifyAuditTrail();
    expect(bad.broken).toEqual(
      expect.arrayContaining([
        { kind: "moc", recordId: moc._id, seq: 2, entryId: mocEntry!.id, reason: expect.stringContaining("content") },
        { kind: "pcr", recordId: doc._id, seq: 1, entryId: pcrEntry!.id, reason: expect.stringContaining("content") },
      ]),
    );
    expect(bad.broken).toHaveLength(2);
    // The admin page names it too.
    const admin = await makeAdmin();
    const page = await auditPage.loader({
      request: await buildRequest({ path: "/admin/audit", token: await tokenOf(admin), cookie: true }),
      params: {},
      context: {},
    });
    expect(page.broken.map((b) => b.entryId).sort()).toEqual([mocEntry!.id, pcrEntry!.id].sort());
    // A removed entry breaks the link of the next one.
    await db().execute(sql`alter table moc_logs disable trigger moc_logs_append_only`);
    await db().execute(sql`delete from moc_logs where moc_id = ${moc._id} and seq = 1`);
    await db().execute(sql`alter table moc_logs enable trigger moc_logs_append_only`);
    const removed = (await verifyAuditTrail()).broken.find((b) => b.recordId === moc._id);
    expect(removed).toMatchObject({ seq: 2, reason: expect.stringContaining("entry 1 is missing") });
  });
});
