/**
 * Issue 41, training (docs/decisions/056-training.md): an action-plan item made a training names
 * who must attend; attendance is recorded (API and page, without JavaScript) by the item's owner,
 * the implementer or HSEQ, with the date and who recorded it, each record added and never changed,
 * in the MOC's audit chain; an open training keeps Part F's "Are trainings complete?" from being
 * answered yes (409 naming the training and who has not attended), and the record and its print
 * show the attendance.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as actionTableRoute from "~/routes/api+/actionTable";
import * as actionDoneRoute from "~/routes/api+/actionDone";
import * as cancelRoute from "~/routes/api+/cancelPlanItem";
import * as trainingRoute from "~/routes/api+/training";
import * as attendanceRoute from "~/routes/api+/trainingAttendance";
import * as trainingsPage from "~/routes/mocs+/$id.trainings";
import { verifyAuditTrail } from "~/models/audit/audit.server";
import { describeMocParts } from "~/models/moc/moc-parts.server";
import { mocPrintRecord } from "~/models/moc/moc-print.server";
import { loadMocDocument } from "~/models/moc/moc-query.server";
import type { PublicUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { makeUser } from "../helpers/factories";
import { daysFromToday, verifierForm, type Cast } from "../helpers/moc";
import {
  createMocOk,
  defaultStepBody,
  expectError,
  issuePaths,
  makeCast,
  mocSnapshot,
  post,
  stepOk,
  submitStep,
  tokenOf,
  type Doc,
} from "../helpers/moc-flow";
import { buildRequest } from "../helpers/request";

let cast: Cast;
let tom: PublicUser;
let una: PublicUser;
let outsider: PublicUser;
let hseqColleague: PublicUser;

const TRAINING = "Toolbox talk on the new bunkering checklist";

beforeAll(async () => {
  cast = await makeCast();
  tom = await makeUser({ name: "Tom Trainee" });
  una = await makeUser({ name: "Una Deckhand" });
  outsider = await makeUser({ name: "Otto Outsider" });
  hseqColleague = await makeUser({ name: "Hanna HSEQ", department: "hseq" });
});

const setTraining = (by: { _id: string }, body: Record<string, unknown>) =>
  post(trainingRoute, "/api/training", by, { body });
const attend = (by: { _id: string }, body: Record<string, unknown>) =>
  post(attendanceRoute, "/api/trainingAttendance", by, { body });

/** A MOC at `b` with one action, owned by the implementer: the training to be. */
async function withAction(): Promise<Doc> {
  const moc = await createMocOk(cast);
  const res = await post(actionTableRoute, "/api/actionTable", cast.implementer, {
    body: {
      id: moc._id,
      action: { items: [{ description: TRAINING, owner: cast.implementer._id, due: daysFromToday(10) }] },
    },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** A MOC whose only action is a training Tom and Una must attend, taken to `stage`. */
async function trainingMoc(stage: "b" | "e" | "f"): Promise<{ moc: Doc; itemId: string }> {
  let moc = await withAction();
  const itemId = moc.action.items[0]._id;
  const res = await setTraining(cast.implementer, { moc_id: moc._id, item_id: itemId, attendees: [tom._id, una._id] });
  expect(res.status, res.text).toBe(200);
  moc = res.body.data;
  if (stage === "b") return { moc, itemId };
  for (const [step, by] of [
    ["implementer", cast.implementer],
    ["hseq", cast.hseq],
    ["approver", cast.approver],
  ] as const) {
    moc = await stepOk(step, by, defaultStepBody(step, moc, cast));
  }
  if (stage === "e") return { moc, itemId };
  moc = await stepOk("implementation", cast.implementer, defaultStepBody("implementation", moc, cast));
  expect(moc.status).toBe("f");
  return { moc, itemId };
}

const today = () => new Date().toISOString().slice(0, 10);

/** Posts the trainings page's form as a browser without JavaScript does. */
async function postPage(by: { _id: string }, mocId: string, fields: [string, string][]) {
  const form = new URLSearchParams(fields);
  return (await trainingsPage.action({
    request: await buildRequest({
      method: "POST",
      path: `/mocs/${mocId}/trainings`,
      token: await tokenOf(by),
      cookie: true,
      body: form.toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    }),
    params: { id: mocId },
    context: {},
  })) as unknown as
    Response | { data: { at: string; message: string; errors: Record<string, string[]> }; init: { status: number } };
}

const verify = (moc: Doc, answers: ReturnType<typeof verifierForm>) =>
  submitStep("verifier", cast.hseq, { moc_id: moc._id, verifier_form: answers });

const itemOf = (doc: Doc, itemId: string) => doc.action.items.find((i: { _id: string }) => i._id === itemId);

describe("a plan item made a training", () => {
  it("names who must attend; the item keeps its keys and gains `training`; a re-saved plan keeps it", async () => {
    const { moc, itemId } = await trainingMoc("b");
    const item = itemOf(moc, itemId);
    expect(item).toMatchObject({
      description: TRAINING,
      owner: cast.implementer._id,
      due: daysFromToday(10),
      done: false,
      training: {
        attendees: [
          { _id: tom._id, name: "Tom Trainee" },
          { _id: una._id, name: "Una Deckhand" },
        ],
        attendance: [],
      },
    });
    // Saving the plan through its table (the original contract, no `training` key) keeps it.
    const res = await post(actionTableRoute, "/api/actionTable", cast.implementer, {
      body: {
        id: moc._id,
        action: { items: [{ _id: itemId, description: `${TRAINING} (revised)`, owner: cast.implementer._id }] },
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(itemOf(res.body.data, itemId).training.attendees).toHaveLength(2);
    expect(itemOf(res.body.data, itemId).description).toBe(`${TRAINING} (revised)`);
  });

  it("403 for someone who may not edit the plan, 400 for an unknown person, 404 for an unknown item: nothing changes", async () => {
    const moc = await withAction();
    const itemId = moc.action.items[0]._id;
    const before = await mocSnapshot(moc._id);
    expectError(await setTraining(cast.approver, { moc_id: moc._id, item_id: itemId, attendees: [tom._id] }), 403);
    const unknown = await setTraining(cast.implementer, {
      moc_id: moc._id,
      item_id: itemId,
      attendees: [tom._id, "00000000-0000-4000-8000-000000000000"],
    });
    expectError(unknown, 400);
    expect(issuePaths(unknown)).toEqual(["attendees.1"]);
    expectError(await setTraining(cast.implementer, { moc_id: moc._id, item_id: "nope", attendees: [tom._id] }), 404);
    expectError(await setTraining(cast.implementer, { moc_id: moc._id, item_id: itemId, attendees: "tom" }), 400);
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });

  it("from approval on people are only added (409 when one is left out)", async () => {
    const { moc, itemId } = await trainingMoc("e");
    const dropped = await setTraining(cast.implementer, { moc_id: moc._id, item_id: itemId, attendees: [tom._id] });
    expectError(dropped, 409);
    expect(dropped.body.message).toContain("Una Deckhand");
    const added = await setTraining(cast.implementer, {
      moc_id: moc._id,
      item_id: itemId,
      attendees: [tom._id, una._id, outsider._id],
    });
    expect(added.status, added.text).toBe(200);
    expect(itemOf(added.body.data, itemId).training.attendees.map((a: { name: string }) => a.name)).toEqual([
      "Tom Trainee",
      "Una Deckhand",
      "Otto Outsider",
    ]);
  });
});

describe("recording attendance", () => {
  it("is refused before approval (409), to others (403) and for bad input (400), changing nothing", async () => {
    const early = await trainingMoc("b");
    expectError(
      await attend(cast.implementer, {
        moc_id: early.moc._id,
        item_id: early.itemId,
        attendees: [tom._id],
        date: today(),
      }),
      409,
    );

    const { moc, itemId } = await trainingMoc("e");
    const before = await mocSnapshot(moc._id);
    const good = { moc_id: moc._id, item_id: itemId, attendees: [tom._id], date: today() };
    // Not the owner, the implementer or HSEQ: the originator, the approver, an attendee, an outsider.
    for (const who of [cast.originator, cast.approver, tom, outsider]) expectError(await attend(who, good), 403);
    const stranger = await attend(cast.implementer, { ...good, attendees: [tom._id, outsider._id] });
    expectError(stranger, 400);
    expect(issuePaths(stranger)).toEqual(["attendees.1"]);
    const future = await attend(cast.implementer, { ...good, date: daysFromToday(3) });
    expectError(future, 400);
    expect(issuePaths(future)).toEqual(["date"]);
    expectError(await attend(cast.implementer, { ...good, date: "29/11/2026" }), 400);
    expectError(await attend(cast.implementer, { ...good, attendees: [] }), 400);
    expectError(await attend(cast.implementer, { ...good, item_id: "nope" }), 404);
    expect(await mocSnapshot(moc._id)).toEqual(before);
    const [{ n }] = (await getDb().execute<{ n: number }>(
      sql`select count(*)::int as n from training_attendance where moc_id = ${moc._id}`,
    )) as unknown as [{ n: number }];
    expect(n).toBe(0);
  });

  it("marking a training done by hand is refused: its attendance decides", async () => {
    const { moc, itemId } = await trainingMoc("e");
    const res = await post(actionDoneRoute, "/api/actionDone", cast.implementer, {
      body: { moc_id: moc._id, plan: "action", item_id: itemId, note: "Held it" },
    });
    expectError(res, 409);
    expect(res.body.message).toMatch(/training/);
  });
});

describe("the training gate at verification", () => {
  it("refuses “trainings complete: yes” naming the training and who has not attended, then passes after attendance", async () => {
    const { moc, itemId } = await trainingMoc("f");

    // Answered yes without closing: 409 on the answer, naming the training and both people.
    const before = await mocSnapshot(moc._id);
    const refused = await verify(moc, verifierForm("no"));
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.message).toMatch(/trainings complete/i);
    expect(refused.body.issues).toEqual([
      {
        path: "verifier_form.trainings-complete",
        message: expect.stringMatching(new RegExp(`Training “${TRAINING}”.*Tom Trainee, Una Deckhand`)),
      },
    ]);
    expect(await mocSnapshot(moc._id)).toEqual(before);

    // The implementer records Tom over the API.
    const first = await attend(cast.implementer, {
      moc_id: moc._id,
      item_id: itemId,
      attendees: [tom._id],
      date: today(),
      note: "Held in the mess room",
    });
    expect(first.status, first.text).toBe(200);
    const afterTom = itemOf(first.body.data, itemId);
    expect(afterTom.done).toBe(false);
    expect(afterTom.training.attendance).toEqual([
      expect.objectContaining({
        user: tom._id,
        name: "Tom Trainee",
        attended: true,
        on: today(),
        note: "Held in the mess room",
        by: cast.implementer._id,
        byName: cast.implementer.name,
      }),
    ]);
    // Closing now: the training is named (with Una only) among what is open.
    const closing = await verify(moc, verifierForm("yes"));
    expect(closing.status, closing.text).toBe(409);
    expect(closing.body.issues).toContainEqual({
      path: "verifier_form.trainings-complete",
      message: expect.stringMatching(/not attended yet by Una Deckhand$/),
    });

    // An HSEQ colleague (not the MOC's HSEQ user) records Una through the page, without JavaScript.
    const page = await postPage(hseqColleague, moc._id, [
      ["intent", "attendance"],
      ["at", `attendance:${itemId}`],
      ["item_id", itemId],
      ["attendees", una._id],
      ["date", today()],
    ]);
    expect(page).toBeInstanceOf(Response);
    expect((page as Response).status).toBe(302);
    const doc = (await loadMocDocument(moc._id))!;
    const done = itemOf(doc, itemId);
    expect(done.done).toBe(true);
    expect(done.completion).toMatchObject({ byName: "Hanna HSEQ", note: expect.stringMatching(/Training complete/) });

    // A correction (Tom did not attend after all) reopens it; recording him again closes it.
    const correction = await attend(cast.implementer, {
      moc_id: moc._id,
      item_id: itemId,
      attendees: [tom._id],
      date: today(),
      attended: false,
      note: "Recorded by mistake: he was on watch",
    });
    expect(correction.status, correction.text).toBe(200);
    expect(itemOf(correction.body.data, itemId).done).toBe(false);
    expect((await verify(moc, verifierForm("no"))).body.issues[0].message).toMatch(/not attended yet by Tom Trainee$/);
    expect(
      (await attend(cast.implementer, { moc_id: moc._id, item_id: itemId, attendees: [tom._id], date: today() }))
        .status,
    ).toBe(200);

    const closed = await verify(moc, verifierForm("yes"));
    expect(closed.status, closed.text).toBe(200);
    expect(closed.body.data).toMatchObject({ completed: true });

    // Four records, none changed: the table refuses UPDATE and DELETE.
    const rows = await getDb().execute<{ user_name: string; attended: boolean; recorded_by_name: string }>(
      sql`select user_name, attended, recorded_by_name from training_attendance where moc_id = ${moc._id} order by recorded_at`,
    );
    expect([...rows]).toEqual([
      { user_name: "Tom Trainee", attended: true, recorded_by_name: cast.implementer.name },
      { user_name: "Una Deckhand", attended: true, recorded_by_name: "Hanna HSEQ" },
      { user_name: "Tom Trainee", attended: false, recorded_by_name: cast.implementer.name },
      { user_name: "Tom Trainee", attended: true, recorded_by_name: cast.implementer.name },
    ]);
    await expect(
      getDb().execute(sql`update training_attendance set attended = true where moc_id = ${moc._id}`),
    ).rejects.toThrow();
    await expect(getDb().execute(sql`delete from training_attendance where moc_id = ${moc._id}`)).rejects.toThrow();

    // The audit chain has each record, with who and when; it verifies.
    const logs = await getDb().execute<{ action: string; comment: string | null; user_id: string }>(
      sql`select action, comment, user_id from moc_logs where moc_id = ${moc._id} and action like '%attendance%' order by seq`,
    );
    expect(logs.map((l) => l.action)).toEqual([
      `Recorded attendance at the training “${TRAINING}”`,
      `Recorded attendance at the training “${TRAINING}”`,
      `Corrected the attendance at the training “${TRAINING}”`,
      `Recorded attendance at the training “${TRAINING}”`,
    ]);
    expect(logs[0]!.comment).toContain(`Attended on ${today()}: Tom Trainee`);
    expect(logs[0]!.comment).toContain("Not attended yet: Una Deckhand");
    expect(logs[1]!.user_id).toBe(hseqColleague._id);
    expect(logs[2]!.comment).toContain("Did not attend (correction)");
    expect((await verifyAuditTrail()).broken.filter((b) => b.recordId === moc._id)).toEqual([]);

    // The record, its print and its PDF show the training with each person's attendance.
    const closedDoc = (await loadMocDocument(moc._id))!;
    const described = describeMocParts(closedDoc);
    const printed = mocPrintRecord(closedDoc, []).sections.find((section) => section.id === "trainings");
    expect(printed?.title).toBe("Trainings");
    expect(JSON.stringify(printed?.blocks)).toContain("Una Deckhand: attended");
    const table = described.tables.find((t) => t.id === "trainings")!;
    expect(table.rows).toEqual([
      [
        TRAINING,
        "Tom Trainee, Una Deckhand",
        daysFromToday(10),
        expect.stringMatching(
          new RegExp(
            `Tom Trainee: attended ${today()} \\(recorded by ${cast.implementer.name} .*Una Deckhand: attended ${today()} \\(recorded by Hanna HSEQ`,
          ),
        ),
      ],
    ]);
  });

  it("a cancelled training no longer holds the answer", async () => {
    const { moc, itemId } = await trainingMoc("f");
    const cancelled = await post(cancelRoute, "/api/cancelPlanItem", cast.implementer, {
      body: { moc_id: moc._id, plan: "action", item_id: itemId, reason: "Covered by the shore course" },
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const res = await verify(moc, verifierForm("yes"));
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.completed).toBe(true);
  });
});

describe("the trainings page", () => {
  it("answers a bad form with 400 next to its fields, and a refused person with 403, changing nothing", async () => {
    const { moc, itemId } = await trainingMoc("e");
    const before = await mocSnapshot(moc._id);
    const empty = (await postPage(cast.implementer, moc._id, [
      ["intent", "attendance"],
      ["at", `attendance:${itemId}`],
      ["item_id", itemId],
      ["date", today()],
    ])) as { data: { at: string; errors: Record<string, string[]> }; init: { status: number } };
    expect(empty.init.status).toBe(400);
    expect(empty.data.at).toBe(`attendance:${itemId}`);
    expect(empty.data.errors.attendees?.[0]).toMatch(/at least one/);
    const future = (await postPage(cast.implementer, moc._id, [
      ["intent", "attendance"],
      ["at", `attendance:${itemId}`],
      ["item_id", itemId],
      ["attendees", tom._id],
      ["date", daysFromToday(5)],
    ])) as { data: { errors: Record<string, string[]> }; init: { status: number } };
    expect(future.init.status).toBe(400);
    expect(future.data.errors.date).toEqual(["The date cannot be in the future"]);
    const refused = (await postPage(cast.approver, moc._id, [
      ["intent", "attendance"],
      ["at", `attendance:${itemId}`],
      ["item_id", itemId],
      ["attendees", tom._id],
      ["date", today()],
    ])) as { init: { status: number } };
    expect(refused.init.status).toBe(403);
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });

  it("makes an action a training from the page", async () => {
    const moc = await withAction();
    const itemId = moc.action.items[0]._id;
    const res = await postPage(cast.implementer, moc._id, [
      ["intent", "attendees"],
      ["at", "attendees:new"],
      ["item_id", itemId],
      ["attendees", tom._id],
    ]);
    expect((res as Response).status).toBe(302);
    const doc = (await loadMocDocument(moc._id))!;
    expect(itemOf(doc, itemId).training.attendees).toEqual([{ _id: tom._id, name: "Tom Trainee" }]);
  });
});
