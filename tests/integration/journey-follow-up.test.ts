/**
 * Issue 42's journey, walked end to end as the people concerned: a change that did not work. A MOC
 * carries the work order it came from (an external reference); one of its actions is cancelled and
 * a follow-up MOC is raised from it; the verifier closes it with an effectiveness review date; on
 * that day the daily run asks the HSEQ department, who find the change not effective and raise a
 * second follow-up. Afterwards the record says the same thing everywhere: its links (both follow-ups,
 * "followed up by") on the API, the page, print and PDF; the review's result and comment; the work
 * order; its chain verifies; search finds it by the work order's number and by a follow-up's number;
 * the management review pack lists it under "not effective". Set JOURNEY_PRINT=1 to print the emails
 * the HSEQ department is sent (to read them, as the team's guide asks).
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as actionDoneRoute from "~/routes/api+/actionDone";
import * as actionTableRoute from "~/routes/api+/actionTable";
import * as cancelItemRoute from "~/routes/api+/cancelPlanItem";
import * as reviewRoute from "~/routes/api+/effectivenessReview";
import * as linksRoute from "~/routes/api+/links";
import * as newmocRoute from "~/routes/api+/newmoc";
import * as referencesRoute from "~/routes/api+/references";
import * as reviewPackRoute from "~/routes/api+/reviewPack";
import * as searchRoute from "~/routes/api+/search";
import { verifyAuditTrail } from "~/models/audit/audit.server";
import { addDays } from "~/models/moc/effectiveness.constants";
import { sendDueReminders } from "../helpers/reminder-run";
import { getDb } from "~/utils/db.server";
import { api } from "../helpers/api";
import { makeAdmin, makeUser } from "../helpers/factories";
import { daysFromToday, newMocBody, verifierForm, type Cast } from "../helpers/moc";
import {
  createMocOk,
  defaultStepBody,
  makeCast,
  post,
  stepOk,
  submitStep,
  tokenOf,
  type Doc,
} from "../helpers/moc-flow";
import { folded, pageTextOf, pdfTextOf, printOf } from "../helpers/record-views";

let cast: Cast;
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  cast = await makeCast();
});

const get = async (
  route: Parameters<typeof api>[0],
  path: string,
  who: { _id: string },
  query: Record<string, string>,
) => api(route, { path, query, token: await tokenOf(who) });

/** The HSEQ department's emails about `mocId` sent while `fn` ran (printed with JOURNEY_PRINT=1). */
async function hseqMailsDuring(mocId: string, fn: () => Promise<unknown>) {
  const mails = () =>
    getDb().execute<{ id: string; to_email: string; subject: string; text: string }>(sql`
      select e.id::text, e.to_email, e.subject, e.text from email_messages e
      where (e.record_id = ${mocId} or e.text like ${`%${mocId}%`}) and e.to_email in
        (select email from users where department = 'hseq' and active) order by e.created_at, e.id`);
  const before = new Set((await mails()).map((m) => m.id));
  await fn();
  const sent = (await mails()).filter((m) => !before.has(m.id));
  if (process.env.JOURNEY_PRINT === "1") {
    for (const m of sent) console.log(`--- -> ${m.to_email}\nSubject: ${m.subject}\n${m.text}\n`);
  }
  return sent;
}

describe("issue 42's journey: a change that did not work", () => {
  it("links, references, the effectiveness review and its follow-ups read the same everywhere", async () => {
    const title = "Overflow alarm on the fuel oil service tank";
    let moc: Doc = await createMocOk(cast, { title: { value: title } });
    const ref = `moc:${moc._id}`;

    // The originator records the work order the change came from.
    const wo = "WO-77310";
    const referenced = await post(referencesRoute, "/api/references", cast.originator, {
      body: { record: ref, type: "PMS work order", ref: wo },
    });
    expect(referenced.status, referenced.text).toBe(201);

    // The plan: one action is cancelled, and a follow-up MOC raised from it.
    const planned = await post(actionTableRoute, "/api/actionTable", cast.implementer, {
      body: {
        id: moc._id,
        action: {
          items: [
            { description: "Fit a second high-level switch", owner: cast.implementer._id, due: daysFromToday(10) },
            {
              description: "Brief the engineers on the new alarm",
              owner: cast.implementer._id,
              due: daysFromToday(10),
            },
          ],
        },
      },
    });
    expect(planned.status, planned.text).toBe(200);
    moc = planned.body.data;
    const [switchItem, briefing] = moc.action.items as Doc[];
    for (const step of ["implementer", "hseq", "approver"] as const) {
      moc = await stepOk(step, cast[step], defaultStepBody(step, moc, cast));
    }
    const cancelled = await post(cancelItemRoute, "/api/cancelPlanItem", cast.implementer, {
      body: { moc_id: moc._id, plan: "action", item_id: switchItem!._id, reason: "Class refused a second switch" },
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const first = await post(newmocRoute, "/api/newmoc", cast.originator, {
      body: { ...newMocBody(cast.implementer, { title: { value: `Follow-up: ${title}` } }), followUp: ref },
    });
    expect(first.status, first.text).toBe(200);
    const firstFollowUp: Doc = first.body.data;

    const done = await post(actionDoneRoute, "/api/actionDone", cast.implementer, {
      body: { moc_id: moc._id, plan: "action", item_id: briefing!._id, note: "All four engineers briefed" },
    });
    expect(done.status, done.text).toBe(200);
    moc = await stepOk("implementation", cast.implementer, defaultStepBody("implementation", moc, cast));

    // The verifier closes it; the review comes due tomorrow.
    const dueOn = addDays(today(), 1);
    const closed = await submitStep("verifier", cast.hseq, {
      moc_id: moc._id,
      verifier_form: { ...verifierForm("yes"), "review-date": { value: dueOn } },
    });
    expect(closed.status, closed.text).toBe(200);
    moc = closed.body.data;
    expect(moc.completed).toBe(true);
    expect(moc.effectiveness_review).toMatchObject({ due_on: dueOn, result: null });

    // The daily run on that day asks the HSEQ department, once; the day after, it is overdue.
    const asked = await hseqMailsDuring(moc._id, () => sendDueReminders({ today: dueOn }));
    expect(asked.map((m) => m.to_email)).toContain(cast.hseq.email);
    const mine = asked.filter((m) => m.to_email === cast.hseq.email);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.subject).toContain(`Your turn: review the effectiveness of MOC ${moc.serial_num}`);
    expect(folded(mine[0]!.text)).toContain(`/mocs/${moc._id}/effectiveness`);
    expect(await hseqMailsDuring(moc._id, () => sendDueReminders({ today: dueOn }))).toEqual([]);
    const overdue = await hseqMailsDuring(moc._id, () => sendDueReminders({ today: addDays(dueOn, 1) }));
    expect(overdue.filter((m) => m.to_email === cast.hseq.email).map((m) => m.subject)).toEqual([
      expect.stringMatching(/overdue/),
    ]);

    // HSEQ finds it not effective and raises a second follow-up from the review.
    const comment = "The alarm still sounds after the tank has overflowed into the save-all";
    const answered = await post(reviewRoute, "/api/effectivenessReview", cast.hseq, {
      body: { id: moc._id, result: "not-effective", comment },
    });
    expect(answered.status, answered.text).toBe(201);
    const second = await post(newmocRoute, "/api/newmoc", cast.hseq, {
      body: { ...newMocBody(cast.implementer), followUp: ref },
    });
    expect(second.status, second.text).toBe(200);
    const secondFollowUp: Doc = second.body.data;

    // Its links: both follow-ups, read from the original as "followed up by". Each reader sees the
    // links whose other end they may read: HSEQ (who reads every MOC) both; the originator, who is
    // not among the people of HSEQ's open follow-up, only the one they raised.
    const admin = await makeAdmin({ name: "Ada Admin" });
    const seenBy = async (who: { _id: string }) => {
      const links = await get(linksRoute, "/api/links", who, { record: ref });
      expect(links.status, links.text).toBe(200);
      return (links.body.data.links as { seen: string; other: { ref: string } }[]).map((l) => [l.seen, l.other.ref]);
    };
    const both = await seenBy(cast.hseq);
    expect(both).toEqual(
      expect.arrayContaining([
        ["followed up by", `moc:${firstFollowUp._id}`],
        ["followed up by", `moc:${secondFollowUp._id}`],
      ]),
    );
    expect(both).toHaveLength(2);
    expect(await seenBy(cast.originator)).toEqual([["followed up by", `moc:${firstFollowUp._id}`]]);

    // The page, the print view and the PDF say the same: the links, the work order, the review.
    const printed = folded(JSON.stringify(await printOf(moc._id, admin)));
    const pdf = await pdfTextOf(moc._id, admin);
    const page = await pageTextOf(moc._id, admin);
    for (const [where, text] of [
      ["print", printed],
      ["pdf", pdf],
      ["page", page],
    ] as const) {
      expect(text, where).toMatch(/followed up by/i);
      expect(text, where).toContain(`MOC ${firstFollowUp.serial_num}`);
      expect(text, where).toContain(`MOC ${secondFollowUp.serial_num}`);
      expect(text, where).toContain(wo);
      expect(text, where).toMatch(/not effective/i);
      expect(folded(text), where).toContain(comment);
      expect(text, where).toContain("Class refused a second switch");
    }

    // Its chain (and every other) verifies.
    const { broken } = await verifyAuditTrail();
    expect(broken).toEqual([]);

    // Search finds it by the work order's number and through a follow-up's number, for a reader of
    // both ends only: the originator finds it through the follow-up they raised, not through HSEQ's.
    const find = async (who: { _id: string }, q: string) => {
      const res = await get(searchRoute, "/api/search", who, { q });
      expect(res.status, res.text).toBe(200);
      return (res.body.data.mocs.results as { _id: string }[]).map((r) => r._id);
    };
    expect(await find(cast.originator, wo)).toContain(moc._id);
    expect(await find(cast.originator, `MOC ${firstFollowUp.serial_num}`)).toContain(moc._id);
    expect(await find(cast.hseq, `MOC ${secondFollowUp.serial_num}`)).toContain(moc._id);
    expect(await find(cast.originator, `MOC ${secondFollowUp.serial_num}`)).not.toContain(moc._id);

    // The management review pack for the period lists it under "not effective", as Insight counts it.
    const pack = await get(reviewPackRoute, "/api/reviewPack", cast.hseq, { from: today(), to: dueOn });
    expect(pack.status, pack.text).toBe(200);
    expect(pack.body.data.figures.effectiveness.notEffective).toBeGreaterThanOrEqual(1);
    const notEffective = (pack.body.data.lists as { figure: string; key: string; mocs: { id: string }[] }[]).find(
      (l) => l.figure === "effectiveness" && l.key === "notEffective",
    );
    expect(notEffective?.mocs.map((m) => m.id)).toContain(moc._id);

    // A reader of only the closed original (everyone reads a completed MOC), not of the follow-ups,
    // sees no link; the original's trail names that links were made, by number, never what the
    // follow-ups are about (docs/decisions/057-record-links-and-references.md).
    const stranger = await makeUser({ name: "Stan Stranger", department: "operations" });
    const strangers = await get(linksRoute, "/api/links", stranger, { record: ref });
    expect(strangers.status, strangers.text).toBe(200);
    expect(strangers.body.data.links).toEqual([]);
    const strangersPage = await pageTextOf(moc._id, stranger);
    expect(strangersPage).not.toContain(`Follow-up: ${title}`);
    expect(strangersPage).not.toContain(`/mocs/${firstFollowUp._id}`);
  });
});
