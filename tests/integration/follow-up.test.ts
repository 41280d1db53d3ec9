/**
 * Issue 42, the follow-up MOC (docs/decisions/058-effectiveness-review.md): from a cancelled plan
 * item or an effectiveness review found not (or partly) effective, Part A (/mocs/new?followUp=
 * moc:<id>&item=<id> or &review=1) opens prefilled with "Follow-up: <title>", the original's vessel
 * and the reason read on the server (a reason in the URL is ignored); creating it, from the page or
 * through POST /api/newmoc with `followUp`, links the two ("follow-up of") with an entry in both
 * MOCs' trails. Refusals: an item not cancelled, an effective review (409), not a MOC (400), a MOC
 * the caller may not read (404), nothing created.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as actionTableRoute from "~/routes/api+/actionTable";
import * as cancelItemRoute from "~/routes/api+/cancelPlanItem";
import * as newmocRoute from "~/routes/api+/newmoc";
import * as reviewRoute from "~/routes/api+/effectivenessReview";
import * as newMocPage from "~/routes/mocs+/new";
import { linksOf } from "~/models/records/record-links.server";
import { getDb } from "~/utils/db.server";
import { makeUser } from "../helpers/factories";
import { daysFromToday, newMocBody, verifierForm, type Cast } from "../helpers/moc";
import { createMocOk, makeCast, mocAt, post, submitStep, tokenOf, type Doc } from "../helpers/moc-flow";
import { buildRequest } from "../helpers/request";

let cast: Cast;

beforeAll(async () => {
  cast = await makeCast();
});

const TITLE = "Overflow alarm on the ballast tanks";

/** An original MOC on the office scope with one action cancelled (with its reason). */
async function withCancelledAction(): Promise<{ moc: Doc; itemId: string }> {
  const moc = await createMocOk(cast, { title: { value: TITLE }, vessel: { value: "office" } });
  const plan = await post(actionTableRoute, "/api/actionTable", cast.implementer, {
    body: {
      id: moc._id,
      action: {
        items: [{ description: "Fit a second float switch", owner: cast.implementer._id, due: daysFromToday(9) }],
      },
    },
  });
  expect(plan.status, plan.text).toBe(200);
  const itemId = plan.body.data.action.items[0]._id as string;
  const cancelled = await post(cancelItemRoute, "/api/cancelPlanItem", cast.implementer, {
    body: { moc_id: moc._id, plan: "action", item_id: itemId, reason: "The class society refused the switch" },
  });
  expect(cancelled.status, cancelled.text).toBe(200);
  return { moc, itemId };
}

/** Part A's loader for `query`, as `who`: its data, or the status it refused with. */
async function partA(who: { _id: string }, query: Record<string, string>) {
  try {
    const data = await newMocPage.loader({
      request: await buildRequest({ path: "/mocs/new", query, token: await tokenOf(who) }),
      params: {},
      context: {},
    } as never);
    return { status: 200, data: data as Awaited<ReturnType<typeof newMocPage.loader>> };
  } catch (thrown) {
    return { status: (thrown as { init?: { status?: number } }).init?.status ?? 500, data: null };
  }
}

/** Posts Part A from the page as `who`, as a browser without JavaScript does. */
async function submitPartA(who: { _id: string }, fields: Record<string, string>) {
  const request = await buildRequest({
    method: "POST",
    path: "/mocs/new",
    token: await tokenOf(who),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      intent: "submit",
      "implementer-name.value._id": cast.implementer._id,
      "description-of-change.value": "Fit the switch another class accepts",
      "department-of-change.value": "engineering",
      "affected-departments.value": "engineering",
      ...fields,
    }).toString(),
  });
  return (await newMocPage.action({ request, params: {}, context: {} } as never)) as Response;
}

const newestMocOf = async (who: { _id: string }) => {
  const [row] = await getDb().execute<{ id: string }>(
    sql`select id from mocs where originator_id = ${who._id} order by created_at desc limit 1`,
  );
  return row!.id;
};

/** The "follow-up of" links as each end reads them, and the entries in both trails. */
async function expectLinked(newId: string, originalId: string) {
  const fromNew = await linksOf(cast.hseq, { kind: "moc", id: newId });
  expect(fromNew.links.map((l) => [l.kind, l.seen, l.other.id])).toEqual([
    ["follow-up of", "follow-up of", originalId],
  ]);
  const fromOriginal = await linksOf(cast.hseq, { kind: "moc", id: originalId });
  expect(fromOriginal.links.map((l) => [l.seen, l.other.id])).toContainEqual(["followed up by", newId]);
  for (const id of [newId, originalId]) {
    const [row] = await getDb().execute<{ n: number }>(sql`
      select count(*)::int as n from moc_logs where moc_id = ${id} and action = 'Linked' and comment ilike 'follow%'`);
    expect(row!.n, `trail of ${id}`).toBe(1);
  }
}

describe("a follow-up from a cancelled action", () => {
  it("opens Part A with the title, vessel and the cancellation reason read on the server", async () => {
    const { moc, itemId } = await withCancelledAction();
    const { status, data } = await partA(cast.originator, {
      followUp: `moc:${moc._id}`,
      item: itemId,
      reason: "A reason from the URL",
    });
    expect(status).toBe(200);
    expect(data!.followUp).toMatchObject({ ref: `moc:${moc._id}`, mocId: moc._id });
    expect(data!.defaultValue).toEqual({
      title: { value: `Follow-up: ${TITLE}` },
      vessel: { value: "office" },
      "reason-for-change": {
        value: `Follow-up of MOC ${moc.serial_num}, the cancelled action “Fit a second float switch”: The class society refused the switch`,
      },
    });
    expect(JSON.stringify(data)).not.toContain("A reason from the URL");
  });

  it("raised from the page without JavaScript, links both MOCs in both trails", async () => {
    const { moc, itemId } = await withCancelledAction();
    const { data } = await partA(cast.originator, { followUp: `moc:${moc._id}`, item: itemId });
    const res = await submitPartA(cast.originator, {
      "title.value": (data!.defaultValue as { title: { value: string } }).title.value,
      "vessel.value": "office",
      "reason-for-change.value": "Follow-up of the cancelled switch",
      followUp: `moc:${moc._id}`,
    });
    expect(res.status, await res.clone().text()).toBe(302);
    const created = await newestMocOf(cast.originator);
    expect(res.headers.get("Location")).toBe(`/mocs/${created}`);
    await expectLinked(created, moc._id);
  });

  it("refuses an item that is not cancelled (409), no such item (404), a MOC the caller may not read (403)", async () => {
    const moc = await createMocOk(cast);
    const plan = await post(actionTableRoute, "/api/actionTable", cast.implementer, {
      body: {
        id: moc._id,
        action: { items: [{ description: "Still open", owner: cast.implementer._id, due: daysFromToday(9) }] },
      },
    });
    const itemId = plan.body.data.action.items[0]._id as string;
    expect((await partA(cast.originator, { followUp: `moc:${moc._id}`, item: itemId })).status).toBe(409);
    expect((await partA(cast.originator, { followUp: `moc:${moc._id}`, item: "nope" })).status).toBe(404);
    const stranger = await makeUser({ department: "engineering" });
    expect((await partA(stranger, { followUp: `moc:${moc._id}`, item: itemId })).status).toBe(403);
    expect((await partA(cast.originator, { followUp: `pcr:${moc._id}` })).status).toBe(400);
  });
});

describe("a follow-up from an effectiveness review", () => {
  async function reviewed(result: "effective" | "not-effective", comment?: string): Promise<Doc> {
    const moc = await mocAt("f", cast);
    const closed = await submitStep("verifier", cast.hseq, { moc_id: moc._id, verifier_form: verifierForm() });
    expect(closed.status, closed.text).toBe(200);
    const res = await post(reviewRoute, "/api/effectivenessReview", cast.hseq, {
      body: { id: moc._id, result, ...(comment ? { comment } : {}) },
    });
    expect(res.status, res.text).toBe(201);
    return closed.body.data;
  }

  it("not effective: Part A opens with the review's comment; POST /api/newmoc with followUp links both", async () => {
    const moc = await reviewed("not-effective", "The alarm still sounds late on tank 2");
    const { status, data } = await partA(cast.hseq, { followUp: `moc:${moc._id}`, review: "1" });
    expect(status).toBe(200);
    expect((data!.defaultValue as { "reason-for-change": { value: string } })["reason-for-change"].value).toBe(
      `Follow-up of MOC ${moc.serial_num}, its effectiveness review (not effective): The alarm still sounds late on tank 2`,
    );
    expect((data!.defaultValue as { title: { value: string } }).title.value).toMatch(/^Follow-up: /);

    const res = await post(newmocRoute, "/api/newmoc", cast.hseq, {
      body: { ...newMocBody(cast.implementer), followUp: `moc:${moc._id}` },
    });
    expect(res.status, res.text).toBe(200);
    await expectLinked(res.body.data._id, moc._id);
  });

  it("an effective review offers no follow-up (409); a bad or unreadable followUp creates nothing", async () => {
    const moc = await reviewed("effective");
    expect((await partA(cast.hseq, { followUp: `moc:${moc._id}`, review: "1" })).status).toBe(409);
    const [before] = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from mocs`);
    const bad = await post(newmocRoute, "/api/newmoc", cast.originator, {
      body: { ...newMocBody(cast.implementer), followUp: "moc:not-an-id" },
    });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.issues.map((i: { path: string }) => i.path)).toEqual(["followUp"]);
    const open = await createMocOk(cast);
    const stranger = await makeUser({ department: "engineering" });
    const hidden = await post(newmocRoute, "/api/newmoc", stranger, {
      body: { ...newMocBody(cast.implementer), followUp: `moc:${open._id}` },
    });
    expect(hidden.status, hidden.text).toBe(403);
    const [after] = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from mocs`);
    expect(after!.n).toBe(before!.n + 1); // only `open`
  });
});
