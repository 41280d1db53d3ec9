/**
 * Issue 38's fourth journey, walked end to end as the people concerned: a MOC whose action plan has
 * an item that turns out unnecessary. Its owner (a deck officer, not the implementer) is told it was
 * cancelled and why; the other item is marked done with a note by its owner; the HSEQ user who
 * cancelled an item may not close the MOC (four eyes, judged from the trail); the verifier closes
 * it. At each point the record page, the print view, the PDF and the emails say the same thing:
 * the cancelled item with its reason, the done item with its note, and the stage. Set
 * JOURNEY_PRINT=1 to print every email of the journey (to read them, as issue 38 asks).
 */
import { asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { emailMessages } from "#db/schema";
import { startBoss } from "#jobs/boss";
import * as addUserRoute from "~/routes/api+/addUser";
import * as actionDoneRoute from "~/routes/api+/actionDone";
import * as actionTableRoute from "~/routes/api+/actionTable";
import * as cancelItemRoute from "~/routes/api+/cancelPlanItem";
import { getDb } from "~/utils/db.server";
import { makeUser } from "../helpers/factories";
import { daysFromToday, verifierForm, type Cast } from "../helpers/moc";
import {
  createMocOk,
  defaultStepBody,
  expectError,
  makeCast,
  mocSnapshot,
  post,
  stageOf,
  stepOk,
  submitStep,
  type Doc,
} from "../helpers/moc-flow";
import { folded, pageTextOf, pdfTextOf, printOf } from "../helpers/record-views";

let cast: Cast;
let deck: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  await startBoss();
  cast = await makeCast();
  deck = await makeUser({ name: "Dora Deck", department: "fleet" });
});

type Mail = { to: string; subject: string; text: string };
async function mailsOf(mocId: string): Promise<Mail[]> {
  const rows = await getDb()
    .select({ to: emailMessages.toEmail, subject: emailMessages.subject, text: emailMessages.text })
    .from(emailMessages)
    .where(eq(emailMessages.recordId, mocId))
    .orderBy(asc(emailMessages.createdAt), asc(emailMessages.id));
  return rows;
}

/** The emails about the MOC sent while `fn` ran (printed with JOURNEY_PRINT=1). */
async function mailsDuring(mocId: string, label: string, fn: () => Promise<unknown>): Promise<Mail[]> {
  const before = (await mailsOf(mocId)).length;
  await fn();
  const sent = (await mailsOf(mocId)).slice(before);
  if (process.env.JOURNEY_PRINT === "1") {
    for (const mail of sent) console.log(`--- ${label} -> ${mail.to}\nSubject: ${mail.subject}\n${mail.text}\n`);
  }
  return sent;
}

describe("issue 38's journey: a cancelled action", () => {
  it("reads the same on the page, in print, in the PDF and in the emails, from the plan to closing", async () => {
    let moc: Doc = await createMocOk(cast);
    const planned = await post(actionTableRoute, "/api/actionTable", cast.implementer, {
      body: {
        id: moc._id,
        action: {
          items: [
            { description: "Fit a guard over the bilge alarm bypass switch", owner: deck._id, due: daysFromToday(10) },
            { description: "Brief the engine crew on the bypass", owner: deck._id, due: daysFromToday(10) },
            { description: "Update the engine room checklist", owner: deck._id, due: daysFromToday(20) },
          ],
        },
      },
    });
    expect(planned.status, planned.text).toBe(200);
    moc = planned.body.data;
    const [guard, brief, checklist] = moc.action.items as Doc[];
    for (const step of ["implementer", "hseq", "approver"] as const) {
      moc = await stepOk(step, cast[step], defaultStepBody(step, moc, cast));
    }
    expect(await stageOf(moc)).toBe("Implementation");

    // The implementer cancels the guard: its owner is told, with the reason, once.
    const reason = "The switch is removed by the yard next month; a guard is not needed";
    const cancelled = await mailsDuring(moc._id, "cancel", async () => {
      const res = await post(cancelItemRoute, "/api/cancelPlanItem", cast.implementer, {
        body: { moc_id: moc._id, plan: "action", item_id: guard!._id, reason },
      });
      expect(res.status, res.text).toBe(200);
    });
    const toDora = cancelled.filter((m) => m.to === deck.email);
    expect(toDora).toHaveLength(1);
    expect(toDora[0]!.subject).toContain(`MOC ${moc.serial_num}`);
    expect(folded(toDora[0]!.text)).toContain("Fit a guard over the bilge alarm bypass switch");
    expect(folded(toDora[0]!.text)).toContain(reason);
    expect(folded(toDora[0]!.text)).toContain(cast.implementer.name);
    expect(cancelled.filter((m) => m.to === cast.implementer.email)).toEqual([]);
    // It is an `action` notice, like the one that gave her the item: one choice covers both.
    expect(toDora[0]!.text).toContain("Stop emails like this (Actions)");

    // The owner marks the other item done: a note is required.
    expectError(
      await post(actionDoneRoute, "/api/actionDone", deck, {
        body: { moc_id: moc._id, plan: "action", item_id: brief!._id },
      }),
      400,
    );
    const note = "Briefed all four engineers at the 08:00 toolbox talk";
    const done = await post(actionDoneRoute, "/api/actionDone", deck, {
      body: { moc_id: moc._id, plan: "action", item_id: brief!._id, note },
    });
    expect(done.status, done.text).toBe(200);

    moc = await stepOk("implementation", cast.implementer, defaultStepBody("implementation", moc, cast));
    expect(await stageOf(moc)).toBe("Verification");

    // At verification the HSEQ user cancels the last open item; having cancelled it, they may not
    // close the MOC (four eyes, from the trail); another HSEQ person closes it.
    const why = "Folded into the fleet-wide checklist revision";
    const second = await mailsDuring(moc._id, "cancel at verification", async () => {
      const res = await post(cancelItemRoute, "/api/cancelPlanItem", cast.hseq, {
        body: { moc_id: moc._id, plan: "action", item_id: checklist!._id, reason: why },
      });
      expect(res.status, res.text).toBe(200);
    });
    expect(second.map((m) => m.to)).toEqual([deck.email]);
    expect(folded(second[0]!.text)).toContain(why);
    const before = await mocSnapshot(moc._id);
    const refused = await submitStep("verifier", cast.hseq, { moc_id: moc._id, verifier_form: verifierForm("yes") });
    expectError(refused, 403);
    expect(refused.body.message).toMatch(/cancel/i);
    expect(await mocSnapshot(moc._id)).toEqual(before);
    expect(refused.body.message).toContain("the originator or an admin names a verifier");
    // The originator names a verifier (the closing cannot be the canceller's), who closes it.
    const named = await post(addUserRoute, "/api/addUser", cast.originator, {
      body: { userId: cast.verifier._id, mocId: moc._id, role: "verifier" },
    });
    expect(named.status, named.text).toBe(200);
    const closer = cast.verifier;
    const closing = await mailsDuring(moc._id, "close", async () => {
      moc = await stepOk("verifier", closer, { moc_id: moc._id, verifier_form: verifierForm("yes") });
    });
    expect(moc.completed).toBe(true);
    expect(await stageOf(moc)).toBe("Completed");
    expect(closing.length).toBeGreaterThan(0);
    for (const mail of closing) {
      expect(mail.subject).toContain(`MOC ${moc.serial_num}`);
      expect(mail.to).not.toBe(closer.email);
    }

    // The record reads the same everywhere: the page, print and PDF.
    const print = await printOf(moc._id, cast.originator);
    const printed = folded(JSON.stringify(print));
    const pdf = await pdfTextOf(moc._id, cast.originator);
    const page = await pageTextOf(moc._id, cast.originator);
    for (const [where, text] of [
      ["print", printed],
      ["pdf", pdf],
      ["page", page],
    ] as const) {
      expect(text, where).toContain("Fit a guard over the bilge alarm bypass switch");
      expect(text, where).toContain(reason);
      expect(text, where).toContain("Brief the engine crew on the bypass");
    }
    expect(print.status).toBe("Completed");
    expect(pdf).toContain("Completed");
    // The trail names the cancellation with its reason and the completion with its note.
    expect(pdf).toContain("Cancelled the action “Fit a guard over the bilge alarm bypass switch”");
    expect(printed).toContain(note);
    expect(printed).toContain(why);
  });
});
