/**
 * Delegation while someone is away (docs/decisions/023-temporary-changes-and-delegation.md):
 * naming a delegate and a period (self, overlapping and past periods refused, others' only by an
 * admin, every change audited), acting in the period and refused outside it, the four-eyes rule on
 * the delegate as a person, "A on behalf of B" on the audit entry and in the emails, emails to both,
 * and no chains.
 */
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  changeDelegation,
  createDelegation,
  delegationEventsOf,
  delegationsOf,
  endDelegation,
  principalsOf,
} from "~/models/delegation.server";
import type { PublicUser } from "~/models/user.server";
import { getDb } from "~/utils/db.server";
import { Conflict, Forbidden, Invalid } from "~/utils/errors";
import { makeAdmin, makeUser } from "../helpers/factories";
import { daysFromToday } from "../helpers/moc";
import {
  defaultStepBody,
  emailsDuring,
  emailsOf,
  expectError,
  makeCast,
  mocAt,
  stepOk,
  submitStep,
} from "../helpers/moc-flow";

const today = () => daysFromToday(0);

const period = (absent: PublicUser, delegate: PublicUser, from = today(), to = daysFromToday(7)) => ({
  userId: absent._id,
  delegateId: delegate._id,
  startsOn: from,
  endsOn: to,
});

describe("naming a delegate", () => {
  it("a person names a delegate for a period; it is listed for both and audited", async () => {
    const [absent, deputy] = await Promise.all([makeUser({ name: "Abe Absent" }), makeUser({ name: "Dee Deputy" })]);
    const made = await createDelegation(absent, period(absent, deputy));
    expect(made).toMatchObject({ userName: "Abe Absent", delegateName: "Dee Deputy", startsOn: today() });
    expect((await delegationsOf(absent._id)).map((d) => d.id)).toEqual([made.id]);
    expect((await delegationsOf(deputy._id)).map((d) => d.id)).toEqual([made.id]);
    expect((await principalsOf(getDb(), deputy._id, today())).map((p) => p._id)).toEqual([absent._id]);
    const changed = await changeDelegation(absent, made.id, { startsOn: today(), endsOn: daysFromToday(3) });
    expect(changed.endsOn).toBe(daysFromToday(3));
    const ended = await endDelegation(absent, made.id);
    expect(ended).toMatchObject({ ended: true, endsOn: daysFromToday(3) });
    await expect(endDelegation(absent, made.id)).rejects.toThrow(Conflict);
    expect(await principalsOf(getDb(), deputy._id, today())).toEqual([]);
    expect((await delegationEventsOf(made.id)).map((e) => [e.action, e.by])).toEqual([
      [`Delegated Abe Absent's steps to Dee Deputy from ${today()} to ${daysFromToday(7)}`, "Abe Absent"],
      [`Changed the period to ${today()} – ${daysFromToday(3)}`, "Abe Absent"],
      [`Ended the delegation to Dee Deputy on ${today()}`, "Abe Absent"],
    ]);
  });

  it("refuses self-delegation, an overlapping period, a period already over or reversed, and someone else's (unless admin)", async () => {
    const [absent, deputy, other, admin] = await Promise.all([
      makeUser(),
      makeUser(),
      makeUser(),
      makeAdmin({ name: "Ada Admin" }),
    ]);
    await expect(createDelegation(absent, period(absent, absent))).rejects.toThrow(Invalid);
    await expect(createDelegation(absent, period(absent, deputy, today(), daysFromToday(-1)))).rejects.toThrow(Invalid);
    await expect(
      createDelegation(absent, period(absent, deputy, daysFromToday(-5), daysFromToday(-2))),
    ).rejects.toThrow(/already over/);
    await expect(createDelegation(other, period(absent, deputy))).rejects.toThrow(Forbidden);
    await expect(createDelegation(absent, { ...period(absent, deputy), startsOn: "soon" })).rejects.toThrow(Invalid);
    const made = await createDelegation(admin, period(absent, deputy));
    expect(made.createdByName).toBe("Ada Admin");
    // Overlapping the first, even with another delegate: refused with a clear message.
    await expect(createDelegation(absent, period(absent, other, daysFromToday(7), daysFromToday(9)))).rejects.toThrow(
      Conflict,
    );
    await expect(createDelegation(absent, period(absent, other, daysFromToday(7), daysFromToday(9)))).rejects.toThrow(
      /overlaps the delegation to/,
    );
    // Right after it: fine; and once it is ended, its period is free again.
    await createDelegation(absent, period(absent, other, daysFromToday(8), daysFromToday(9)));
    const rows = await getDb().execute<{ n: number }>(
      sql`select count(*)::int as n from delegations where user_id = ${absent._id}`,
    );
    expect(rows[0]!.n).toBe(2);
    // Nobody else ends it.
    await expect(endDelegation(other, made.id)).rejects.toThrow(Forbidden);
  });
});

describe("acting for the absent person", () => {
  it("in the period the delegate takes the step: 'A on behalf of B' on the audit entry and in the emails", async () => {
    const cast = await makeCast();
    const deputy = await makeUser({ name: "Dora Deputy", department: "fleet" });
    await createDelegation(cast.approver, period(cast.approver, deputy));
    const moc = await mocAt("d", cast);
    const { result, to } = await emailsDuring(moc._id, () =>
      stepOk("approver", deputy, defaultStepBody("approver", moc, cast)),
    );
    expect(result.status).toBe("e");
    const log = result.logs.at(-1);
    expect(log.userId._id).toBe(deputy._id);
    expect(log.onBehalfOf._id).toBe(cast.approver._id);
    expect(to).toEqual(emailsOf(cast.originator, cast.implementer, cast.hseq));
    const texts = await getDb().execute<{ text: string }>(
      sql`select text from email_messages where record_id = ${moc._id} and text like ${"%Dora Deputy on behalf of Alma Approver approved%"}`,
    );
    expect(texts).toHaveLength(3);
  });

  it("emails to the absent person go to the delegate too, during the period only", async () => {
    const cast = await makeCast();
    const deputy = await makeUser({ name: "Dan Deputy", department: "fleet" });
    await createDelegation(cast.approver, period(cast.approver, deputy));
    const moc = await mocAt("c", cast);
    const { to } = await emailsDuring(moc._id, () => stepOk("hseq", cast.hseq, defaultStepBody("hseq", moc, cast)));
    expect(to).toEqual(emailsOf(cast.approver, deputy, cast.originator, cast.implementer));
  });

  it("the absent person may still act themselves", async () => {
    const cast = await makeCast();
    const deputy = await makeUser({ department: "fleet" });
    await createDelegation(cast.approver, period(cast.approver, deputy));
    const moc = await mocAt("d", cast);
    const done = await stepOk("approver", cast.approver, defaultStepBody("approver", moc, cast));
    expect(done.logs.at(-1)).toMatchObject({ onBehalfOf: null });
  });

  it("outside the period the delegate is refused (403), and nothing changes", async () => {
    const cast = await makeCast();
    const deputy = await makeUser({ department: "fleet" });
    await createDelegation(cast.approver, period(cast.approver, deputy, daysFromToday(1), daysFromToday(5)));
    const moc = await mocAt("d", cast);
    expectError(await submitStep("approver", deputy, defaultStepBody("approver", moc, cast)), 403);
    const rows = await getDb().execute<{ status: string }>(sql`select status from mocs where id = ${moc._id}`);
    expect(rows[0]!.status).toBe("d");
  });

  it("four eyes on the delegate: the MOC's implementer cannot approve it on the approver's behalf", async () => {
    const cast = await makeCast();
    await createDelegation(cast.approver, period(cast.approver, cast.implementer));
    const moc = await mocAt("d", cast);
    const res = await submitStep("approver", cast.implementer, defaultStepBody("approver", moc, cast));
    expectError(res, 403);
    expect(res.body.message).toMatch(/four eyes/);
    // The originator neither, for the assigned HSEQ user's verification.
    await createDelegation(cast.hseq, period(cast.hseq, cast.originator));
    const atF = await mocAt("f", cast);
    expectError(await submitStep("verifier", cast.originator, defaultStepBody("verifier", atF, cast)), 403);
  });

  it("no chains: a delegate's own delegate does not act for the first absent person", async () => {
    const cast = await makeCast();
    const [deputy, third] = await Promise.all([
      makeUser({ name: "First Deputy", department: "fleet" }),
      makeUser({ name: "Third Person", department: "fleet" }),
    ]);
    await createDelegation(cast.approver, period(cast.approver, deputy));
    await createDelegation(deputy, period(deputy, third));
    expect((await principalsOf(getDb(), third._id, today())).map((p) => p._id)).toEqual([deputy._id]);
    const moc = await mocAt("d", cast);
    expectError(await submitStep("approver", third, defaultStepBody("approver", moc, cast)), 403);
    // The first deputy still can.
    await stepOk("approver", deputy, defaultStepBody("approver", moc, cast));
  });
});
