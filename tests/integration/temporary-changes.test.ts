/**
 * Temporary changes (docs/decisions/023-temporary-changes-and-delegation.md): Part A's change type
 * and end date, the approver approving the date with the change, "in effect" once verified and
 * closed, the reminders 7 and 1 days before the end with the clock moved, restored with the HSEQ
 * confirmation, extended by the approver, made permanent with the linked clone, expired with its
 * daily email to the HSEQ department, the list filters and dashboard counts; permanent MOCs untouched.
 *
 * The reminder runs use far-future days, later in each test than in the one before, so a run never
 * meets a MOC of a later test; each test reads only its own MOCs' results.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as newmocRoute from "~/routes/api+/newmoc";
import * as singleMocRoute from "~/routes/api+/singlemoc";
import { dashboard, searchMocs } from "~/models/moc/moc-list.server";
import { sendDueReminders } from "../helpers/reminder-run";
import { getDb } from "~/utils/db.server";
import { api } from "../helpers/api";
import { makeUser } from "../helpers/factories";
import { daysFromToday, newMocBody, temporaryPartA, type Cast } from "../helpers/moc";
import {
  createMocOk,
  defaultStepBody,
  emailsDuring,
  emailsOf,
  expectError,
  issuePaths,
  makeCast,
  mocAt,
  post,
  stepOk,
  submitStep,
  temporaryMocAt,
  tokenOf,
  type Doc,
} from "../helpers/moc-flow";

let cast: Cast;

beforeAll(async () => {
  cast = await makeCast();
});

const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

let farIndex = 0;
/** A far-future end date of its own, later than every one before. */
function farUntil(): string {
  farIndex += 1;
  return addDays("2045-01-01", farIndex * 100);
}

/** Moves a closed temporary MOC's end date (as if it had been approved with it). */
async function setUntil(mocId: string, until: string): Promise<void> {
  await getDb().execute(
    sql`update mocs set temporary = jsonb_set(temporary, '{until}', to_jsonb(${until}::text)) where id = ${mocId}`,
  );
}

/**
 * The MOC's effectiveness review (set when its verification closed it, 30 days on for a temporary
 * change: docs/decisions/058-effectiveness-review.md) moved past `day`, so that a run with the
 * clock moved far ahead emails only about the temporary change itself.
 */
async function reviewAfter(mocId: string, day: string): Promise<void> {
  const moved = await getDb().execute(
    sql`update effectiveness_reviews set due_on = ${day}::date + 1 where moc_id = ${mocId} returning moc_id`,
  );
  expect(moved).toHaveLength(1);
}

async function reload(moc: { _id: string }, as: { _id: string } = cast.originator): Promise<Doc> {
  const res = await api(singleMocRoute, {
    path: "/api/singlemoc",
    query: { moc_id: moc._id },
    token: await tokenOf(as),
  });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const hseqDepartment = async () =>
  (
    await getDb().execute<{ email: string }>(
      sql`select email from users where department = 'hseq' and active order by email`,
    )
  ).map((r) => r.email);

describe("Part A: permanent or temporary", () => {
  it("is permanent by default: existing clients' bodies are unchanged and the MOC has no temporary change", async () => {
    const moc = await createMocOk(cast);
    expect(moc.temporary).toBeNull();
    expect(moc.originator_form["change-type"]).toEqual({ value: "permanent" });
    expect(moc.originator_form["temporary-until"]).toBeUndefined();
  });

  it("a temporary change carries its end date on the form and on the MOC, planned until closed", async () => {
    const until = daysFromToday(40);
    const moc = await createMocOk(cast, temporaryPartA(until));
    expect(moc.originator_form["change-type"]).toEqual({ value: "temporary" });
    expect(moc.originator_form["temporary-until"]).toEqual({ value: until });
    expect(moc.temporary).toMatchObject({ until, state: "planned", restoration: null, extension: null });
  });

  it("refuses a temporary change without an end date, or one in the past, or an unknown type (400, nothing made)", async () => {
    const before = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from mocs`);
    const cases: [Record<string, unknown>, string][] = [
      [{ "change-type": { value: "temporary" } }, "temporary-until"],
      [temporaryPartA(daysFromToday(-1)), "temporary-until"],
      [{ "change-type": { value: "forever" } }, "change-type"],
      [{ "change-type": { value: "temporary" }, "temporary-until": { value: "next week" } }, "temporary-until"],
    ];
    for (const [overrides, field] of cases) {
      const res = await post(newmocRoute, "/api/newmoc", cast.originator, {
        body: newMocBody(cast.implementer, overrides),
      });
      expectError(res, 400);
      expect(
        issuePaths(res).some((path) => path.includes(field)),
        res.text,
      ).toBe(true);
    }
    const after = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from mocs`);
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it("the approver approves the end date with the change: the audit entry and the email name it", async () => {
    const until = daysFromToday(50);
    const atD = await mocAt("d", cast, { temporaryUntil: until });
    const { result, to } = await emailsDuring(atD._id, () =>
      stepOk("approver", cast.approver, defaultStepBody("approver", atD, cast)),
    );
    expect(result.logs.at(-1).action).toBe(`Approved as a temporary change until ${until}`);
    expect(to).toEqual(emailsOf(cast.originator, cast.implementer, cast.hseq));
    const texts = await getDb().execute<{ text: string }>(
      sql`select text from email_messages where record_id = ${atD._id}`,
    );
    expect(texts.filter((r) => r.text.includes(`as a temporary change, to end by ${until}`))).toHaveLength(3);
  });
});

describe("the life of a temporary change", () => {
  it("is in effect once verified and closed; the end steps open for their people only", async () => {
    const moc = await mocAt("completed", cast, { temporaryUntil: daysFromToday(30) });
    expect(moc.completed).toBe(true);
    expect(moc.temporary.state).toBe("in-effect");
    // Not the implementer's: 403; the HSEQ and approver steps wait on nothing yet: 409.
    expectError(
      await submitStep("temporary-restored", cast.originator, defaultStepBody("temporary-restored", moc, cast)),
      403,
    );
    expectError(await submitStep("temporary-confirm", cast.hseq, defaultStepBody("temporary-confirm", moc, cast)), 409);
    expectError(
      await submitStep(
        "temporary-extension-decision",
        cast.approver,
        defaultStepBody("temporary-extension-decision", moc, cast),
      ),
      409,
    );
  });

  it("is not open before the MOC is closed (409, with a reason)", async () => {
    const atF = await mocAt("f", cast, { temporaryUntil: daysFromToday(30) });
    const res = await submitStep(
      "temporary-restored",
      cast.implementer,
      defaultStepBody("temporary-restored", atF, cast),
    );
    expectError(res, 409);
    expect(res.body.message).toMatch(/verified and closed/);
  });

  it("restored: the implementer reports it, HSEQ is asked, a refusal reopens it, a confirmation ends it", async () => {
    const moc = await temporaryMocAt("in-effect", cast);
    const reported = await emailsDuring(moc._id, () =>
      stepOk("temporary-restored", cast.implementer, defaultStepBody("temporary-restored", moc, cast)),
    );
    expect(reported.to).toEqual(emailsOf(cast.hseq));
    expect(reported.result.temporary).toMatchObject({
      state: "restoration-reported",
      restoration: {
        details: "The spare fitted, the bypass removed",
        reportedBy: cast.implementer._id,
        confirmed: null,
      },
    });
    expect(reported.result.logs.at(-1)).toMatchObject({
      action: "Reported the original condition restored",
      from: "f",
      to: "f",
    });
    // Only the assigned HSEQ user confirms; a refusal needs its reason.
    expectError(
      await submitStep("temporary-confirm", cast.approver, defaultStepBody("temporary-confirm", moc, cast)),
      403,
    );
    const noReason = await submitStep("temporary-confirm", cast.hseq, {
      moc_id: moc._id,
      temporary_confirmation: { "restoration-confirmed": { value: "no" } },
    });
    expectError(noReason, 400);
    expect(issuePaths(noReason)).toEqual(["temporary_confirmation.confirm-comment"]);
    const refused = await stepOk("temporary-confirm", cast.hseq, {
      moc_id: moc._id,
      temporary_confirmation: {
        "restoration-confirmed": { value: "no" },
        "confirm-comment": { value: "The alarm is still bypassed" },
      },
    });
    expect(refused.temporary.state).toBe("in-effect");
    expect(refused.temporary.restoration).toMatchObject({ confirmed: false, comment: "The alarm is still bypassed" });
    await stepOk("temporary-restored", cast.implementer, defaultStepBody("temporary-restored", moc, cast));
    const confirmed = await emailsDuring(moc._id, () =>
      stepOk("temporary-confirm", cast.hseq, defaultStepBody("temporary-confirm", moc, cast)),
    );
    expect(confirmed.to).toEqual(emailsOf(cast.implementer, cast.originator, cast.approver));
    expect(confirmed.result.temporary).toMatchObject({
      state: "restored",
      restoration: { confirmed: true, confirmedBy: cast.hseq._id },
    });
    // Ended: nothing more can be recorded.
    for (const step of ["temporary-restored", "temporary-extension", "temporary-permanent"] as const) {
      expectError(await submitStep(step, cast.implementer, defaultStepBody(step, moc, cast)), 409);
    }
  });

  it("extended: the implementer asks with a later date and a reason, the approver decides", async () => {
    const moc = await temporaryMocAt("in-effect", cast);
    const until = moc.temporary.until;
    const tooEarly = await submitStep("temporary-extension", cast.implementer, {
      moc_id: moc._id,
      temporary_extension: {
        "temporary-new-until": { value: until },
        "temporary-extension-reason": { value: "More time" },
      },
    });
    expectError(tooEarly, 400);
    expect(issuePaths(tooEarly)).toEqual(["temporary_extension.temporary-new-until"]);
    const asked = await emailsDuring(moc._id, () =>
      stepOk("temporary-extension", cast.implementer, defaultStepBody("temporary-extension", moc, cast)),
    );
    expect(asked.to).toEqual(emailsOf(cast.approver));
    const newUntil = daysFromToday(60);
    expect(asked.result.temporary).toMatchObject({
      state: "extension-requested",
      until,
      extension: { new_date: newUntil, previous_date: until, reason: "The spare is delayed", approved: null },
    });
    // Only the approver decides (not the HSEQ user, unlike a deviation), and a rejection needs its reason.
    expectError(
      await submitStep(
        "temporary-extension-decision",
        cast.hseq,
        defaultStepBody("temporary-extension-decision", moc, cast),
      ),
      403,
    );
    const decided = await emailsDuring(moc._id, () =>
      stepOk("temporary-extension-decision", cast.approver, defaultStepBody("temporary-extension-decision", moc, cast)),
    );
    expect(decided.to).toEqual(emailsOf(cast.implementer, cast.originator, cast.hseq));
    expect(decided.result.temporary).toMatchObject({
      state: "in-effect",
      until: newUntil,
      extension: { approved: "yes", resolvedBy: cast.approver._id },
    });
    expect(decided.result.logs.at(-1).action).toBe(`Extended the temporary change to ${newUntil}`);

    // A rejected one keeps the end date.
    const other = await temporaryMocAt("extension-requested", cast);
    const rejected = await stepOk("temporary-extension-decision", cast.approver, {
      moc_id: other._id,
      temporary_extension_decision: {
        "extension-approved": { value: "no" },
        "extension-comment": { value: "Restore it on time" },
      },
    });
    expect(rejected.temporary).toMatchObject({ state: "in-effect", until: other.temporary.until });
  });

  it("made permanent: a new MOC cloned from it, as a permanent change, linked both ways", async () => {
    const moc = await temporaryMocAt("in-effect", cast);
    const done = await stepOk(
      "temporary-permanent",
      cast.implementer,
      defaultStepBody("temporary-permanent", moc, cast),
    );
    expect(done.temporary.state).toBe("made-permanent");
    const cloneId = done.temporary.permanent_moc;
    expect(cloneId).toEqual(expect.any(String));
    const clone = await reload({ _id: cloneId }, cast.implementer);
    expect(clone).toMatchObject({ previous_moc: moc._id, cloned: true, status: "b", temporary: null });
    expect(clone.originator_form["change-type"]).toEqual({ value: "permanent" });
    expect(clone.originator_form["temporary-until"]).toBeUndefined();
    expect(clone.implementer_id._id).toBe(cast.implementer._id);
    expect(clone.logs[0].action).toBe(`Cloned from MOC ${moc.serial_num} to make the temporary change permanent`);
    expect(done.logs.at(-1).action).toBe(`Made the temporary change permanent: continued as MOC ${clone.serial_num}`);
    expectError(
      await submitStep("temporary-permanent", cast.implementer, defaultStepBody("temporary-permanent", moc, cast)),
      409,
    );
  });

  it("permanent MOCs are untouched: no end steps, no temporary reminders, in no temporary filter", async () => {
    const moc = await mocAt("completed", cast);
    expect(moc.temporary).toBeNull();
    for (const step of ["temporary-restored", "temporary-extension", "temporary-permanent"] as const) {
      expectError(await submitStep(step, cast.implementer, defaultStepBody(step, moc, cast)), 409);
    }
    const run = await sendDueReminders({ today: addDays(farUntil(), 400) });
    expect(run.temporaryReminders.map((r) => r.moc_id)).not.toContain(moc._id);
    for (const temporary of ["in-effect", "ending-soon", "expired"] as const) {
      const { rows } = await searchMocs(cast.originator, { temporary, pageSize: 100 });
      expect(rows.map((r) => r.id)).not.toContain(moc._id);
    }
  });
});

describe("reminders and expiry (the daily run, with the clock moved)", () => {
  it("reminds the originator, implementer and HSEQ user 7 and 1 days before the end, once a day", async () => {
    const moc = await temporaryMocAt("in-effect", cast);
    const until = farUntil();
    await setUntil(moc._id, until);
    await reviewAfter(moc._id, addDays(until, 1));
    const ownResults = async (day: string) =>
      (await sendDueReminders({ today: day })).temporaryReminders.filter((r) => r.moc_id === moc._id);
    const people = emailsOf(cast.originator, cast.implementer, cast.hseq);
    for (const [before, expected] of [
      [8, []],
      [7, [{ moc_id: moc._id, serial_num: moc.serial_num, kind: "ending", days_left: 7, emailsSent: 3 }]],
      [6, []],
      [2, []],
      [1, [{ moc_id: moc._id, serial_num: moc.serial_num, kind: "ending", days_left: 1, emailsSent: 3 }]],
      [0, []],
    ] as const) {
      const day = addDays(until, -before);
      const { result, to } = await emailsDuring(moc._id, () => ownResults(day));
      expect(result, `${before} days before`).toEqual(expected);
      expect(to).toEqual(expected.length ? people : []);
      if (expected.length) {
        // The same day again: nothing (the once-a-day guarantee).
        expect(await ownResults(day)).toEqual([]);
      }
    }
    const subjects = await getDb().execute<{ subject: string }>(
      sql`select distinct subject from email_messages where record_id = ${moc._id} and subject like '%The temporary change%' order by subject`,
    );
    expect(subjects.map((r) => r.subject)).toEqual([
      `[MOC ${moc.serial_num}] The temporary change MOC ${moc.serial_num} ends in 7 days (${until})`,
      `[MOC ${moc.serial_num}] The temporary change MOC ${moc.serial_num} ends tomorrow (${until})`,
    ]);
  });

  it("past the end with nothing recorded: expired, not restored; the HSEQ department is emailed daily until resolved", async () => {
    const extraHseq = await makeUser({ name: "Hedda Hseq", department: "hseq" });
    const moc = await temporaryMocAt("in-effect", cast);
    const until = farUntil();
    await setUntil(moc._id, until);
    await reviewAfter(moc._id, addDays(until, 30));
    const own = async (day: string) =>
      (await sendDueReminders({ today: day })).temporaryReminders.filter((r) => r.moc_id === moc._id);
    const department = await hseqDepartment();
    expect(department).toContain(extraHseq.email);

    const dayAfter = addDays(until, 1);
    const first = await emailsDuring(moc._id, () => own(dayAfter));
    expect(first.result).toEqual([
      { moc_id: moc._id, serial_num: moc.serial_num, kind: "expired", days_left: -1, emailsSent: department.length },
    ]);
    expect(first.to).toEqual(department);
    const expired = await reload(moc);
    expect(expired.temporary).toMatchObject({ state: "expired", expired_since: dayAfter });
    expect(expired.logs.at(-1)).toMatchObject({ action: "Temporary change expired, not restored", userId: null });
    // Once a day; the next day again.
    expect((await emailsDuring(moc._id, () => own(dayAfter))).to).toEqual([]);
    expect((await emailsDuring(moc._id, () => own(addDays(until, 2)))).to).toEqual(department);

    // Listed and counted as expired (the filter reads today: here the end date is put in the past).
    await setUntil(moc._id, daysFromToday(-3));
    const { rows } = await searchMocs(cast.hseq, { temporary: "expired", pageSize: 100 });
    expect(rows.find((r) => r.id === moc._id)).toMatchObject({ temporaryState: "expired" });
    const board = await dashboard(cast.hseq);
    expect(board.temporary.expired).toBeGreaterThan(0);
    expect(board.expired.map((r) => r.id)).toContain(moc._id);
    await setUntil(moc._id, until);

    // Resolved (restoration reported): no more daily emails.
    await stepOk("temporary-restored", cast.implementer, defaultStepBody("temporary-restored", moc, cast));
    expect((await emailsDuring(moc._id, () => own(addDays(until, 3)))).to).toEqual([]);
    // HSEQ refuses it past the end: expired again, and the emails resume.
    const refused = await stepOk("temporary-confirm", cast.hseq, {
      moc_id: moc._id,
      temporary_confirmation: { "restoration-confirmed": { value: "no" }, "confirm-comment": { value: "Not yet" } },
    });
    expect(refused.temporary.state).toBe("in-effect"); // its (moved) end date is in the future for today's clock
    expect((await emailsDuring(moc._id, () => own(addDays(until, 4)))).to).toEqual(department);
  });

  it("the list filters and the dashboard count in effect, ending within 14 days and expired", async () => {
    const crew = await makeCast();
    // Completed MOCs are visible to everyone: the counts grow by these MOCs.
    const before = await dashboard(crew.originator);
    const soon = await temporaryMocAt("in-effect", crew, daysFromToday(10));
    const later = await temporaryMocAt("in-effect", crew, daysFromToday(40));
    const asked = await temporaryMocAt("extension-requested", crew, daysFromToday(5));
    const gone = await temporaryMocAt("in-effect", crew, daysFromToday(20));
    await setUntil(gone._id, daysFromToday(-2));
    const permanent = await mocAt("completed", crew);
    const ids = async (temporary: "in-effect" | "ending-soon" | "expired") =>
      (await searchMocs(crew.originator, { temporary, mine: true, sort: "temporary", pageSize: 100 })).rows.map(
        (r) => r.id,
      );
    expect(await ids("in-effect")).toEqual([asked._id, soon._id, later._id]);
    expect(await ids("ending-soon")).toEqual([asked._id, soon._id]);
    expect(await ids("expired")).toEqual([gone._id]);
    const { rows } = await searchMocs(crew.originator, { mine: true, pageSize: 100 });
    expect(rows.find((r) => r.id === permanent._id)).toMatchObject({ temporaryState: null, temporaryUntil: null });
    expect(rows.find((r) => r.id === gone._id)).toMatchObject({ temporaryState: "expired" });
    const board = await dashboard(crew.originator);
    expect(board.temporary).toEqual({
      inEffect: before.temporary.inEffect + 3,
      endingSoon: before.temporary.endingSoon + 2,
      expired: before.temporary.expired + 1,
    });
    expect(board.expired.map((r) => r.id)).toContain(gone._id);
  });
});
