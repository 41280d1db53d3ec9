/**
 * The HSEQ review (Part C) and the approval (Part D), with the second approvals a MOC's risk asks
 * for (docs/decisions/037-risk-ranking-and-approvals.md), declared once on the engine.
 */
import { eq, sql } from "drizzle-orm";
import { mocs } from "#db/schema";
import { Invalid } from "~/utils/errors";
import { type z } from "zod";
import type { Transaction } from "~/utils/db.server";
import { isHseq } from "../../authz/authz.server";
import { approverFormSchema, hseqFormSchema } from "../moc.schema";
import { addMocUsers, saveForm } from "../moc-store.server";
import {
  APPROVAL_STAGE_ACTION,
  approvalStages,
  riskGateRefusal,
  riskLabel,
  RISK_LEVEL_LABEL,
  type ApprovalStage,
} from "../../risk/risk";
import { getRiskSettings } from "../risk-settings.server";
import {
  approvalName,
  mayGiveApproval,
  mayGiveApprovalSql,
  PENDING_APPROVAL_SQL,
  pendingApproval,
  positionOf,
  SECOND_APPROVER_SQL,
} from "../../authz/risk-approval.server";
import { dependenceOf, fourEyesRefusal, independent, independentSql, isIndependentOf } from "../moc-four-eyes.server";
import { assigned, declined, step, type Moc, type Outcome, type StepContext } from "./shape.server";

// ---------------------------------------------------------------------------------------------
// Risk decides who approves (docs/decisions/037-risk-ranking-and-approvals.md)

/**
 * The approver step's `who`: the approver's own rule (`base`) while the MOC waits for the
 * approver, then for each second approval its position's holder (`mayGiveApproval`), independent
 * of the MOC as an approver is. Unchanged for a MOC that needs only the approver.
 */
const secondApprovals = (base: ReturnType<typeof independent>): ReturnType<typeof independent> => ({
  independent: "approval",
  may: (actor, moc) =>
    pendingApproval(moc.approval) === "approver"
      ? base.may(actor, moc)
      : mayGiveApproval(actor, moc) && isIndependentOf(actor._id, moc, "approval"),
  sql: (actor) => sql`(${mayGiveApprovalSql(actor)} and ${independentSql(actor._id, "approval")})`,
  refusal: base.refusal,
  conflict: (actor, moc) => {
    const stage = pendingApproval(moc.approval);
    if (stage === "approver") return base.conflict(actor, moc);
    if (!stage) return null;
    if (!mayGiveApproval(actor, moc)) {
      return (moc.approval?.givenIds ?? []).includes(actor._id)
        ? `You have already approved this MOC; ${approvalName(stage, moc.approval)} must come from someone else (four eyes)`
        : `This MOC waits on ${approvalName(stage, moc.approval)}; only the holder of that position can give it`;
    }
    const dependence = dependenceOf(actor._id, moc, "approval");
    return dependence ? fourEyesRefusal(dependence, "approve", "approval") : null;
  },
});

/** The active holders of a position (who a second approval waits on). */
async function positionHolders(tx: Transaction, position: string | null): Promise<string[]> {
  if (!position) return [];
  const rows = await tx.execute<{ id: string }>(sql`select id from users where position = ${position} and active`);
  return rows.map((r) => r.id);
}

const levelWords = (moc: Moc) => `${riskLabel(moc.approval?.level)} risk`;

/** An approval given while another is still needed: the MOC stays at `d`, the next approver is told. */
async function approvalGiven(
  { tx, actor, moc }: StepContext<unknown>,
  stage: ApprovalStage,
  next: ApprovalStage,
): Promise<Outcome> {
  const who = stage === "approver" ? "approver" : positionOf(stage, moc.approval)!;
  const holders = await positionHolders(tx, positionOf(next, moc.approval));
  // The next approvers read the MOC as people involved in it (canViewMoc), and are reminded with them.
  await addMocUsers(tx, moc.id, holders);
  return {
    to: "d",
    action: `${APPROVAL_STAGE_ACTION}${who} (${levelWords(moc)}); next: ${approvalName(next, moc.approval)}`,
    meaning: "approved",
    notices: [
      {
        to: { userIds: [...holders, moc.originatorId, moc.implementerId] },
        event: `${actor.name} approved this MOC as the ${who} (${levelWords(moc)}).`,
        expectation: `Next: ${approvalName(next, moc.approval)} (Part D).`,
      },
    ],
  };
}

/** A second approval's decision: declined, given with another still to come, or the last one (`d` -> `e`). */
async function secondApproval(
  context: StepContext<z.output<typeof approverFormSchema>>,
  stage: ApprovalStage,
): Promise<Outcome> {
  const { actor, moc, input, now } = context;
  const position = positionOf(stage, moc.approval)!;
  if (input["approver-moc-approved"].value === "no") {
    return declined({ actor, moc, now }, input["decline-reason"]!.value, {
      stage: "d",
      action: `Declined as the ${position} (${levelWords(moc)})`,
      where: `at the ${levelWords(moc)} approval by the ${position} (Part D)`,
    });
  }
  const stages = approvalStages(moc.approval?.level);
  const next = stages[stages.indexOf(stage) + 1];
  if (next) return approvalGiven(context, stage, next);
  return {
    to: "e",
    action:
      `Approved as the ${position} (${levelWords(moc)})` +
      (moc.temporary ? `, as a temporary change until ${moc.temporary.until}` : ""),
    meaning: "approved",
    notices: [
      {
        to: { userIds: [moc.originatorId, moc.implementerId, moc.hseqId, moc.approverId] },
        event: `${actor.name} gave the last approval this MOC needs (${levelWords(moc)}).`,
        expectation: "Next: the implementer carries out the change and reports it (Part E).",
        details: moc.temporary ? [["Temporary until", moc.temporary.until]] : [],
      },
    ],
  };
}

/**
 * The risk gate (issue 38, docs/decisions/037): with the admin setting on, why HSEQ may not answer
 * "the risk assessment covers the change: yes" on this MOC yet (`riskGateRefusal`), or null.
 */
async function riskGate(tx: Transaction, moc: Moc): Promise<string | null> {
  const settings = await getRiskSettings(tx);
  if (!settings.rankingRequired) return null;
  const [row] = await tx
    .select({
      items: mocs.impactAssessment,
      declared: mocs.noSignificantHazard,
      level: mocs.riskLevel,
      riskAssessment: mocs.riskAssessment,
    })
    .from(mocs)
    .where(eq(mocs.id, moc.id));
  if (!row) return null;
  return riskGateRefusal({ ...row, declared: row.declared !== null });
}

export const APPROVAL_STEPS = {
  hseq: step({
    path: "hseq",
    part: "Part C (HSEQ review)",
    who: independent(
      {
        may: (actor) => isHseq(actor),
        sql: (actor) => (isHseq(actor) ? sql`true` : sql`false`),
        refusal: "Only members of the HSEQ department can submit the HSEQ review",
      },
      "review",
      "review",
    ),
    signs: () => "HSEQ reviewer",
    open: { statuses: ["c"] },
    owner: { roles: ["hseq"], suffix: " (HSEQ)", otherwise: "HSEQ department" },
    form: hseqFormSchema,
    bodyKey: "hseq_form",
    async apply({ tx, actor, moc, input }) {
      if (input["hseq-risk-assessment-covered"].value === "yes") {
        const refusal = await riskGate(tx, moc);
        if (refusal) throw new Invalid(refusal, [{ path: "hseq-risk-assessment-covered", message: refusal }]);
      }
      await saveForm(tx, { mocId: moc.id, kind: "hseq", actorId: actor._id, submitted: true, data: input });
      const passes = [
        input["hseq-change-adequately"],
        input["hseq-justification-satisfactory"],
        input["hseq-risk-assessment-covered"],
      ].every((f) => f.value === "yes");
      if (!passes) {
        const reason = input["decline-reason"]!.value;
        return {
          to: "b",
          action: "Returned to the implementer by HSEQ",
          meaning: "returned to implementer",
          comment: reason,
          notices: [
            {
              to: { userIds: [moc.implementerId, moc.originatorId] },
              event: `${actor.name} (HSEQ) returned this MOC to the implementer.`,
              expectation: "Next: the implementer revises the assessment (Part B).",
              details: [["Reason", reason]],
            },
          ],
        };
      }
      return {
        to: "d",
        action: "HSEQ review passed",
        meaning: "reviewed and found adequate",
        // The level HSEQ reviewed: approvals never follow a lower one (issue 40 item 3, decision 037).
        changes: { reviewedRiskLevel: moc.approval?.level ?? null },
        notices: [
          {
            to: { userIds: [moc.approverId, moc.originatorId, moc.implementerId] },
            event: `${actor.name} (HSEQ) reviewed the change and found it adequate.`,
            expectation: "Next: the approver decides (Part D).",
          },
        ],
      };
    },
  }),

  approver: step({
    path: "approver",
    part: "Part D (approval)",
    // The approver, then on a High or Extreme MOC the holders of the positions its risk names
    // (docs/decisions/037-risk-ranking-and-approvals.md): risk-approval.server.ts.
    who: secondApprovals(
      independent(
        { ...assigned("approver"), refusal: "Only the assigned approver can decide on this MOC" },
        "approve",
        "approval",
      ),
    ),
    signs: (actor, moc) => {
      const stage = pendingApproval(moc.approval);
      return stage && stage !== "approver" ? `${RISK_LEVEL_LABEL[stage]}-risk approver` : "Approver";
    },
    open: { statuses: ["d"] },
    // The staged approvals a High or Extreme MOC needs after the approver's yes read as their own
    // stage; the owner line names the position's holders.
    flagged: [
      ["secondApprovalWaiting", "Second approval (High risk)"],
      ["thirdApprovalWaiting", "Third approval (Extreme risk)"],
    ],
    owner: {
      roles: ["approver"],
      sql: sql`case when ${PENDING_APPROVAL_SQL} in ('high', 'extreme') then ${SECOND_APPROVER_SQL} end`,
    },
    form: approverFormSchema,
    bodyKey: "approver_form",
    apiNote:
      "On a MOC whose `risk_level` is `high` or `extreme` the MOC stays at `d` after the approver's yes, and this same call serves each further approval in turn: a holder of the position configured for High, then (Extreme) of the one for Extreme; each must be independent of the MOC and of the other approvers (docs/decisions/037-risk-ranking-and-approvals.md).",
    async apply(context) {
      const { tx, actor, moc, input, now } = context;
      const stage = pendingApproval(moc.approval);
      if (stage && stage !== "approver") return secondApproval(context, stage);
      const stages = approvalStages(moc.approval?.level);
      if (input["approver-moc-approved"].value === "yes" && stages.length > 1) {
        await saveForm(tx, { mocId: moc.id, kind: "approver", actorId: actor._id, submitted: true, data: input });
        return approvalGiven(context, "approver", stages[1]!);
      }
      await saveForm(tx, { mocId: moc.id, kind: "approver", actorId: actor._id, submitted: true, data: input });
      if (input["approver-moc-approved"].value === "no") {
        const reason = input["decline-reason"]!.value;
        return declined({ actor, moc, now }, reason, {
          stage: "d",
          action: "Declined by the approver",
          where: "at approval (Part D)",
        });
      }
      return {
        to: "e",
        action: moc.temporary ? `Approved as a temporary change until ${moc.temporary.until}` : "Approved",
        meaning: "approved",
        notices: [
          {
            to: { userIds: [moc.originatorId, moc.implementerId, moc.hseqId] },
            event: moc.temporary
              ? `${actor.name} approved this MOC as a temporary change, to end by ${moc.temporary.until}.`
              : `${actor.name} approved this MOC.`,
            expectation: "Next: the implementer carries out the change and reports it (Part E).",
            details: moc.temporary ? [["Temporary until", moc.temporary.until]] : [],
          },
        ],
      };
    },
  }),
};
