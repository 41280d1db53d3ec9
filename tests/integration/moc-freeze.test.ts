/**
 * Approved content is frozen (issue 27 item 3, docs/decisions/034-approved-content-and-deleting.md):
 * from approval on, Part A, the impact assessment, the risk assessment file and the plan items'
 * description, owner and due date change only while a deviation waits for its decision; marking
 * items done stays open to their owners, the implementer and the HSEQ user. Changing the approver
 * or the HSEQ user while their decision is pending: admins and the HSEQ department, with a reason.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as actionTableRoute from "~/routes/api+/actionTable";
import * as addUserRoute from "~/routes/api+/addUser";
import * as impactRoute from "~/routes/api+/impact";
import * as manualsPlanRoute from "~/routes/api+/manualsPlan";
import * as riskRoute from "~/routes/api+/risk_assessment";
import * as singlemocRoute from "~/routes/api+/singlemoc";
import { removeAttachment, storeAttachment } from "~/models/records/attachments.server";
import { APPROVED_CONTENT_FROZEN } from "~/models/authz/authz.server";
import type { PublicUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { makeAdmin, makeUser } from "../helpers/factories";
import { implementationForm, originatorForm, type Cast } from "../helpers/moc";
import {
  defaultStepBody,
  expectError,
  makeCast,
  mocAt,
  mocSnapshot,
  post,
  stepOk,
  submitStep,
  tokenOf,
  type Doc,
  type Stage,
} from "../helpers/moc-flow";
import { api } from "../helpers/api";

const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");
async function* pieces(b: Buffer) {
  yield new Uint8Array(b);
}
const pdf = (name: string) => ({ name, data: pieces(PDF) });

let cast: Cast;
let admin: PublicUser;
let owner: PublicUser;
let otherOwner: PublicUser;
let hseqMember: PublicUser;
let stranger: PublicUser;

beforeAll(async () => {
  cast = await makeCast();
  [admin, owner, otherOwner, hseqMember, stranger] = await Promise.all([
    makeAdmin({ name: "Ada Admin", department: "operations" }),
    // Item owners who may read the MOC (full access): one not allowed to read it cannot mark (below).
    makeUser({ name: "Otto Owner", department: "fleet", access: "full" }),
    makeUser({ name: "Orla Other-Owner", department: "fleet", access: "full" }),
    makeUser({ name: "Hedda Hseq-Dept", department: "hseq" }),
    makeUser({ name: "Sam Stranger", department: "engineering" }),
  ]);
});

const actionItems = (done = false) => [
  { description: "Order the new pump", owner: owner._id, due: "2031-01-10", done },
  { description: "Train the crew", owner: otherOwner._id, due: "2031-02-10", done: false },
];
const manualItems = () => [
  { document: "Ops manual 4.2", change: "New pump section", owner: owner._id, due: null, done: false },
];

/** A MOC with plans, impact and risk filled in at Part B, then advanced to `stage`. */
async function plannedMocAt(stage: Stage): Promise<Doc> {
  const moc = await mocAt("b", cast);
  const ok = async (res: Awaited<ReturnType<typeof post>>) => expect(res.status, res.text).toBe(200);
  await ok(
    await post(actionTableRoute, "/api/actionTable", cast.implementer, {
      body: { id: moc._id, action: { items: actionItems() } },
    }),
  );
  await ok(
    await post(manualsPlanRoute, "/api/manualsPlan", cast.implementer, {
      body: { id: moc._id, manual_plan: { items: manualItems() } },
    }),
  );
  await ok(
    await post(impactRoute, "/api/impact", cast.implementer, {
      body: { moc_id: moc._id, impact_assessment: [{ category: "Safety", hazards: ["Pressure"] }] },
    }),
  );
  await storeAttachment(cast.implementer, { mocId: moc._id }, "risk_assessment", pdf("Risk.pdf"));
  return advance(moc, stage);
}

/** From `b` (Part B not yet submitted) to `stage` through the API. */
async function advance(moc: Doc, stage: Stage): Promise<Doc> {
  if (stage === "b") return moc;
  let doc = await stepOk("implementer", cast.implementer, defaultStepBody("implementer", moc, cast));
  if (stage === "c") return doc;
  doc = await stepOk("hseq", cast.hseq, defaultStepBody("hseq", doc, cast));
  if (stage === "d") return doc;
  doc = await stepOk("approver", cast.approver, defaultStepBody("approver", doc, cast));
  if (stage === "e") return doc;
  if (stage === "b-deviation" || stage === "b-extension") {
    return stepOk("implementation", cast.implementer, {
      moc_id: doc._id,
      implementation: implementationForm({ deviation: stage === "b-deviation", extension: stage === "b-extension" }),
    });
  }
  doc = await stepOk("implementation", cast.implementer, defaultStepBody("implementation", doc, cast));
  if (stage === "f") return doc;
  throw new Error(`plannedMocAt does not reach ${stage}`);
}

const itemsOf = async (mocId: string) => {
  const [row] = await getDb().execute<{ action: { items: Record<string, unknown>[] } }>(
    sql`select action from mocs where id = ${mocId}`,
  );
  return row!.action.items;
};

const sendActions = (who: { _id: string }, mocId: string, items: unknown[]) =>
  post(actionTableRoute, "/api/actionTable", who, { body: { id: mocId, action: { items } } });

/** Every frozen edit, as the API takes it, by someone who could make it before approval. */
const FROZEN_EDITS: [label: string, run: (moc: Doc) => Promise<{ status: number; text: string; body: unknown }>][] = [
  [
    "the impact assessment",
    (moc) =>
      post(impactRoute, "/api/impact", cast.implementer, {
        body: { moc_id: moc._id, impact_assessment: [{ category: "Environment", hazards: ["Oil"] }] },
      }),
  ],
  [
    "the risk assessment link",
    (moc) =>
      post(riskRoute, "/api/risk_assessment", cast.originator, {
        body: { moc_id: moc._id, risk_assessment: "https://files.example.com/other.pdf" },
      }),
  ],
  [
    "an action's description",
    async (moc) => {
      const items = await itemsOf(moc._id);
      return sendActions(admin, moc._id, [{ ...items[0], description: "Order two pumps" }, items[1]]);
    },
  ],
  [
    "an action's owner",
    async (moc) => {
      const items = await itemsOf(moc._id);
      return sendActions(cast.implementer, moc._id, [{ ...items[0], owner: otherOwner._id }, items[1]]);
    },
  ],
  [
    "an action's due date",
    async (moc) => {
      const items = await itemsOf(moc._id);
      return sendActions(cast.hseq, moc._id, [{ ...items[0], due: "2032-01-01" }, items[1]]);
    },
  ],
  [
    "a new action",
    async (moc) => {
      const items = await itemsOf(moc._id);
      return sendActions(cast.implementer, moc._id, [
        ...items,
        { description: "Paint it", owner: null, due: null, done: false },
      ]);
    },
  ],
  ["a removed action", async (moc) => sendActions(cast.implementer, moc._id, (await itemsOf(moc._id)).slice(0, 1))],
  [
    "a manuals item's change",
    async (moc) => {
      const [row] = await getDb().execute<{ manual_plan: { items: Record<string, unknown>[] } }>(
        sql`select manual_plan from mocs where id = ${moc._id}`,
      );
      return post(manualsPlanRoute, "/api/manualsPlan", cast.implementer, {
        body: { id: moc._id, manual_plan: { items: [{ ...row!.manual_plan.items[0], change: "Other text" }] } },
      });
    },
  ],
  [
    "Part A",
    (moc) =>
      submitStep("originator", cast.originator, {
        moc_id: moc._id,
        originator_form: originatorForm(cast.implementer, { "description-of-change": { value: "<p>Other</p>" } }),
      }),
  ],
];

describe("approved content is frozen", () => {
  const stages = ["e", "b-extension", "f"] as const;
  let mocs: Record<(typeof stages)[number], Doc>;
  beforeAll(async () => {
    const [e, ext, f] = await Promise.all(stages.map(plannedMocAt));
    mocs = { e: e!, "b-extension": ext!, f: f! };
  }, 60_000);

  for (const stage of stages) {
    it.each(FROZEN_EDITS)(`at ${stage}, %s answers 409 and changes nothing`, async (_label, run) => {
      const moc = mocs[stage];
      const before = await mocSnapshot(moc._id);
      const res = await run(moc);
      expectError(res as never, 409);
      expect(await mocSnapshot(moc._id)).toEqual(before);
    });
  }

  it("the approved MOC's risk assessment file can be neither replaced nor removed (409)", async () => {
    const moc = mocs.e;
    const before = await mocSnapshot(moc._id);
    await expect(
      storeAttachment(cast.implementer, { mocId: moc._id }, "risk_assessment", pdf("Risk-2.pdf")),
    ).rejects.toMatchObject({ status: 409, message: APPROVED_CONTENT_FROZEN });
    const [file] = await getDb().execute<{ id: string }>(
      sql`select id from attachments where moc_id = ${moc._id} and kind = 'risk_assessment'`,
    );
    await expect(removeAttachment(cast.implementer, file!.id)).rejects.toMatchObject({ status: 409 });
    expect(await mocSnapshot(moc._id)).toEqual(before);
    // Other files stay open to the people involved.
    await storeAttachment(cast.implementer, { mocId: moc._id }, "file", pdf("Photo-of-pump.pdf"));
  });

  it("before approval (at the approver) they still change", async () => {
    const moc = await plannedMocAt("d");
    const res = await post(impactRoute, "/api/impact", cast.implementer, {
      body: { moc_id: moc._id, impact_assessment: [{ category: "Environment", hazards: [] }] },
    });
    expect(res.status, res.text).toBe(200);
  });

  it("a deviation waiting for its decision opens them, and closes them again once decided", async () => {
    const moc = await plannedMocAt("b-deviation");
    const items = await itemsOf(moc._id);
    const res = await sendActions(cast.implementer, moc._id, [{ ...items[0], description: "Order the other pump" }]);
    expect(res.status, res.text).toBe(200);
    expect((await itemsOf(moc._id)).map((i) => i.description)).toEqual(["Order the other pump"]);
    const decided = await stepOk("deviation-extension", cast.approver, {
      moc_id: moc._id,
      deviationExtentionId: moc.extentionsAndDeviations._id,
      type: "deviation",
      value: { approved: "yes", comment: "Fine" },
    });
    expect(decided.status).toBe("f");
    const again = await post(impactRoute, "/api/impact", cast.implementer, {
      body: { moc_id: moc._id, impact_assessment: [] },
    });
    expectError(again, 409);
  });
});

describe("marking items done after approval", () => {
  let moc: Doc;
  beforeAll(async () => {
    moc = await plannedMocAt("e");
  }, 30_000);

  const mark = async (who: { _id: string }, index: number, done: boolean) => {
    const items = await itemsOf(moc._id);
    return sendActions(
      who,
      moc._id,
      items.map((item, i) => (i === index ? { ...item, done } : item)),
    );
  };

  it("an item's owner marks their own item done, and the trail says so", async () => {
    const res = await mark(owner, 0, true);
    expect(res.status, res.text).toBe(200);
    const items = await itemsOf(moc._id);
    expect(items.map((i) => i.done)).toEqual([true, false]);
    expect(items[0]).toMatchObject(actionItems(true)[0]!);
    const logs = res.body.data.logs as { action: string; userId: { _id: string } | null }[];
    expect(logs.at(-1)).toMatchObject({ action: "Marked an item of the action plan", userId: { _id: owner._id } });
  });

  it("the implementer and the HSEQ user mark any item; an admin too", async () => {
    for (const [who, done] of [
      [cast.implementer, true],
      [cast.hseq, false],
      [admin, true],
    ] as const) {
      const res = await mark(who, 1, done);
      expect(res.status, res.text).toBe(200);
      expect((await itemsOf(moc._id))[1]!.done).toBe(done);
    }
  });

  it("someone else's item, the originator, a stranger: 403, nothing changes", async () => {
    const before = await mocSnapshot(moc._id);
    const current = (await itemsOf(moc._id))[1]!.done as boolean;
    expectError(await mark(owner, 1, !current), 403);
    expectError(await mark(cast.originator, 1, !current), 403);
    expectError(await mark(stranger, 0, false), 403);
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });

  it("an owner who may not read the MOC cannot mark: 403, and the MOC is not answered", async () => {
    const hidden = await plannedMocAt("b");
    const unseen = await makeUser({ name: "Uma Unseen", department: "fleet" });
    const items = [{ description: "Weld the bracket", owner: unseen._id, due: null, done: false }];
    expect((await sendActions(cast.implementer, hidden._id, items)).status).toBe(200);
    // Naming an owner makes them one of the MOC's people (docs/decisions/038-actions-as-tasks.md);
    // taken off them again, they may no longer read it.
    await getDb().execute(sql`delete from moc_users where moc_id = ${hidden._id} and user_id = ${unseen._id}`);
    const approved = await advance(hidden, "e");
    const stored = await itemsOf(approved._id);
    const res = await sendActions(unseen, approved._id, [{ ...stored[0], done: true }]);
    expectError(res, 403);
    expect((await itemsOf(approved._id))[0]!.done).toBe(false);
  });

  it("the manuals plan the same way", async () => {
    const [row] = await getDb().execute<{ manual_plan: { items: Record<string, unknown>[] } }>(
      sql`select manual_plan from mocs where id = ${moc._id}`,
    );
    const body = { id: moc._id, manual_plan: { items: [{ ...row!.manual_plan.items[0], done: true }] } };
    expectError(await post(manualsPlanRoute, "/api/manualsPlan", otherOwner, { body }), 403);
    const res = await post(manualsPlanRoute, "/api/manualsPlan", owner, { body });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.manual_plan.items[0].done).toBe(true);
  });
});

describe("changing the approver or the HSEQ user while their decision is pending", () => {
  const addUser = (who: { _id: string }, body: Record<string, unknown>) =>
    post(addUserRoute, "/api/addUser", who, { body });
  const sees = async (who: { _id: string }, mocId: string) =>
    (await api(singlemocRoute, { path: "/api/singlemoc", query: { moc_id: mocId }, token: await tokenOf(who) })).status;

  it("the approver at Part D: the originator 403, no reason 400, admin or HSEQ with a reason 200 and in the trail", async () => {
    const moc = await mocAt("d", cast);
    const [newApprover, thirdApprover] = await Promise.all([
      makeUser({ name: "Nils New-Approver", department: "fleet" }),
      makeUser({ name: "Tess Third-Approver", department: "fleet" }),
    ]);
    const before = await mocSnapshot(moc._id);
    const body = { userId: newApprover._id, mocId: moc._id, role: "approver" };
    expectError(await addUser(cast.originator, { ...body, reason: "On leave" }), 403);
    expectError(await addUser(stranger, { ...body, reason: "On leave" }), 403);
    const noReason = await addUser(admin, body);
    expectError(noReason, 400);
    expect(noReason.body.issues.map((i: { path: string }) => i.path)).toEqual(["reason"]);
    expectError(await addUser(admin, { ...body, reason: "   " }), 400);
    expect(await mocSnapshot(moc._id)).toEqual(before);

    const res = await addUser(admin, { ...body, reason: "Alma is on leave until March" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.approver_id._id).toBe(newApprover._id);
    expect(res.body.data.logs.at(-1)).toMatchObject({
      action: "Assigned Nils New-Approver as approver",
      comment: "Alma is on leave until March",
      userId: { _id: admin._id },
    });
    // The person removed loses access, as before.
    expect(await sees(cast.approver, moc._id)).toBe(403);
    expect(await sees(newApprover, moc._id)).toBe(200);

    const byHseq = await addUser(hseqMember, { ...body, userId: thirdApprover._id, reason: "Nils left the company" });
    expect(byHseq.status, byHseq.text).toBe(200);
    expect(byHseq.body.data.approver_id._id).toBe(thirdApprover._id);
  });

  it("the HSEQ user at Part C: admins and the HSEQ department with a reason; a non-HSEQ pick is 400", async () => {
    const moc = await mocAt("c", cast);
    const newHseq = await makeUser({ name: "Hana New-Hseq", department: "hseq" });
    const body = { userId: newHseq._id, mocId: moc._id, role: "hseq" };
    expectError(await addUser(cast.originator, { ...body, reason: "Away" }), 403);
    expectError(await addUser(hseqMember, body), 400);
    expectError(await addUser(admin, { ...body, userId: stranger._id, reason: "Away" }), 400);
    const res = await addUser(hseqMember, { ...body, reason: "Hugo is away" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.hseq_id._id).toBe(newHseq._id);
    expect(res.body.data.logs.at(-1)).toMatchObject({
      action: "Assigned Hana New-Hseq as HSEQ user",
      comment: "Hugo is away",
    });
    expect(await sees(cast.hseq, moc._id)).toBe(200); // still HSEQ department: sees every MOC
  });

  it("while a deviation waits for them, the approver is pending too; after approval with nothing pending, the originator assigns as before", async () => {
    const deviating = await mocAt("b-deviation", cast);
    const someone = await makeUser({ name: "Pia Pending", department: "fleet" });
    const body = { userId: someone._id, mocId: deviating._id, role: "approver" };
    expectError(await addUser(cast.originator, { ...body, reason: "x" }), 403);
    expectError(await addUser(admin, body), 400);

    const implementing = await mocAt("e", cast);
    const res = await addUser(cast.originator, { userId: someone._id, mocId: implementing._id, role: "approver" });
    expect(res.status, res.text).toBe(200);
  });

  it("a completed MOC: 409 as before", async () => {
    const moc = await mocAt("completed", cast);
    expectError(
      await addUser(admin, { userId: hseqMember._id, mocId: moc._id, role: "hseq", reason: "Late change" }),
      409,
    );
  });
});
