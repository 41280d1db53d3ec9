/**
 * Issue 42, the effectiveness review (docs/decisions/058-effectiveness-review.md): the verification
 * that closes a MOC sets its date (given, or the default by change type; bad dates 400 with nothing
 * changed), the daily run asks the HSEQ department once when it comes due and reminds them once a
 * day while it is overdue, HSEQ people see it waiting on them, POST /api/effectivenessReview answers
 * it once (201, 400, 403, 409, concurrent duplicates once) with its entry in the MOC's verified
 * chain, the MOC's JSON, print view and Insight's `effectiveness` figure.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as reviewRoute from "~/routes/api+/effectivenessReview";
import * as singleMocRoute from "~/routes/api+/singlemoc";
import * as reviewPage from "~/routes/mocs+/$id.effectiveness";
import { computeInsights } from "~/models/insights/insights.server";
import { dueEffectivenessReviews } from "~/models/moc/effectiveness.server";
import { defaultReviewDate, addDays } from "~/models/moc/effectiveness.constants";
import { sendDueReminders } from "../helpers/reminder-run";
import { mocRecordFor } from "~/web/record-out.server";
import { verifyAuditTrail } from "~/models/audit/audit-verify.server";
import { getDb } from "~/utils/db.server";
import { makeAdmin, makeUser } from "../helpers/factories";
import { api } from "../helpers/api";
import { verifierForm, type Cast } from "../helpers/moc";
import { makeCast, mocAt, post, submitStep, tokenOf, type Doc } from "../helpers/moc-flow";
import { buildRequest } from "../helpers/request";

let cast: Cast;
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  cast = await makeCast();
});

/** Closes a MOC at `f` through POST /api/submit/verifier, with a review date when given. */
async function close(moc: Doc, reviewDate?: string) {
  return submitStep("verifier", cast.hseq, {
    moc_id: moc._id,
    verifier_form: { ...verifierForm(), ...(reviewDate === undefined ? {} : { "review-date": { value: reviewDate } }) },
  });
}

async function reviewRow(mocId: string) {
  const [row] = await getDb().execute<{ due_on: string; set_by: string; result: string | null }>(
    sql`select due_on::text, set_by, result from effectiveness_reviews where moc_id = ${mocId}`,
  );
  return row ?? null;
}

/** A closed MOC whose review is due on `dueOn` (moved there, as if closed long ago). */
async function closedWithReviewDue(dueOn: string): Promise<Doc> {
  const moc = await mocAt("f", cast);
  const res = await close(moc);
  expect(res.status, res.text).toBe(200);
  await getDb().execute(sql`update effectiveness_reviews set due_on = ${dueOn} where moc_id = ${moc._id}`);
  return res.body.data;
}

const answer = async (who: { _id: string } | null, body: unknown) =>
  post(reviewRoute, "/api/effectivenessReview", who, { body });

describe("closing sets the review date", () => {
  it("defaults to 90 days for a permanent change, 30 for a temporary one, shown on the MOC's JSON", async () => {
    expect(defaultReviewDate("2026-01-01", "permanent")).toBe("2026-04-01");
    expect(defaultReviewDate("2026-01-01", "temporary")).toBe("2026-01-31");
    const moc = await mocAt("f", cast);
    const res = await close(moc);
    expect(res.status, res.text).toBe(200);
    expect(await reviewRow(moc._id)).toMatchObject({ due_on: addDays(today(), 90), set_by: cast.hseq._id });
    const single = await api(singleMocRoute, {
      path: "/api/singlemoc",
      query: { moc_id: moc._id },
      token: await tokenOf(cast.originator),
    });
    expect(single.body.effectiveness_review).toMatchObject({
      due_on: addDays(today(), 90),
      set_by: { _id: cast.hseq._id },
      result: null,
    });

    const temporary = await mocAt("f", cast, { temporaryUntil: addDays(today(), 60) });
    expect((await close(temporary)).status).toBe(200);
    expect((await reviewRow(temporary._id))!.due_on).toBe(addDays(today(), 30));
  });

  it("keeps a date the verifier gives", async () => {
    const moc = await mocAt("f", cast);
    expect((await close(moc, addDays(today(), 200))).status).toBe(200);
    expect((await reviewRow(moc._id))!.due_on).toBe(addDays(today(), 200));
  });

  it.each([
    ["today", 0],
    ["in the past", -3],
    ["past two years", 731],
  ])("refuses a date %s (400 on the field, the MOC still open)", async (_what, days) => {
    const moc = await mocAt("f", cast);
    const res = await close(moc, addDays(today(), days));
    expect(res.status, res.text).toBe(400);
    expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(["verifier_form.review-date"]);
    expect(await reviewRow(moc._id)).toBeNull();
    const [row] = await getDb().execute<{ completed: boolean }>(sql`select completed from mocs where id = ${moc._id}`);
    expect(row!.completed).toBe(false);
  });

  it("refuses a date that is not a date, and sets nothing when the MOC stays open", async () => {
    const moc = await mocAt("f", cast);
    expect((await close(moc, "next spring")).status).toBe(400);
    const open = await submitStep("verifier", cast.hseq, {
      moc_id: moc._id,
      verifier_form: { ...verifierForm("no"), "review-date": { value: addDays(today(), 10) } },
    });
    expect(open.status, open.text).toBe(200);
    expect(await reviewRow(moc._id)).toBeNull();
  });
});

describe("the daily run", () => {
  it("asks the HSEQ department once when a review comes due, then reminds once a day while overdue", async () => {
    const day = "2031-03-10";
    const moc = await closedWithReviewDue(day);
    // This MOC's review alone waits (the earlier tests' reviews would come due on these days too).
    await getDb().execute(sql`delete from effectiveness_reviews where moc_id <> ${moc._id}`);
    const other = await makeUser({ department: "hseq" });
    const emails = async () =>
      getDb().execute<{ to_email: string; subject: string }>(sql`
        select to_email, subject from email_messages
        where (subject like '%Your turn: review the effectiveness%' or subject like '%effectiveness review%overdue%')
          and (record_id = ${moc._id} or record_id is null) order by created_at, to_email`);
    const before = (await emails()).length;
    await sendDueReminders({ today: "2031-03-09" });
    expect((await emails()).length).toBe(before);

    const run = await sendDueReminders({ today: day });
    expect(run.message).toContain("1 effectiveness review due");
    const asked = (await emails()).slice(before);
    expect(asked.map((e) => e.to_email).sort()).toEqual([cast.hseq.email, other.email].sort());
    expect(asked.every((e) => e.subject.includes("Your turn: review the effectiveness of"))).toBe(true);
    // The same day again: nothing more.
    await sendDueReminders({ today: day });
    expect((await emails()).length).toBe(before + 2);

    // The next day it is overdue: one reminder each, once that day.
    await sendDueReminders({ today: "2031-03-11" });
    await sendDueReminders({ today: "2031-03-11" });
    const reminded = (await emails()).slice(before + 2);
    expect(reminded).toHaveLength(2);
    expect(reminded.every((e) => /overdue/.test(e.subject))).toBe(true);
    await sendDueReminders({ today: "2031-03-12" });
    expect((await emails()).length).toBe(before + 6);

    // Waiting on HSEQ people, nobody else.
    const waiting = await dueEffectivenessReviews(other, "2031-03-12");
    expect(waiting.reviews.map((r) => r.mocId)).toContain(moc._id);
    expect((await dueEffectivenessReviews(cast.originator, "2031-03-12")).total).toBe(0);

    // Answered, it is no longer reminded.
    expect((await answer(other, { id: moc._id, result: "effective" })).status).toBe(201);
    await sendDueReminders({ today: "2031-03-13" });
    expect((await emails()).length).toBe(before + 6);
  });
});

describe("POST /api/effectivenessReview", () => {
  let moc: Doc;
  beforeAll(async () => {
    moc = await closedWithReviewDue(today());
  });

  it("refuses anyone outside the HSEQ department and admins (403), without credentials 401", async () => {
    expect((await answer(cast.originator, { id: moc._id, result: "effective" })).status).toBe(403);
    expect((await answer(null, { id: moc._id, result: "effective" })).status).toBe(401);
    expect((await reviewRow(moc._id))!.result).toBeNull();
  });

  it("refuses bad bodies (400 by field): no result, an unknown one, no comment when not effective", async () => {
    const bad = [
      [{ id: moc._id }, "result"],
      [{ id: moc._id, result: "great" }, "result"],
      [{ id: moc._id, result: "not-effective" }, "comment"],
      [{ id: moc._id, result: "partly", comment: "   " }, "comment"],
      [{ id: "nope", result: "effective" }, "id"],
    ] as const;
    for (const [body, path] of bad) {
      const res = await answer(cast.hseq, body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
    expect((await reviewRow(moc._id))!.result).toBeNull();
  });

  it("409 for a MOC without a review (not closed)", async () => {
    const open = await mocAt("f", cast);
    const res = await answer(cast.hseq, { id: open._id, result: "effective" });
    expect(res.status, res.text).toBe(409);
  });

  it("answers once (two at the same time: one 201, one 409), in the MOC's verified chain, JSON and print", async () => {
    const body = { id: moc._id, result: "not-effective", comment: "The alarm still sounds late on tank 2" };
    const results = await Promise.all([answer(cast.hseq, body), answer(cast.hseq, body)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    const created = results.find((r) => r.status === 201)!;
    expect(created.body.data).toMatchObject({
      result: "not-effective",
      comment: body.comment,
      reviewed_by: { _id: cast.hseq._id },
    });
    expect((await answer(cast.hseq, { id: moc._id, result: "effective" })).status).toBe(409);

    const [log] = await getDb().execute<{ action: string; comment: string }>(sql`
      select action, comment from moc_logs where moc_id = ${moc._id} order by seq desc limit 1`);
    expect(log).toEqual({ action: "Reviewed the effectiveness: Not effective", comment: body.comment });
    const [entries] = await getDb().execute<{ n: number }>(sql`
      select count(*)::int as n from moc_logs where moc_id = ${moc._id} and action like 'Reviewed the effectiveness%'`);
    expect(entries!.n).toBe(1);
    const audit = await verifyAuditTrail();
    expect(audit.broken.filter((b) => b.recordId === moc._id)).toEqual([]);

    const print = await mocRecordFor(
      await buildRequest({ path: `/mocs/${moc._id}/print`, token: await tokenOf(cast.hseq) }),
      moc._id,
    );
    const section = print.sections.find((s) => s.title === "Effectiveness review");
    expect(JSON.stringify(section)).toContain("Not effective");
    expect(JSON.stringify(section)).toContain(body.comment);
  });

  it("an admin may answer too", async () => {
    const other = await closedWithReviewDue(today());
    const admin = await makeAdmin();
    expect((await answer(admin, { id: other._id, result: "partly", comment: "Half the crews trained" })).status).toBe(
      201,
    );
  });
});

describe("the review page", () => {
  it("shows the form to the HSEQ department and refuses others (403)", async () => {
    const moc = await closedWithReviewDue(today());
    const load = async (who: { _id: string }) => {
      try {
        return await reviewPage.loader({
          request: await buildRequest({ path: `/mocs/${moc._id}/effectiveness`, token: await tokenOf(who) }),
          params: { id: moc._id },
          context: {},
        } as never);
      } catch (thrown) {
        return thrown as { init?: { status?: number } };
      }
    };
    expect(((await load(cast.originator)) as { init: { status: number } }).init.status).toBe(403);
    const data = (await load(cast.hseq)) as { review: { due_on: string } };
    expect(data.review.due_on).toBe(today());
  });
});

describe("Insight's effectiveness figure", () => {
  it("counts the reviews due in the period, answered by result, and overdue", async () => {
    const from = "2035-01-01";
    const to = "2035-12-31";
    const due = ["2035-02-01", "2035-03-01", "2035-04-01", "2035-05-01", "2035-06-01"];
    const mocs: Doc[] = [];
    for (const day of due) mocs.push(await closedWithReviewDue(day));
    await closedWithReviewDue("2036-01-02"); // outside the period
    await answer(cast.hseq, { id: mocs[0]!._id, result: "effective" });
    await answer(cast.hseq, { id: mocs[1]!._id, result: "partly", comment: "Partly" });
    await answer(cast.hseq, { id: mocs[2]!._id, result: "not-effective", comment: "Not at all" });
    const figures = await computeInsights({ from, to, department: null }, { now: new Date("2035-05-15T12:00:00Z") });
    // Due in the period: 5; answered 3 (1 each); overdue on 15 May: the one due 1 May (1 June is not yet due).
    expect(figures.effectiveness).toEqual({
      due: 5,
      answered: 3,
      effective: 1,
      partly: 1,
      notEffective: 1,
      overdue: 1,
    });
  });
});
