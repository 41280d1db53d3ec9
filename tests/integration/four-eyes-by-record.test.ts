/**
 * Four eyes judged against everyone who acted on the MOC, from its trail and its signature
 * manifestations, not only the people it names now (docs/decisions/026-four-eyes-by-record.md): a reassignment that would make an earlier actor a
 * later checker answers 400 on the field, a step by such a person 403, and the dashboard does not
 * offer it; one person does not take both the HSEQ review and the approval; a delegate takes over
 * the absent person's own assignments only (items 11).
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as addUserRoute from "~/routes/api+/addUser";
import * as implementerRoute from "~/routes/api+/implementer";
import * as singlemocRoute from "~/routes/api+/singlemoc";
import { createDelegation } from "~/models/people/delegation.server";
import { pendingActions } from "~/models/moc/actions.server";
import { getDb } from "~/utils/db.server";
import { makeAdmin, makeUser } from "../helpers/factories";
import { implementerForm, type Cast } from "../helpers/moc";
import { defaultStepBody, expectError, issuePaths, makeCast, mocAt, post, submitStep } from "../helpers/moc-flow";
import { api } from "../helpers/api";
import { tokenOf } from "../helpers/moc-flow";

const db = () => getDb();

/** Puts a person in a column directly, as a record from before the rule could have (no check). */
const legacyAssign = (mocId: string, column: string, person: { _id: string }) =>
  db().execute(sql`update mocs set ${sql.raw(column)} = ${person._id} where id = ${mocId}`);

const reassignImplementer = async (actor: { _id: string }, mocId: string, to: { _id: string }) =>
  api(implementerRoute, {
    method: "PUT",
    path: "/api/implementer",
    token: await tokenOf(actor),
    body: { moc_id: mocId, implementer_id: to._id },
  });

const addUser = (actor: { _id: string }, mocId: string, role: string, person: { _id: string }, reason?: string) =>
  post(addUserRoute, "/api/addUser", actor, {
    body: { userId: person._id, mocId, role, ...(reason ? { reason } : {}) },
  });

const stateOf = async (mocId: string) =>
  (await db().execute(sql`select status, completed, verifier_id, approver_id from mocs where id = ${mocId}`))[0];

describe("four eyes by reassignment: the makers stay makers", () => {
  it("the former implementer, who submitted Parts B and E, cannot be made verifier (400 on userId)", async () => {
    const cast = await makeCast();
    const admin = await makeAdmin();
    const other = await makeUser({ department: "operations" });
    const moc = await mocAt("f", cast);
    const moved = await reassignImplementer(admin, moc._id, other);
    expect(moved.status, moved.text).toBe(200);
    const before = await stateOf(moc._id);
    const res = await addUser(admin, moc._id, "verifier", cast.implementer);
    expectError(res, 400);
    expect(issuePaths(res)).toEqual(["userId"]);
    expect(res.body.message).toContain("an author of Part A, B or E");
    expect(res.body.message).toContain("four eyes");
    expect(await stateOf(moc._id)).toEqual(before);
  });

  it("nor can the originator once someone else holds the role (approver via /api/addUser)", async () => {
    const cast = await makeCast();
    const moc = await mocAt("d", cast);
    // The originator's id stays on the record, but Part A's author is read from the trail too:
    // a MOC whose originator column was changed by hand still knows who wrote Part A.
    const stranger = await makeUser({ department: "fleet" });
    await legacyAssign(moc._id, "originator_id", stranger);
    // The approval is pending: an admin changes the approver, with the reason (docs/decisions/034).
    const admin = await makeAdmin();
    const res = await addUser(admin, moc._id, "approver", cast.originator, "The approver is away");
    expectError(res, 400);
    expect(issuePaths(res)).toEqual(["userId"]);
  });

  it("a step by an earlier maker put in place before the rule is refused 403 and changes nothing", async () => {
    const cast = await makeCast();
    const admin = await makeAdmin();
    const other = await makeUser({ department: "operations" });
    const moc = await mocAt("f", cast);
    expect((await reassignImplementer(admin, moc._id, other)).status).toBe(200);
    await legacyAssign(moc._id, "verifier_id", cast.implementer);
    const before = await stateOf(moc._id);
    const res = await submitStep("verifier", cast.implementer, defaultStepBody("verifier", moc, cast));
    expectError(res, 403);
    expect(res.body.message).toContain("an author of Part A, B or E");
    expect(await stateOf(moc._id)).toEqual(before);
    // The dashboard does not offer it either (the SQL twin of the rule).
    const { actions } = await pendingActions(cast.implementer);
    expect(actions.filter((a) => a.moc._id === moc._id)).toEqual([]);
  });

  it("an admin who is the implementer cannot hand the implementation on and verify it alone", async () => {
    const base = await makeCast();
    const adminImplementer = await makeAdmin({ department: "operations" });
    const cast: Cast = { ...base, implementer: adminImplementer };
    const moc = await mocAt("f", cast);
    const other = await makeUser({ department: "operations" });
    expect((await reassignImplementer(adminImplementer, moc._id, other)).status).toBe(200);
    const assign = await addUser(adminImplementer, moc._id, "verifier", adminImplementer);
    expectError(assign, 400);
    await legacyAssign(moc._id, "verifier_id", adminImplementer);
    const res = await submitStep("verifier", adminImplementer, defaultStepBody("verifier", moc, cast));
    expectError(res, 403);
    expect((await stateOf(moc._id))!.completed).toBe(false);
  });

  it("an independent verifier still closes it", async () => {
    const cast = await makeCast();
    const admin = await makeAdmin();
    const other = await makeUser({ department: "operations" });
    const moc = await mocAt("f", cast);
    expect((await reassignImplementer(admin, moc._id, other)).status).toBe(200);
    expect((await addUser(admin, moc._id, "verifier", cast.verifier)).status).toBe(200);
    const res = await submitStep("verifier", cast.verifier, defaultStepBody("verifier", moc, cast));
    expect(res.status, res.text).toBe(200);
  });

  it("a checker who reviewed cannot be made implementer afterwards", async () => {
    const cast = await makeCast();
    const admin = await makeAdmin();
    const moc = await mocAt("d", cast);
    // Hugo reviewed; the HSEQ column now names someone else.
    const otherHseq = await makeUser({ department: "hseq" });
    await legacyAssign(moc._id, "hseq_id", otherHseq);
    const res = await reassignImplementer(admin, moc._id, cast.hseq);
    expectError(res, 400);
    expect(issuePaths(res)).toEqual(["implementer_id"]);
  });
});

describe("one person does not take both the HSEQ review and the approval (item 12)", () => {
  it("the HSEQ reviewer cannot be made approver (400) nor approve when put there before the rule (403)", async () => {
    const cast = await makeCast();
    const moc = await mocAt("d", cast);
    // The approval is pending: an admin changes the approver, with the reason (docs/decisions/034).
    const res = await addUser(await makeAdmin(), moc._id, "approver", cast.hseq, "The approver is away");
    expectError(res, 400);
    expect(issuePaths(res)).toEqual(["userId"]);
    expect(res.body.message).toContain("the HSEQ reviewer");
    await legacyAssign(moc._id, "approver_id", cast.hseq);
    const before = await stateOf(moc._id);
    const step = await submitStep("approver", cast.hseq, defaultStepBody("approver", moc, cast));
    expectError(step, 403);
    expect(step.body.message).toContain("the HSEQ reviewer");
    expect(await stateOf(moc._id)).toEqual(before);
    const { actions } = await pendingActions(cast.hseq);
    expect(actions.filter((a) => a.moc._id === moc._id)).toEqual([]);
  });

  it("the assigned approver, an HSEQ member, cannot take the HSEQ review; another HSEQ member can", async () => {
    const base = await makeCast();
    const hseqApprover = await makeUser({ department: "hseq" });
    const cast: Cast = { ...base, approver: hseqApprover };
    const moc = await mocAt("c", cast);
    const refused = await submitStep("hseq", hseqApprover, defaultStepBody("hseq", moc, cast));
    expectError(refused, 403);
    expect(refused.body.message).toContain("the approver");
    expect((await pendingActions(hseqApprover)).actions.some((a) => a.moc._id === moc._id && a.type === "hseq")).toBe(
      false,
    );
    const reviewed = await submitStep("hseq", cast.hseq, defaultStepBody("hseq", moc, cast));
    expect(reviewed.status, reviewed.text).toBe(200);
    const approved = await submitStep("approver", hseqApprover, defaultStepBody("approver", moc, cast));
    expect(approved.status, approved.text).toBe(200);
  });
});

describe("Part B judges its picks as their steps will (issue 38)", () => {
  it("after an HSEQ return, the HSEQ reviewer named as approver is a 400 on approver-name, not a later 403", async () => {
    const cast = await makeCast();
    const moc = await mocAt("b-returned", cast);
    const hseqColleague = await makeUser({ department: "hseq" });
    const before = await stateOf(moc._id);
    const res = await submitStep("implementer", cast.implementer, {
      moc_id: moc._id,
      implementer_form: implementerForm(cast.hseq, hseqColleague),
    });
    expectError(res, 400);
    expect(issuePaths(res)).toEqual(["implementer_form.approver-name"]);
    expect(res.body.message).toContain("the HSEQ reviewer");
    expect(await stateOf(moc._id)).toEqual(before);
    // One person is not both: the same HSEQ member as approver and HSEQ user is refused on the HSEQ field.
    const same = await submitStep("implementer", cast.implementer, {
      moc_id: moc._id,
      implementer_form: implementerForm(hseqColleague, hseqColleague),
    });
    expectError(same, 400);
    expect(issuePaths(same)).toEqual(["implementer_form.hseq-name"]);
    expect(same.body.message).toContain("the approver");
    // The originator's original picks go through.
    const ok = await submitStep("implementer", cast.implementer, {
      moc_id: moc._id,
      implementer_form: implementerForm(cast.approver, cast.hseq, {
        "changes-since-return": { value: "Attached the RA" },
      }),
    });
    expect(ok.status, ok.text).toBe(200);
  });
});

describe("a delegate acts only on the absent person's own assignments (item 11)", () => {
  const period = (absent: { _id: string }, delegate: { _id: string }) => ({
    userId: absent._id,
    delegateId: delegate._id,
    startsOn: new Date().toISOString().slice(0, 10),
    endsOn: new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10),
  });
  const read = async (who: { _id: string }, mocId: string) =>
    api(singlemocRoute, { path: "/api/singlemoc", query: { moc_id: mocId }, token: await tokenOf(who) });

  it("an HSEQ member's delegate neither reviews nor reads a MOC assigned to another HSEQ member", async () => {
    const cast = await makeCast();
    const absentHseq = await makeUser({ department: "hseq" });
    const deputy = await makeUser({ department: "engineering" });
    await createDelegation(absentHseq, period(absentHseq, deputy));
    const moc = await mocAt("c", cast); // its HSEQ user is cast.hseq, not the absent member
    const review = await submitStep("hseq", deputy, defaultStepBody("hseq", moc, cast));
    expectError(review, 403);
    expect((await stateOf(moc._id))!.status).toBe("c");
    expect((await read(deputy, moc._id)).status).toBe(403);
    const { actions } = await pendingActions(absentHseq, { delegate: deputy });
    expect(actions.some((a) => a.moc._id === moc._id)).toBe(false);
  });

  it("the same delegate reviews, on their behalf, a MOC assigned to the absent HSEQ member", async () => {
    const base = await makeCast();
    const absentHseq = await makeUser({ department: "hseq" });
    const deputy = await makeUser({ department: "engineering" });
    await createDelegation(absentHseq, period(absentHseq, deputy));
    const cast: Cast = { ...base, hseq: absentHseq };
    const moc = await mocAt("c", cast);
    expect((await read(deputy, moc._id)).status).toBe(200);
    const { actions } = await pendingActions(absentHseq, { delegate: deputy });
    expect(actions.some((a) => a.moc._id === moc._id && a.type === "hseq")).toBe(true);
    const review = await submitStep("hseq", deputy, defaultStepBody("hseq", moc, cast));
    expect(review.status, review.text).toBe(200);
  });

  it("an admin's delegate does not get the admin's powers (finishing someone's Part A draft)", async () => {
    const cast = await makeCast();
    const absentAdmin = await makeAdmin();
    const deputy = await makeUser();
    await createDelegation(absentAdmin, period(absentAdmin, deputy));
    const moc = await mocAt("b", cast);
    expect((await read(deputy, moc._id)).status).toBe(403);
    const res = await submitStep("originator", deputy, defaultStepBody("originator", moc, cast));
    expectError(res, 403);
  });
});
