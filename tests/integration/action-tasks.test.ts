/**
 * Issue 28 item 5, actions as tasks (docs/decisions/038-actions-as-tasks.md): owners told once when
 * named and never of their own assignment, "My actions" across MOCs, marking an item done with a
 * note and evidence (API and page), the daily reminders of items due within 3 days or overdue
 * (one email each, or in the digest), and the Insight table of overdue actions by department.
 */
import { createHash } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { emailMessages, users } from "#db/schema";
import * as actionDoneRoute from "~/routes/api+/actionDone";
import * as actionTableRoute from "~/routes/api+/actionTable";
import * as cancelItemRoute from "~/routes/api+/cancelPlanItem";
import * as manualsPlanRoute from "~/routes/api+/manualsPlan";
import * as myActionsRoute from "~/routes/api+/myActions";
import * as doneItemPage from "~/routes/mocs+/$id.done-item";
import { myActions } from "~/models/moc/action-tasks.server";
import { storeAttachment } from "~/models/records/attachments.server";
import { computeInsights } from "~/models/insights/insights.server";
import { sendDueReminders } from "../helpers/reminder-run";
import { getDb } from "~/utils/db.server";
import { makeUser } from "../helpers/factories";
import { daysFromToday, type Cast } from "../helpers/moc";
import {
  defaultStepBody,
  expectError,
  makeCast,
  mocAt,
  emailsDuring,
  mocSnapshot,
  post,
  stepOk,
  submitStep,
  tokenOf,
  type Doc,
} from "../helpers/moc-flow";
import * as addUserRoute from "~/routes/api+/addUser";
import { api } from "../helpers/api";
import { BASE, sessionCookieHeader } from "../helpers/request";

const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");
async function* pieces(b: Buffer) {
  yield new Uint8Array(b);
}

let cast: Cast;
beforeAll(async () => {
  cast = await makeCast();
});

type Item = { _id?: string; description: string; owner: string | null; due: string | null; done?: boolean };

async function savePlan(moc: Doc, who: { _id: string }, items: Item[]) {
  const res = await post(actionTableRoute, "/api/actionTable", who, {
    body: { id: moc._id, action: { items: items.map((i) => ({ done: false, ...i })) } },
  });
  return res;
}

/** The notices of kind `action` a person has about a MOC. */
async function actionNotices(person: { _id: string }, mocId: string) {
  return getDb()
    .select({ subject: emailMessages.subject, text: emailMessages.text, emailed: emailMessages.emailed })
    .from(emailMessages)
    .where(
      and(eq(emailMessages.toUserId, person._id), eq(emailMessages.recordId, mocId), eq(emailMessages.kind, "action")),
    );
}

/** A MOC with the given action items saved at `b`, then approved (status `e`). */
async function approvedWith(items: Item[]): Promise<Doc> {
  const moc = await mocAt("b", cast);
  const saved = await savePlan(moc, cast.implementer, items);
  expect(saved.status, saved.text).toBe(200);
  let doc = await stepOk("implementer", cast.implementer, defaultStepBody("implementer", saved.body.data, cast));
  doc = await stepOk("hseq", cast.hseq, defaultStepBody("hseq", doc, cast));
  return stepOk("approver", cast.approver, defaultStepBody("approver", doc, cast));
}

const markDone = async (who: { _id: string }, body: Record<string, unknown>) =>
  post(actionDoneRoute, "/api/actionDone", who, { body });

describe("owners told when they are named", () => {
  it("notifies and emails a new owner once, never the person naming themselves, not again on a re-save", async () => {
    const owner = await makeUser({ name: "Olga Owner", department: "operations" });
    const moc = await mocAt("b", cast);
    const first = await savePlan(moc, cast.implementer, [
      { description: "Order the new gaskets", owner: owner._id, due: daysFromToday(10) },
      { description: "Brief the engine crew", owner: owner._id, due: null },
      { description: "Update the PMS job", owner: cast.implementer._id, due: null },
    ]);
    expect(first.status, first.text).toBe(200);
    const notices = await actionNotices(owner, moc._id);
    expect(notices).toHaveLength(1);
    expect(notices[0]!.emailed).toBe(true);
    expect(notices[0]!.subject).toContain("2 items of the action plan assigned to you");
    expect(notices[0]!.text).toContain("Order the new gaskets");
    expect(notices[0]!.text).toContain("Brief the engine crew");
    // The implementer named themselves: nothing.
    expect(await actionNotices(cast.implementer, moc._id)).toHaveLength(0);
    // The owner joined the MOC's people, so they can open it.
    expect(first.body.data.all_users.map((u: { _id: string }) => u._id)).toContain(owner._id);

    // A re-save keeping the owners (and an edit of the description) tells nobody again.
    const items = first.body.data.action.items as (Item & { _id: string })[];
    const again = await savePlan(
      moc,
      cast.implementer,
      items.map((i) => ({ ...i, description: `${i.description}.` })),
    );
    expect(again.status, again.text).toBe(200);
    expect(await actionNotices(owner, moc._id)).toHaveLength(1);

    // Changing one item's owner tells the new owner, once.
    const other = await makeUser({ name: "Pavel Second", department: "fleet" });
    const changed = await savePlan(
      moc,
      cast.implementer,
      items.map((i, n) => (n === 0 ? { ...i, owner: other._id } : i)),
    );
    expect(changed.status, changed.text).toBe(200);
    expect(await actionNotices(other, moc._id)).toHaveLength(1);
    expect(await actionNotices(owner, moc._id)).toHaveLength(1);
  });

  it("tells the owner of a manuals-plan item too, and an owner who chose in-app only gets no email", async () => {
    const owner = await makeUser({ name: "Mira Manuals", department: "engineering" });
    await getDb().execute(
      sql`insert into notification_preferences (user_id, kind, channel) values (${owner._id}, 'action', 'in_app')`,
    );
    const moc = await mocAt("b", cast);
    const res = await post(manualsPlanRoute, "/api/manualsPlan", cast.implementer, {
      body: {
        id: moc._id,
        manual_plan: { items: [{ document: "Ops manual 4.2", change: "New pump section", owner: owner._id }] },
      },
    });
    expect(res.status, res.text).toBe(200);
    const notices = await actionNotices(owner, moc._id);
    expect(notices).toHaveLength(1);
    expect(notices[0]!.subject).toBe(`[MOC ${moc.serial_num}] An item of the manuals plan assigned to you`);
    expect(notices[0]!.emailed).toBe(false);
  });

  it("a refused plan (an inactive owner) tells nobody and changes nothing", async () => {
    const gone = await makeUser({ department: "fleet" });
    await getDb().update(users).set({ active: false }).where(eq(users.id, gone._id));
    const moc = await mocAt("b", cast);
    const before = await mocSnapshot(moc._id);
    const res = await savePlan(moc, cast.implementer, [{ description: "Nobody", owner: gone._id, due: null }]);
    expectError(res, 400);
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });
});

describe("My actions", () => {
  it("lists the owner's open items across MOCs, soonest due first, with the MOC and its state", async () => {
    const owner = await makeUser({ name: "Mads Mine", department: "operations" });
    const a = await approvedWith([
      { description: "Later job", owner: owner._id, due: daysFromToday(20) },
      { description: "Someone else's", owner: cast.implementer._id, due: daysFromToday(1) },
      { description: "Cancelled job", owner: owner._id, due: daysFromToday(2) },
    ]);
    const cancelled = a.action.items.find((i: Item) => i.description === "Cancelled job")._id;
    const c = await post(cancelItemRoute, "/api/cancelPlanItem", cast.implementer, {
      body: { moc_id: a._id, plan: "action", item_id: cancelled, reason: "Not needed" },
    });
    expect(c.status, c.text).toBe(200);
    const b = await mocAt("b", cast);
    expect(
      (await savePlan(b, cast.implementer, [{ description: "Overdue job", owner: owner._id, due: daysFromToday(-2) }]))
        .status,
    ).toBe(200);
    const m = await post(manualsPlanRoute, "/api/manualsPlan", cast.implementer, {
      body: { id: b._id, manual_plan: { items: [{ document: "Drawing 12", change: "Rev C", owner: owner._id }] } },
    });
    expect(m.status, m.text).toBe(200);

    const res = await api(myActionsRoute, { path: "/api/myActions", token: await tokenOf(owner) });
    expect(res.status, res.text).toBe(200);
    const { actions, total } = res.body.data;
    expect(total).toBe(3);
    expect(actions.map((x: { what: string }) => x.what)).toEqual(["Overdue job", "Later job", "Drawing 12 — Rev C"]);
    expect(actions[0]).toMatchObject({
      mocId: b._id,
      serialNum: b.serial_num,
      plan: "action",
      due: daysFromToday(-2),
      daysLeft: -2,
      mayMarkDone: false,
    });
    expect(actions[1]).toMatchObject({ mocId: a._id, mocState: expect.any(String), daysLeft: 20, mayMarkDone: true });
    expect(actions[2]).toMatchObject({ plan: "manual_plan", due: null, daysLeft: null });
    expect((await myActions(owner, { limit: 1 })).actions).toHaveLength(1);
    expect((await myActions(owner, { limit: 1 })).total).toBe(3);
  });
});

describe("marking an item done", () => {
  it("the owner marks it done with a note and a file of the MOC as evidence; the trail records it", async () => {
    const owner = await makeUser({ name: "Dora Done", department: "operations" });
    const moc = await approvedWith([
      { description: "Replace the HT alarm sensor", owner: owner._id, due: daysFromToday(3) },
      { description: "Second job", owner: owner._id, due: null },
    ]);
    const [first, second] = moc.action.items as { _id: string }[];
    const evidence = await storeAttachment(owner, { mocId: moc._id }, "file", {
      name: "Sensor.pdf",
      data: pieces(PDF),
    });

    const res = await markDone(owner, {
      moc_id: moc._id,
      plan: "action",
      item_id: first!._id,
      note: "  Fitted and tested at 85 °C  ",
      evidence_id: evidence._id,
    });
    expect(res.status, res.text).toBe(200);
    const item = res.body.data.action.items.find((i: { _id: string }) => i._id === first!._id);
    expect(item).toMatchObject({
      done: true,
      completion: {
        by: owner._id,
        byName: "Dora Done",
        note: "Fitted and tested at 85 °C",
        evidence: { _id: evidence._id, name: "Sensor.pdf", sha256: sha(PDF), size: PDF.length },
      },
    });
    const log = res.body.data.logs.at(-1);
    expect(log.action).toBe("Marked the action “Replace the HT alarm sensor” done");
    expect(log.comment).toContain("Fitted and tested at 85 °C");
    expect(log.comment).toContain(sha(PDF));
    expect((await myActions(owner)).actions.map((a) => a.itemId)).toEqual([second!._id]);

    // Twice: 409; an unknown item: 404; nothing changes either way.
    const before = await mocSnapshot(moc._id);
    expectError(await markDone(owner, { moc_id: moc._id, plan: "action", item_id: first!._id, note: "Done" }), 409);
    expectError(await markDone(owner, { moc_id: moc._id, plan: "action", item_id: "no-such-item", note: "Done" }), 404);
    expectError(
      await markDone(owner, { moc_id: moc._id, plan: "manual_plan", item_id: second!._id, note: "Done" }),
      404,
    );
    expect(await mocSnapshot(moc._id)).toEqual(before);

    // Another MOC's file is not evidence here.
    const elsewhere = await mocAt("e", cast);
    const foreign = await storeAttachment(cast.implementer, { mocId: elsewhere._id }, "file", {
      name: "Other.pdf",
      data: pieces(PDF),
    });
    const refused = await markDone(owner, {
      moc_id: moc._id,
      plan: "action",
      item_id: second!._id,
      note: "Photo attached",
      evidence_id: foreign._id,
    });
    expectError(refused, 400);
    expect(refused.body.issues[0].path).toBe("evidence_id");
    expect(await mocSnapshot(moc._id)).toEqual(before);

    // A plan saved through its table keeps how the item was marked done, and a cancellation.
    const cancelled = await post(cancelItemRoute, "/api/cancelPlanItem", cast.implementer, {
      body: { moc_id: moc._id, plan: "action", item_id: second!._id, reason: "Done by the yard" },
    });
    expect(cancelled.status, cancelled.text).toBe(200);
    const sent = cancelled.body.data.action.items.map(
      ({ cancelled: _c, completion: _d, ...item }: Record<string, unknown>) => item,
    );
    const table = await savePlan(moc, owner, sent);
    expect(table.status, table.text).toBe(200);
    expect(table.body.data.action.items[0].completion.note).toBe("Fitted and tested at 85 °C");
    expect(table.body.data.action.items[1].cancelled).toMatchObject({ reason: "Done by the yard" });
  });

  it("bad input is 400 and someone who is not the owner, implementer, HSEQ user or an admin is 403", async () => {
    const owner = await makeUser({ department: "operations" });
    const moc = await approvedWith([{ description: "Job", owner: owner._id, due: null }]);
    const itemId = moc.action.items[0]._id;
    const before = await mocSnapshot(moc._id);
    for (const body of [
      { moc_id: moc._id, plan: "actions", item_id: itemId },
      { moc_id: "not-a-uuid", plan: "action", item_id: itemId },
      { moc_id: moc._id, plan: "action" },
      { moc_id: moc._id, plan: "action", item_id: itemId, note: "x".repeat(5001) },
      { moc_id: moc._id, plan: "action", item_id: itemId, note: 12 },
      { moc_id: moc._id, plan: "action", item_id: itemId, note: "Done", evidence_id: "file.pdf" },
      // Marking done says what was done (issue 38 item 7): no note, or a blank one, is refused on `note`.
      { moc_id: moc._id, plan: "action", item_id: itemId },
      { moc_id: moc._id, plan: "action", item_id: itemId, note: "   " },
    ]) {
      expectError(await markDone(owner, body), 400);
    }
    const noNote = await markDone(owner, { moc_id: moc._id, plan: "action", item_id: itemId });
    expect(noNote.body.issues).toEqual([
      { path: "note", message: "Say what was done: a note is required to mark an item done" },
    ]);
    // An HSEQ colleague may read the MOC but does not own the item.
    const colleague = await makeUser({ department: "hseq" });
    expectError(await markDone(colleague, { moc_id: moc._id, plan: "action", item_id: itemId, note: "Done" }), 403);
    const stranger = await makeUser({ department: "fleet" });
    expectError(await markDone(stranger, { moc_id: moc._id, plan: "action", item_id: itemId, note: "Done" }), 403);
    expect(await mocSnapshot(moc._id)).toEqual(before);
    // The implementer may (today's rule), with a note like anyone.
    const res = await markDone(cast.implementer, {
      moc_id: moc._id,
      plan: "action",
      item_id: itemId,
      note: "Done by the yard",
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.action.items[0].completion).toMatchObject({
      by: cast.implementer._id,
      note: "Done by the yard",
    });
  });

  it("before approval the owner is refused (409); a cancelled item cannot be done", async () => {
    const owner = await makeUser({ department: "operations" });
    const moc = await mocAt("b", cast);
    const saved = await savePlan(moc, cast.implementer, [
      { description: "Early", owner: owner._id, due: null },
      { description: "Dropped", owner: owner._id, due: null },
    ]);
    const [early, dropped] = saved.body.data.action.items;
    expectError(await markDone(owner, { moc_id: moc._id, plan: "action", item_id: early._id, note: "Done" }), 409);
    await post(cancelItemRoute, "/api/cancelPlanItem", cast.implementer, {
      body: { moc_id: moc._id, plan: "action", item_id: dropped._id, reason: "Not needed" },
    });
    expectError(
      await markDone(cast.implementer, { moc_id: moc._id, plan: "action", item_id: dropped._id, note: "Done" }),
      409,
    );
  });

  it("the page marks it done with a note and an uploaded evidence file (multipart, no JavaScript)", async () => {
    const owner = await makeUser({ department: "operations" });
    const moc = await approvedWith([{ description: "Page job", owner: owner._id, due: daysFromToday(1) }]);
    const itemId = moc.action.items[0]._id;
    const url = new URL(`/mocs/${moc._id}/done-item?plan=action&item=${itemId}`, BASE);
    const cookie = await sessionCookieHeader(await tokenOf(owner));
    const loaded = await doneItemPage.loader({
      request: new Request(url, { headers: { Cookie: cookie } }),
      params: { id: moc._id },
      context: {},
    });
    expect(loaded).toMatchObject({ mocId: moc._id, settled: null, item: { words: "Page job", plan: "action" } });

    const submit = async (fields: Record<string, string | File>) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      try {
        return await doneItemPage.action({
          request: new Request(url, { method: "POST", headers: { Cookie: cookie }, body: form }),
          params: { id: moc._id },
          context: {},
        });
      } catch (thrown) {
        return thrown;
      }
    };
    // A file whose bytes are not its type: 400 on the file field, nothing changed.
    const before = await mocSnapshot(moc._id);
    const bad = (await submit({ note: "Done", file: new File(["not a pdf"], "fake.pdf") })) as {
      data: { error: string; field: string };
      init: ResponseInit;
    };
    expect(bad.init.status).toBe(400);
    expect(bad.data.field).toBe("file");
    expect(await mocSnapshot(moc._id)).toEqual(before);

    const done = (await submit({ note: "Replaced, photo attached", file: new File([PDF], "photo.pdf") })) as Response;
    expect(done.status).toBe(302);
    expect(done.headers.get("Location")).toBe("/");
    const [row] = await getDb().execute<{
      item: { done: boolean; completion: { note: string; evidence: { sha256: string } } };
    }>(sql`select action->'items'->0 as item from mocs where id = ${moc._id}`);
    expect(row!.item.done).toBe(true);
    expect(row!.item.completion.note).toBe("Replaced, photo attached");
    expect(row!.item.completion.evidence.sha256).toBe(sha(PDF));
    const [file] = await getDb().execute<{ name: string; sha256: string }>(
      sql`select name, sha256 from attachments where moc_id = ${moc._id} and name = 'photo.pdf'`,
    );
    expect(file).toEqual({ name: "photo.pdf", sha256: sha(PDF) });
  });
});

describe("the daily reminders of items due", () => {
  /** The reminder emails a person got on a run, by subject. */
  const remindersTo = async (person: { _id: string }, since: Date) =>
    (
      await getDb().execute<{ subject: string; text: string }>(sql`
        select subject, text from email_messages
        where to_user_id = ${person._id} and kind = 'reminder' and created_at >= ${since.toISOString()}::timestamptz
        order by subject`)
    ).map((r) => r);

  it("reminds each owner of items due within 3 days or overdue once a day: one email each, or in the digest", async () => {
    const each = await makeUser({ name: "Erik Each", department: "operations" });
    const digest = await makeUser({ name: "Dina Digest", department: "operations" });
    await getDb().update(users).set({ reminderPreference: "digest" }).where(eq(users.id, digest._id));
    const moc = await approvedWith([
      { description: "Due in two days", owner: each._id, due: daysFromToday(2) },
      { description: "Overdue by one", owner: each._id, due: daysFromToday(-1) },
      { description: "Due in five days", owner: each._id, due: daysFromToday(5) },
      { description: "No date", owner: each._id, due: null },
      { description: "Digest A", owner: digest._id, due: daysFromToday(0) },
      { description: "Digest B", owner: digest._id, due: daysFromToday(-4) },
      { description: "Done already", owner: digest._id, due: daysFromToday(1), done: true },
    ]);
    const today = daysFromToday(0);
    const start = new Date();
    const run = await sendDueReminders({ today });
    expect(run.message).toMatch(/action/);

    const eachMail = await remindersTo(each, start);
    expect(eachMail.map((m) => m.subject)).toEqual([
      `[MOC ${moc.serial_num}] Reminder: your action “Due in two days” is due in 2 days`,
      `[MOC ${moc.serial_num}] Reminder: your action “Overdue by one” is 1 day overdue`,
    ]);
    const digestMail = await remindersTo(digest, start);
    expect(digestMail).toHaveLength(1);
    expect(digestMail[0]!.subject).toContain("2 actions due soon or overdue");
    expect(digestMail[0]!.text).toContain("Digest A");
    expect(digestMail[0]!.text).toContain("Digest B");
    expect(digestMail[0]!.text).not.toContain("Done already");

    // The same day again: nothing more.
    const again = new Date();
    await sendDueReminders({ today });
    expect(await remindersTo(each, again)).toHaveLength(0);
    expect(await remindersTo(digest, again)).toHaveLength(0);
  });
});

describe("Insight: overdue actions by department and by vessel", () => {
  it("counts open items past their due date per MOC department, and per vessel in the by-vessel table", async () => {
    const today = daysFromToday(0);
    const filter = { from: `${today.slice(0, 4)}-01-01`, to: today, department: null };
    const count = async () =>
      (await computeInsights(filter)).overdueActions!.find((d) => d.department === "engineering")?.overdue ?? 0;
    // These MOCs name no vessel (made over /api): their row is "Not recorded" (docs/decisions/036).
    const byVessel = async () =>
      (await computeInsights(filter)).vessels!.find((v) => v.vessel === "Not recorded")?.overdueActions ?? 0;
    const before = await count();
    const vesselBefore = await byVessel();
    const owner = await makeUser({ department: "fleet" });
    await approvedWith([
      { description: "Late 1", owner: owner._id, due: daysFromToday(-3) },
      { description: "Late 2", owner: owner._id, due: daysFromToday(-1) },
      { description: "Not yet", owner: owner._id, due: daysFromToday(3) },
    ]);
    expect(await count()).toBe(before + 2);
    expect(await byVessel()).toBe(vesselBefore + 2);
    const one = await computeInsights({ ...filter, department: "engineering" });
    expect(one.overdueActions!.map((d) => d.department)).toEqual(["engineering"]);
  });
});

describe("cancelled actions (issue 38 item 7)", () => {
  it("the owner is told, with the reason; nobody else is emailed about it", async () => {
    const owner = await makeUser({ name: "Cora Cancelled", department: "operations" });
    const moc = await approvedWith([{ description: "Renew the bilge alarm float", owner: owner._id, due: null }]);
    const itemId = moc.action.items[0]._id;
    const { result, to } = await emailsDuring(moc._id, () =>
      post(cancelItemRoute, "/api/cancelPlanItem", cast.hseq, {
        body: { moc_id: moc._id, plan: "action", item_id: itemId, reason: "The yard renewed it at the docking" },
      }),
    );
    expect(result.status, result.text).toBe(200);
    expect(to).toEqual([owner.email]);
    const texts = (
      await getDb()
        .select({ text: emailMessages.text })
        .from(emailMessages)
        .where(and(eq(emailMessages.toUserId, owner._id), eq(emailMessages.recordId, moc._id)))
    ).map((m) => m.text);
    const notice = { text: texts.find((t) => t.includes("cancelled")) ?? texts.join("\n---\n") };
    expect(notice!.text).toContain("cancelled the action “Renew the bilge alarm float”, which was yours");
    expect(notice!.text).toContain("The yard renewed it at the docking");
  });

  it("the one who cancelled an open action does not also close the MOC (four eyes); another verifier does", async () => {
    const moc = await approvedWith([
      { description: "Renew the float", owner: cast.implementer._id, due: null },
      { description: "Brief the crew", owner: cast.implementer._id, due: null },
    ]);
    const [renew, brief] = moc.action.items;
    const cancel = await post(cancelItemRoute, "/api/cancelPlanItem", cast.hseq, {
      body: { moc_id: moc._id, plan: "action", item_id: brief._id, reason: "Covered by the toolbox talk" },
    });
    expect(cancel.status, cancel.text).toBe(200);
    const done = await markDone(cast.implementer, {
      moc_id: moc._id,
      plan: "action",
      item_id: renew._id,
      note: "Float renewed and tested",
    });
    expect(done.status, done.text).toBe(200);
    const atF = await stepOk("implementation", cast.implementer, defaultStepBody("implementation", moc, cast));
    expect(atF.status).toBe("f");
    // No verifier named: the assigned HSEQ user verifies, but they cancelled an open action.
    const before = await mocSnapshot(moc._id);
    const refused = await submitStep("verifier", cast.hseq, defaultStepBody("verifier", atF, cast));
    expectError(refused, 403);
    expect(refused.body.message).toContain("the one who cancelled a plan item");
    expect(await mocSnapshot(moc._id)).toEqual(before);
    // A verifier who took no part closes it.
    const named = await post(addUserRoute, "/api/addUser", cast.originator, {
      body: { userId: cast.verifier._id, mocId: moc._id, role: "verifier" },
    });
    expect(named.status, named.text).toBe(200);
    const closed = await stepOk("verifier", cast.verifier, defaultStepBody("verifier", atF, cast));
    expect(closed.completed).toBe(true);
  });
});
