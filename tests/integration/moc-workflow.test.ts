/**
 * The MOC transition table (docs/decisions/004-moc-workflow.md, docs/decisions/003-email-outbox.md) as a
 * table: every step, from every stage, by every kind of actor. Allowed moves land in the right
 * status with the right audit entry and emails; wrong status 409, wrong actor 403, anonymous 401,
 * unknown or deleted MOC 404, and a refused or failed step changes nothing.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import * as deleteMocRoute from "~/routes/api+/deleteMoC";
import * as singlemocRoute from "~/routes/api+/singlemoc";
import * as addUserRoute from "~/routes/api+/addUser";
import { MOC_STEPS, type MocStep } from "~/models/moc/moc-steps.server";
import type { PublicUser } from "~/models/people/user.server";
import { api } from "../helpers/api";
import { makeAdmin, makeUser } from "../helpers/factories";
import {
  futureDate,
  hseqForm,
  implementationForm,
  implementerForm,
  originatorForm,
  resolution,
  type Cast,
  verifierForm,
} from "../helpers/moc";
import {
  ISO_Z,
  UUID,
  deactivate,
  defaultStepBody,
  emailsDuring,
  emailsOf,
  expectError,
  issuePaths,
  makeCast,
  mocAt,
  mocSnapshot,
  post,
  stepOk,
  submitStep,
  tokenOf,
  STAGE_STATUS,
  type Doc,
  type Stage,
} from "../helpers/moc-flow";
import { describeMocInvariants } from "../helpers/db-state";

let cast: Cast;
let admin: PublicUser;
let hseqOther: PublicUser;
let hseqInactive: PublicUser;
let stranger: PublicUser;

beforeAll(async () => {
  cast = await makeCast();
  [admin, hseqOther, hseqInactive, stranger] = await Promise.all([
    makeAdmin({ name: "Ada Admin", department: "operations" }),
    makeUser({ name: "Hana Other-Hseq", department: "hseq" }),
    makeUser({ name: "Ivo Inactive-Hseq", department: "hseq" }),
    makeUser({ name: "Sam Stranger", department: "engineering" }),
  ]);
  await deactivate(hseqInactive);
});

// ---------------------------------------------------------------------------------------------
// The table

const ACTOR_KINDS = ["right", "wrong involved", "uninvolved", "admin", "hseq department", "anonymous"] as const;
type ActorKind = (typeof ACTOR_KINDS)[number];

/** The stages a MOC of the table is built in (each `b-*` is status b for a different reason). */
const TABLE_STAGES = [
  "a",
  "b",
  "b-returned",
  "b-deviation",
  "c",
  "d",
  "e",
  "f",
  "decline-b",
  "decline-d",
  "completed",
] as const satisfies readonly Stage[];
type TableStage = (typeof TABLE_STAGES)[number];

/** Who the step is meant for. */
const RIGHT: Record<MocStep, keyof Cast> = {
  originator: "originator",
  implementer: "implementer",
  hseq: "hseq",
  approver: "approver",
  implementation: "implementer",
  "deviation-extension": "approver",
  "completion-report": "implementer",
  verifier: "hseq", // no verifier is set: the assigned HSEQ user verifies
  "verifier-return": "hseq",
  "temporary-restored": "implementer",
  "temporary-confirm": "hseq",
  "temporary-extension": "implementer",
  "temporary-extension-decision": "approver",
  "temporary-permanent": "implementer",
};

/** Someone involved in the MOC, but not the one the step is for. */
const WRONG_INVOLVED: Record<MocStep, keyof Cast> = {
  originator: "implementer",
  implementer: "originator",
  hseq: "implementer",
  approver: "implementer",
  implementation: "originator",
  "deviation-extension": "implementer",
  "completion-report": "originator",
  verifier: "approver",
  "verifier-return": "implementer",
  "temporary-restored": "originator",
  "temporary-confirm": "implementer",
  "temporary-extension": "approver",
  "temporary-extension-decision": "implementer",
  "temporary-permanent": "hseq",
};

/** The stages each step may start from (docs/decisions/004-moc-workflow.md). */
const FROM: Record<MocStep, TableStage[]> = {
  originator: ["a", "b"], // and only before the implementer has submitted
  implementer: ["b", "b-returned"], // not while a deviation or extension is outstanding
  hseq: ["c"],
  approver: ["d"],
  implementation: ["e"],
  "deviation-extension": ["b-deviation"],
  // Only after the deviation/extension decisions (tests/integration/completion-report.test.ts).
  "completion-report": [],
  verifier: ["f"],
  "verifier-return": ["f"],
  // Never for a permanent change: these MOCs all are (tests/integration/temporary-changes.test.ts).
  "temporary-restored": [],
  "temporary-confirm": [],
  "temporary-extension": [],
  "temporary-extension-decision": [],
  "temporary-permanent": [],
};

/** Where the approving answer of each step lands. */
const LANDS: Record<MocStep, string> = {
  originator: "b",
  implementer: "c",
  hseq: "d",
  approver: "e",
  implementation: "f",
  "deviation-extension": "f",
  "completion-report": "f",
  verifier: "f",
  "verifier-return": "e",
  "temporary-restored": "f",
  "temporary-confirm": "f",
  "temporary-extension": "f",
  "temporary-extension-decision": "f",
  "temporary-permanent": "f",
};

/** The approver and the assigned HSEQ user exist only once the implementer has approved. */
const ASSIGNED_BY_IMPLEMENTER: MocStep[] = [
  "approver",
  "deviation-extension",
  "verifier",
  "verifier-return",
  "temporary-confirm",
  "temporary-extension-decision",
];
const BEFORE_ASSIGNMENT: TableStage[] = ["a", "b", "decline-b"];

function mayAct(step: MocStep, stage: TableStage, kind: ActorKind): boolean {
  switch (kind) {
    case "right":
      return !(ASSIGNED_BY_IMPLEMENTER.includes(step) && BEFORE_ASSIGNMENT.includes(stage));
    case "admin":
      return step === "originator";
    case "hseq department":
      return step === "hseq";
    default:
      return false;
  }
}

function expectedStatus(step: MocStep, stage: TableStage, kind: ActorKind): 200 | 401 | 403 | 409 {
  if (kind === "anonymous") return 401;
  if (!mayAct(step, stage, kind)) return 403;
  return FROM[step].includes(stage) ? 200 : 409;
}

function actorOf(step: MocStep, kind: ActorKind): PublicUser | null {
  switch (kind) {
    case "right":
      return cast[RIGHT[step]];
    case "wrong involved":
      return cast[WRONG_INVOLVED[step]];
    case "uninvolved":
      return stranger;
    case "admin":
      return admin;
    case "hseq department":
      return hseqOther;
    case "anonymous":
      return null;
  }
}

/** The addresses of `people` but the actor's: nobody is told of their own action (decision 029). */
const toldBut = (actor: { email: string }, ...people: { email: string }[]) =>
  emailsOf(...people).filter((email) => email !== actor.email);

/** The emails each approving step sends (docs/api-contract.md, "Emails"), as people of the cast. */
function expectedRecipients(step: MocStep, stage: TableStage): { email: string }[] {
  const { originator, implementer, approver, hseq } = cast;
  switch (step) {
    case "originator":
      // Part A emails the implementer when it assigns them; re-submitting it unchanged does not.
      return stage === "a" ? [implementer] : [];
    case "implementer":
      // The HSEQ user assigned, not every member of the department (issue 38 item 8).
      return [hseq, approver, originator, implementer];
    case "hseq":
      return [approver, originator, implementer];
    case "approver":
      return [originator, implementer, hseq];
    case "implementation":
      return [originator, implementer, approver, hseq]; // all stakeholders: all_users
    case "deviation-extension":
      return [implementer, originator, approver, hseq];
    case "verifier":
      return [originator, implementer, hseq, approver];
    case "verifier-return":
      return [implementer, originator];
    default:
      return []; // the temporary steps never succeed on these (permanent) MOCs
  }
}

const CASES = MOC_STEPS.flatMap((step) =>
  TABLE_STAGES.flatMap((stage) =>
    ACTOR_KINDS.map((kind) => ({ step, stage, kind, expected: expectedStatus(step, stage, kind) })),
  ),
);

/** The audit entry a step appended: the last one, with the actor populated. */
function expectLogEntry(
  doc: Doc,
  before: number,
  entry: { actor: PublicUser; from: string; to: string; comment?: string | null },
) {
  expect(doc.logs).toHaveLength(before + 1);
  const log = doc.logs.at(-1);
  expect(Object.keys(log).sort()).toEqual(["_id", "action", "at", "comment", "from", "onBehalfOf", "to", "userId"]);
  expect(log).toMatchObject({ from: entry.from, to: entry.to, comment: entry.comment ?? null });
  expect(log.userId).toMatchObject({ _id: entry.actor._id, name: entry.actor.name, email: entry.actor.email });
  expect(typeof log.action).toBe("string");
  expect(log.action.length).toBeGreaterThan(0);
  expect(log.at).toMatch(ISO_Z);
}

describe("the transition table", () => {
  const fixtures = new Map<TableStage, { doc: Doc; snapshot: Awaited<ReturnType<typeof mocSnapshot>> }>();

  /** Fresh MOCs for the allowed moves, one per case (each case moves its own). */
  const fresh = new Map<TableStage, Doc[]>();

  beforeAll(async () => {
    // Independent MOCs, so they are built side by side.
    await Promise.all(
      TABLE_STAGES.map(async (stage) => {
        const doc = await mocAt(stage, cast);
        expect(doc.status).toBe(STAGE_STATUS[stage]);
        fixtures.set(stage, { doc, snapshot: await mocSnapshot(doc._id) });
      }),
    );
    const wanted = CASES.filter((c) => c.expected === 200).map((c) => c.stage);
    const built = await Promise.all(wanted.map((stage) => mocAt(stage, cast)));
    built.forEach((doc, i) => fresh.set(wanted[i]!, [...(fresh.get(wanted[i]!) ?? []), doc]));
  }, 60_000);

  it("covers every step, stage and kind of actor", () => {
    expect(CASES).toHaveLength(MOC_STEPS.length * TABLE_STAGES.length * ACTOR_KINDS.length);
    const allowed = CASES.filter((c) => c.expected === 200).map((c) => `${c.step}@${c.stage}/${c.kind}`);
    expect(allowed.sort()).toEqual(
      [
        "originator@a/right",
        "originator@a/admin",
        "originator@b/right",
        "originator@b/admin",
        "implementer@b/right",
        "implementer@b-returned/right",
        "hseq@c/right",
        "hseq@c/hseq department",
        "approver@d/right",
        "implementation@e/right",
        "deviation-extension@b-deviation/right",
        "verifier@f/right",
        "verifier-return@f/right",
      ].sort(),
    );
  });

  it.each(CASES.filter((c) => c.expected !== 200))(
    "$step from $stage by the $kind actor: $expected, nothing changes",
    async ({ step, stage, kind, expected }) => {
      const fixture = fixtures.get(stage)!;
      const res = await submitStep(step, actorOf(step, kind), defaultStepBody(step, fixture.doc, cast));
      expectError(res, expected);
      expect(await mocSnapshot(fixture.doc._id)).toEqual(fixture.snapshot);
    },
  );

  it.each(CASES.filter((c) => c.expected === 200))(
    "$step from $stage by the $kind actor: moves, logs and emails",
    async ({ step, stage, kind }) => {
      const moc = fresh.get(stage)!.pop()!;
      expect(moc.status).toBe(STAGE_STATUS[stage]);
      const actor = actorOf(step, kind)!;
      const { result: res, to } = await emailsDuring(moc._id, () =>
        submitStep(step, actor, defaultStepBody(step, moc, cast)),
      );
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(["data", "status"]);
      const doc = res.body.data;
      expect(doc.status).toBe(LANDS[step]);
      expect(doc.completed).toBe(step === "verifier");
      expectLogEntry(doc, moc.logs.length, {
        actor,
        from: STAGE_STATUS[stage],
        to: LANDS[step],
        comment:
          step === "deviation-extension"
            ? "Reviewed"
            : step === "verifier-return"
              ? "The spare pump is not fitted yet"
              : null,
      });
      expect(to).toEqual(toldBut(actor, ...expectedRecipients(step, stage)));
      expect(to).not.toContain(hseqInactive.email);
    },
  );
});

// ---------------------------------------------------------------------------------------------
// Unknown and deleted MOCs

describe("unknown and soft-deleted MOCs", () => {
  it.each(MOC_STEPS)("%s: an unknown moc_id is 404 and an anonymous caller 401", async (step) => {
    const body = defaultStepBody(step, { _id: randomUUID() }, cast);
    expectError(await submitStep(step, cast[RIGHT[step]], body), 404);
    expectError(await submitStep(step, null, body), 401);
  });

  it.each([
    ["b", "originator"],
    ["b", "implementer"],
    ["c", "hseq"],
    ["d", "approver"],
    ["e", "implementation"],
    ["b-deviation", "deviation-extension"],
    ["f", "verifier"],
  ] as const)("from %s, %s on a soft-deleted MOC is 404 and changes nothing", async (stage, step) => {
    const moc = await mocAt(stage, cast);
    // Past Part B someone else has decided on it: an admin deletes it, with a reason.
    const deleted = await api(deleteMocRoute, {
      method: "DELETE",
      path: "/api/deleteMoC",
      query: { id: moc._id, reason: "Raised twice" },
      token: await tokenOf(admin),
    });
    expect(deleted.status, deleted.text).toBe(200);
    const before = await mocSnapshot(moc._id);
    expectError(await submitStep(step, cast[RIGHT[step]], defaultStepBody(step, moc, cast)), 404);
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });
});

// ---------------------------------------------------------------------------------------------
// Declines and returns

describe("declines and returns", () => {
  it("the implementer declines: status decline, decline object at stage b, originator and all users emailed", async () => {
    const moc = await mocAt("b", cast);
    const { result, to } = await emailsDuring(moc._id, () =>
      stepOk("implementer", cast.implementer, {
        moc_id: moc._id,
        implementer_form: {
          "details-assessed": { value: "yes" },
          "necessary-justified": { value: "no" },
          "decline-reason": { value: "The change is not justified" },
        },
      }),
    );
    expect(result.status).toBe("decline");
    expect(result.completed).toBe(false);
    expect(result.decline).toMatchObject({ stage: "b", reason: "The change is not justified" });
    expect(result.implementer_form["necessary-justified"]).toEqual({ value: "no" });
    expectLogEntry(result, moc.logs.length, {
      actor: cast.implementer,
      from: "b",
      to: "decline",
      comment: "The change is not justified",
    });
    expect(to).toEqual(toldBut(cast.implementer, cast.originator, cast.implementer));
  });

  it("declining needs a reason (400, nothing changes)", async () => {
    const moc = await mocAt("b", cast);
    const before = await mocSnapshot(moc._id);
    const res = await submitStep("implementer", cast.implementer, {
      moc_id: moc._id,
      implementer_form: { "details-assessed": { value: "no" }, "necessary-justified": { value: "no" } },
    });
    expectError(res, 400);
    expect(issuePaths(res)).toContain("implementer_form.decline-reason");
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });

  it("HSEQ returns the MOC to b: implementer and originator emailed; the implementer can submit again", async () => {
    const moc = await mocAt("c", cast);
    const { result, to } = await emailsDuring(moc._id, () =>
      stepOk("hseq", cast.hseq, { moc_id: moc._id, hseq_form: hseqForm("no", "Add the risk assessment") }),
    );
    expect(result.status).toBe("b");
    expect(result.hseq_form["hseq-change-adequately"]).toEqual({ value: "no" });
    expectLogEntry(result, moc.logs.length, {
      actor: cast.hseq,
      from: "c",
      to: "b",
      comment: "Add the risk assessment",
    });
    expect(to).toEqual(emailsOf(cast.implementer, cast.originator));
    // Part A is closed once Part B was submitted, even back in b.
    expectError(await submitStep("originator", cast.originator, defaultStepBody("originator", result, cast)), 409);
    const again = await stepOk("implementer", cast.implementer, defaultStepBody("implementer", result, cast));
    expect(again.status).toBe("c");
  });

  it("HSEQ's return needs a reason (400, nothing changes)", async () => {
    const moc = await mocAt("c", cast);
    const before = await mocSnapshot(moc._id);
    const res = await submitStep("hseq", cast.hseq, { moc_id: moc._id, hseq_form: hseqForm("no") });
    expectError(res, 400);
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });

  it("the approver declines: status decline at stage d, every MOC user emailed", async () => {
    const moc = await mocAt("d", cast);
    const { result, to } = await emailsDuring(moc._id, () =>
      stepOk("approver", cast.approver, {
        moc_id: moc._id,
        approver_form: {
          "approver-changes-reviewed": { value: "yes" },
          "approver-moc-approved": { value: "no" },
          "decline-reason": { value: "Budget" },
        },
      }),
    );
    expect(result.status).toBe("decline");
    expect(result.decline).toMatchObject({ stage: "d", reason: "Budget" });
    expectLogEntry(result, moc.logs.length, { actor: cast.approver, from: "d", to: "decline", comment: "Budget" });
    expect(to).toEqual(toldBut(cast.approver, cast.originator, cast.implementer, cast.approver, cast.hseq));
  });

  it("emails skip inactive users among all MOC users and send one message per person", async () => {
    const moc = await mocAt("b", cast);
    const watcher = await makeUser({ name: "Walt Watcher", department: "fleet" });
    const added = await post(addUserRoute, "/api/addUser", cast.originator, {
      body: { userId: watcher._id, mocId: moc._id, role: "verifier" },
    });
    expect(added.status, added.text).toBe(200);
    await deactivate(watcher);
    const { result, to } = await emailsDuring(moc._id, () =>
      stepOk("implementer", cast.implementer, defaultStepBody("implementer", moc, cast)),
    );
    expect(result.all_users.map((u: { _id: string }) => u._id)).toContain(watcher._id);
    expect(to).toEqual(toldBut(cast.implementer, cast.hseq, cast.approver, cast.originator, cast.implementer));
    expect(to).not.toContain(watcher.email);
    expect(new Set(to).size).toBe(to.length);
  });
});

// ---------------------------------------------------------------------------------------------
// Deviations and extensions

describe("deviations and extensions", () => {
  it("a deviation at implementation sends the MOC to b with a tracking object; approver and HSEQ user emailed", async () => {
    const moc = await mocAt("e", cast);
    const { result, to } = await emailsDuring(moc._id, () =>
      stepOk("implementation", cast.implementer, {
        moc_id: moc._id,
        implementation: implementationForm({ deviation: true }),
      }),
    );
    expect(result.status).toBe("b");
    expect(result.extentionsAndDeviations).toMatchObject({
      _id: expect.stringMatching(UUID),
      deviation: {
        requested: true,
        details: "<p>Used a different bracket</p>",
        resolved: false,
        approved: null,
        comment: null,
      },
      extension: null,
    });
    expect(result.implementation["deviation-during-implementation"]).toEqual({ value: "yes" });
    expectLogEntry(result, moc.logs.length, { actor: cast.implementer, from: "e", to: "b" });
    expect(to).toEqual(emailsOf(cast.approver, cast.hseq));
  });

  it("an extension request carries new_date and reason", async () => {
    const moc = await mocAt("b-extension", cast);
    expect(moc.status).toBe("b");
    expect(moc.extentionsAndDeviations).toMatchObject({
      _id: expect.stringMatching(UUID),
      deviation: null,
      extension: {
        requested: true,
        new_date: futureDate(60),
        reason: "Parts delayed",
        resolved: false,
        approved: null,
        comment: null,
      },
    });
  });

  it("while an item is outstanding nobody moves the MOC but the approver or assigned HSEQ user", async () => {
    const moc = await mocAt("b-both", cast);
    const before = await mocSnapshot(moc._id);
    // The implementer cannot resubmit Part B, nor the originator Part A (409).
    expectError(await submitStep("implementer", cast.implementer, defaultStepBody("implementer", moc, cast)), 409);
    expectError(await submitStep("originator", cast.originator, defaultStepBody("originator", moc, cast)), 409);
    expectError(
      await submitStep("implementation", cast.implementer, defaultStepBody("implementation", moc, cast)),
      409,
    );
    // Only the approver or the assigned HSEQ user resolves (403 for anyone else).
    for (const who of [cast.implementer, cast.originator, admin, hseqOther, stranger]) {
      expectError(await submitStep("deviation-extension", who, resolution(moc, "deviation")), 403);
    }
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });

  it("each item is resolved once; the MOC moves to f when all are resolved; an approved extension moves the target date", async () => {
    const moc = await mocAt("b-both", cast);
    const originalTarget = moc.implementer_form["target-date"].value;
    expect(moc.target_date).toBe(originalTarget);

    const first = await emailsDuring(moc._id, () =>
      stepOk("deviation-extension", cast.approver, resolution(moc, "deviation", "no", "Use the original bracket")),
    );
    expect(first.result.status).toBe("b");
    expect(first.result.extentionsAndDeviations.deviation).toMatchObject({
      resolved: true,
      approved: "no",
      comment: "Use the original bracket",
    });
    expect(first.result.extentionsAndDeviations.extension.resolved).toBe(false);
    expectLogEntry(first.result, moc.logs.length, {
      actor: cast.approver,
      from: "b",
      to: "b",
      comment: "Use the original bracket",
    });
    expect(first.to).toEqual(toldBut(cast.approver, cast.implementer, cast.originator, cast.approver, cast.hseq));

    // The same item again: 409, and nothing changes.
    const afterFirst = await mocSnapshot(moc._id);
    expectError(await submitStep("deviation-extension", cast.hseq, resolution(moc, "deviation")), 409);
    expectError(await submitStep("deviation-extension", cast.approver, resolution(moc, "deviation", "yes")), 409);
    // Still outstanding: Part B stays closed.
    expectError(await submitStep("implementer", cast.implementer, defaultStepBody("implementer", moc, cast)), 409);
    expect(await mocSnapshot(moc._id)).toEqual(afterFirst);

    const second = await stepOk("deviation-extension", cast.hseq, resolution(moc, "extension", "yes", "Granted"));
    expect(second.status).toBe("f");
    expect(second.extentionsAndDeviations.extension).toMatchObject({
      resolved: true,
      approved: "yes",
      comment: "Granted",
      new_date: futureDate(60),
    });
    expect(second.implementer_form["target-date"]).toEqual({ value: futureDate(60) });
    expect(second.target_date).toBe(futureDate(60));
    expectLogEntry(second, moc.logs.length + 1, { actor: cast.hseq, from: "b", to: "f", comment: "Granted" });

    // Resolved: both items are closed now, and the MOC is at verification.
    const afterSecond = await mocSnapshot(moc._id);
    expectError(await submitStep("deviation-extension", cast.approver, resolution(moc, "extension")), 409);
    expect(await mocSnapshot(moc._id)).toEqual(afterSecond);
  });

  it("a rejected extension leaves the target date where it was", async () => {
    const moc = await mocAt("b-extension", cast);
    const target = moc.implementer_form["target-date"].value;
    const done = await stepOk("deviation-extension", cast.approver, resolution(moc, "extension", "no", "No"));
    expect(done.status).toBe("f");
    expect(done.implementer_form["target-date"]).toEqual({ value: target });
    expect(done.target_date).toBe(target);
  });

  it("the assigned HSEQ user can resolve a lone deviation, which moves the MOC to f; a second resolution is 409", async () => {
    const moc = await mocAt("b-deviation", cast);
    const done = await stepOk("deviation-extension", cast.hseq, resolution(moc, "deviation", "yes", "Fine"));
    expect(done.status).toBe("f");
    expect(done.extentionsAndDeviations.deviation).toMatchObject({ resolved: true, approved: "yes", comment: "Fine" });
    const after = await mocSnapshot(moc._id);
    expectError(await submitStep("deviation-extension", cast.approver, resolution(moc, "deviation")), 409);
    expect(await mocSnapshot(moc._id)).toEqual(after);
  });

  it("an unknown deviationExtentionId is 404, an item that was not requested 409", async () => {
    const moc = await mocAt("b-deviation", cast);
    const before = await mocSnapshot(moc._id);
    expectError(
      await submitStep("deviation-extension", cast.approver, {
        ...resolution(moc, "deviation"),
        deviationExtentionId: randomUUID(),
      }),
      404,
    );
    expectError(await submitStep("deviation-extension", cast.approver, resolution(moc, "extension")), 409);
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });
});

// ---------------------------------------------------------------------------------------------
// Verification

describe("verification", () => {
  it("with a verifier set, only the verifier verifies (not the HSEQ user); 'no' saves and stays open, 'yes' completes", async () => {
    const moc = await mocAt("f", cast, { verifier: true });
    expect(moc.verifier_id._id).toBe(cast.verifier._id);
    const before = await mocSnapshot(moc._id);
    for (const who of [cast.hseq, cast.approver, admin, hseqOther]) {
      expectError(await submitStep("verifier", who, defaultStepBody("verifier", moc, cast)), 403);
    }
    expect(await mocSnapshot(moc._id)).toEqual(before);

    const open = await emailsDuring(moc._id, () =>
      stepOk("verifier", cast.verifier, {
        moc_id: moc._id,
        verifier_form: verifierForm("no"),
      }),
    );
    expect(open.result.status).toBe("f");
    expect(open.result.completed).toBe(false);
    expect(open.result.verifier_form["close-moc"]).toEqual({ value: "no" });
    expectLogEntry(open.result, moc.logs.length, { actor: cast.verifier, from: "f", to: "f" });
    expect(open.to).toEqual(emailsOf(cast.originator, cast.implementer, cast.hseq, cast.approver));

    const closed = await stepOk("verifier", cast.verifier, defaultStepBody("verifier", moc, cast));
    expect(closed.completed).toBe(true);
    expect(closed.status).toBe("f");
    expect(closed.verifier_form["close-moc"]).toEqual({ value: "yes" });
    expect(closed.verifier_form._id).toBe(open.result.verifier_form._id);

    const after = await mocSnapshot(moc._id);
    expectError(await submitStep("verifier", cast.verifier, defaultStepBody("verifier", moc, cast)), 409);
    expect(await mocSnapshot(moc._id)).toEqual(after);
  });

  it("without a verifier, the assigned HSEQ user verifies; another HSEQ user may not", async () => {
    const moc = await mocAt("f", cast);
    expect(moc.verifier_id).toBeNull();
    expectError(await submitStep("verifier", hseqOther, defaultStepBody("verifier", moc, cast)), 403);
    const closed = await stepOk("verifier", cast.hseq, defaultStepBody("verifier", moc, cast));
    expect(closed.completed).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Part A

describe("the originator step", () => {
  it("re-assigning the implementer in b updates implementer_id and all_users and emails the new one", async () => {
    const moc = await mocAt("b", cast);
    const replacement = await makeUser({ name: "Rita Replacement", department: "operations" });
    const { result, to } = await emailsDuring(moc._id, () =>
      stepOk("originator", cast.originator, {
        moc_id: moc._id,
        originator_form: originatorForm(replacement),
      }),
    );
    expect(result.status).toBe("b");
    expect(result.implementer_id._id).toBe(replacement._id);
    expect(result.originator_form["implementer-name"]).toEqual({
      value: { _id: replacement._id, name: replacement.name },
    });
    expect(result.all_users.map((u: { _id: string }) => u._id).sort()).toEqual(
      [cast.originator._id, replacement._id].sort(),
    );
    expectLogEntry(result, moc.logs.length, { actor: cast.originator, from: "b", to: "b" });
    expect(to).toEqual(emailsOf(replacement));
    // The old implementer is out; the new one assesses.
    expectError(await submitStep("implementer", cast.implementer, defaultStepBody("implementer", moc, cast)), 403);
    expect((await stepOk("implementer", replacement, defaultStepBody("implementer", moc, cast))).status).toBe("c");
  });

  it("submitting a draft moves it from a to b and adds the implementer to all_users", async () => {
    const moc = await mocAt("a", cast);
    expect(moc.status).toBe("a");
    expect(moc.all_users.map((u: { _id: string }) => u._id)).toEqual([cast.originator._id]);
    const done = await stepOk("originator", cast.originator, defaultStepBody("originator", moc, cast));
    expect(done.status).toBe("b");
    expect(done.all_users.map((u: { _id: string }) => u._id).sort()).toEqual(
      [cast.originator._id, cast.implementer._id].sort(),
    );
    expect(done.originator_form.submittedAt).toMatch(ISO_Z);
  });
});

// ---------------------------------------------------------------------------------------------
// Failed steps roll back

describe("a step that fails leaves nothing behind", () => {
  it("an unknown approver id: 400 with the path; MOC, forms, people, logs and emails unchanged", async () => {
    const moc = await mocAt("b", cast);
    const before = await mocSnapshot(moc._id);
    const res = await submitStep("implementer", cast.implementer, {
      moc_id: moc._id,
      implementer_form: implementerForm({ _id: randomUUID() }, cast.hseq),
    });
    expectError(res, 400);
    expect(issuePaths(res)).toEqual(["implementer_form.approver-name"]);
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });

  it("an inactive HSEQ user or one outside HSEQ: 400, nothing changed", async () => {
    const moc = await mocAt("b", cast);
    const before = await mocSnapshot(moc._id);
    for (const hseqName of [hseqInactive, cast.verifier]) {
      const res = await submitStep("implementer", cast.implementer, {
        moc_id: moc._id,
        implementer_form: implementerForm(cast.approver, hseqName),
      });
      expectError(res, 400);
      expect(issuePaths(res)).toEqual(["implementer_form.hseq-name"]);
    }
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });

  it("a target date in the past: 400, nothing changed", async () => {
    const moc = await mocAt("b", cast);
    const before = await mocSnapshot(moc._id);
    const res = await submitStep("implementer", cast.implementer, {
      moc_id: moc._id,
      implementer_form: implementerForm(cast.approver, cast.hseq, { "target-date": { value: "2020-01-01" } }),
    });
    expectError(res, 400);
    expect(issuePaths(res)).toEqual(["implementer_form.target-date"]);
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });

  it("an extension date in the past fails after the form was written: the form write is rolled back too", async () => {
    const moc = await mocAt("e", cast);
    expect(moc.implementation).toBeNull();
    const before = await mocSnapshot(moc._id);
    const res = await submitStep("implementation", cast.implementer, {
      moc_id: moc._id,
      implementation: { ...implementationForm({ extension: true }), "extension-date": { value: "2020-01-01" } },
    });
    expectError(res, 400);
    expect(issuePaths(res)).toEqual(["implementation.extension-date"]);
    expect(await mocSnapshot(moc._id)).toEqual(before);
    const read = await api(singlemocRoute, {
      path: "/api/singlemoc",
      query: { moc_id: moc._id },
      token: await tokenOf(cast.implementer),
    });
    expect(read.body.implementation).toBeNull();
    expect(read.body.status).toBe("e");
  });

  it("Part A naming an inactive implementer: 400, nothing changed", async () => {
    const moc = await mocAt("b", cast);
    const before = await mocSnapshot(moc._id);
    const res = await submitStep("originator", cast.originator, {
      moc_id: moc._id,
      originator_form: originatorForm(hseqInactive),
    });
    expectError(res, 400);
    expect(issuePaths(res)).toEqual(["originator_form.implementer-name"]);
    expect(await mocSnapshot(moc._id)).toEqual(before);
  });
});

describeMocInvariants();
