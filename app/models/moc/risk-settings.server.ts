/**
 * The risk matrix's settings (docs/decisions/037-risk-ranking-and-approvals.md): the score
 * thresholds of the levels and the positions whose holders give the second approvals of High and
 * Extreme MOCs. Read by the impact assessment, the approver step and the pages; changed by admins,
 * each change in the audit trail (record kind "settings") and re-ranking the MOCs still waiting
 * for their first approval.
 */
import { eq, sql } from "drizzle-orm";
import { mocs, riskSettings, type Position } from "#db/schema";
import type { RiskSettingsInput } from "../risk/risk.schema";
import { getDb, type Executor } from "~/utils/db.server";
import { Forbidden, Invalid } from "~/utils/errors";
import { appendAudit } from "../audit/audit.server";
import { approvalGivenSql, isAdmin, type Actor } from "../authz/authz.server";
import { appendLog, notifyAboutMoc } from "./moc-store.server";
import {
  approvalLevel,
  approvalStages,
  DEFAULT_THRESHOLDS,
  mocRiskLevel,
  riskLabel,
  thresholdsProblem,
  type ApprovalStage,
  type RiskLevel,
  type RiskThresholds,
} from "../risk/risk";
import type { ImpactItem } from "#db/schema";

export type RiskSettings = RiskThresholds & {
  highPosition: Position;
  extremePosition: Position;
  /** A MOC passes the HSEQ review only once ranked (issue 38 "the risk gate"; `rankingRequired` over /api). */
  rankingRequired: boolean;
};

export const DEFAULT_RISK_SETTINGS: RiskSettings = {
  ...DEFAULT_THRESHOLDS,
  highPosition: "Director HSEQ",
  extremePosition: "President",
  rankingRequired: true,
};

/** The audit trail's record id of the risk settings (one record). */
export const RISK_SETTINGS_RECORD = "00000000-0000-0000-0000-000000000037";

export async function getRiskSettings(db: Executor = getDb()): Promise<RiskSettings> {
  const [row] = await db
    .select({
      lowMax: riskSettings.lowMax,
      mediumMax: riskSettings.mediumMax,
      highMax: riskSettings.highMax,
      highPosition: riskSettings.highPosition,
      extremePosition: riskSettings.extremePosition,
      rankingRequired: riskSettings.rankingRequired,
    })
    .from(riskSettings)
    .where(eq(riskSettings.id, 1));
  return row ?? DEFAULT_RISK_SETTINGS;
}

const describe = (s: RiskSettings) =>
  `Low 1-${s.lowMax}, Medium ${s.lowMax + 1}-${s.mediumMax}, High ${s.mediumMax + 1}-${s.highMax}, ` +
  `Extreme ${s.highMax + 1}-25; High approved also by the ${s.highPosition}, Extreme also by the ${s.extremePosition}; ` +
  (s.rankingRequired ? "ranking required before HSEQ review" : "ranking not required before HSEQ review");

/**
 * Admins change the settings: the thresholds must keep 1 <= Low < Medium < High < 25 (400 with the
 * field otherwise). One transaction: the row, the audit entry, and every MOC still to be approved
 * (status a-d, no approval given yet) re-ranked, each re-ranked one with a trail entry.
 */
export async function setRiskSettings(
  actor: Actor & { name: string },
  input: RiskSettingsInput,
): Promise<RiskSettings> {
  if (!isAdmin(actor)) throw new Forbidden("Only an admin can change the risk matrix");
  return getDb().transaction(async (tx) => {
    await tx.execute(sql`select 1 from risk_settings where id = 1 for update`);
    const before = await getRiskSettings(tx);
    const next: RiskSettings = {
      ...before,
      ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)),
    };
    const problem = thresholdsProblem(next);
    if (problem) {
      throw new Invalid(problem, [
        { path: "mediumMax", message: problem },
        { path: "highMax", message: problem },
      ]);
    }
    if (describe(next) === describe(before)) return before;
    await tx
      .update(riskSettings)
      .set({ ...next, updatedAt: new Date(), updatedBy: actor._id })
      .where(eq(riskSettings.id, 1));
    await appendAudit(tx, {
      kind: "settings",
      recordId: RISK_SETTINGS_RECORD,
      actorId: actor._id,
      action: "Changed the risk matrix",
      from: describe(before),
      to: describe(next),
    });
    if (thresholdsOf(next) !== thresholdsOf(before)) {
      await rerankUnapproved(tx, actor, next, "after an admin changed the risk matrix");
    }
    return next;
  });
}

const thresholdsOf = (s: RiskSettings) => `${s.lowMax}/${s.mediumMax}/${s.highMax}`;

/**
 * Re-ranks every MOC that has not been approved yet (open, status a-d, no approval in its trail)
 * with the thresholds `t`; a MOC whose level changes gets a trail entry saying so.
 */
async function rerankUnapproved(tx: Executor, actor: Actor & { name: string }, t: RiskSettings, why: string) {
  const rows = await tx.execute<
    Reranked & { level: RiskLevel | null; reviewed: RiskLevel | null; items: ImpactItem[]; declared: boolean }
  >(
    sql`select m.id, m.serial_num as "serialNum", m.status, m.originator_id as "originatorId",
        m.implementer_id as "implementerId", m.approver_id as "approverId", m.hseq_id as "hseqId",
        m.risk_level as level, m.reviewed_risk_level as reviewed, m.impact_assessment as items,
        m.no_significant_hazard is not null as declared from mocs m
      where not m.is_deleted and not m.completed and m.status in ('a', 'b', 'c', 'd')
        and not ${approvalGivenSql()}
      for update of m`,
  );
  for (const row of rows) {
    const level = mocRiskLevel(row.items, t, row.declared);
    if (level === row.level) continue;
    await tx.update(mocs).set({ riskLevel: level }).where(eq(mocs.id, row.id));
    const moved = await rerankedMoc(tx, actor, row, { before: row.level, level, reviewed: row.reviewed }, t);
    await appendLog(tx, {
      mocId: row.id,
      userId: actor._id,
      action: moved.to ? moved.action : rerankAction(row.level, level),
      from: row.status,
      to: moved.to ?? row.status,
      comment: `Re-ranked ${why}. ${moved.comment}`,
    });
  }
}

/** The trail's action of a MOC sent back to HSEQ review because its ranking changed after the review. */
export const RERANKED_AFTER_REVIEW = "Back to HSEQ review: the risk was re-ranked after it";

type Reranked = {
  id: string;
  serialNum: string;
  status: string;
  originatorId: string;
  implementerId: string | null;
  approverId: string | null;
  hseqId: string | null;
};

/**
 * What a change of a MOC's level does, wherever it comes from (its impact assessment, an admin's
 * new thresholds; issue 38 "the risk gate", issue 40 item 3): the trail says it, with the approvals
 * it adds or drops, which follow `approvalLevel` (never below the level HSEQ reviewed). After
 * HSEQ's review (status `d`, before any approval: approved content is frozen) the MOC goes back to
 * HSEQ review, `d` -> `c`, and its people are told. The caller writes the trail entry.
 */
export async function rerankedMoc(
  tx: Executor,
  actor: Actor & { name: string },
  moc: Reranked,
  change: { before: RiskLevel | null; level: RiskLevel | null; reviewed: RiskLevel | null },
  s: RiskSettings,
): Promise<{ action: string; comment: string; to?: "c" }> {
  const { before, level, reviewed } = change;
  const floor =
    reviewed && approvalLevel({ level, reviewed }) !== level
      ? `Its approvals still follow ${riskLabel(reviewed)}, the level HSEQ reviewed`
      : "";
  const comment = [
    rerankAction(before, level),
    approvalsChange(approvalLevel({ level: before, reviewed }), approvalLevel({ level, reviewed }), s),
    floor,
  ]
    .filter(Boolean)
    .join(". ");
  if (moc.status !== "d") return { action: "Updated the impact assessment", comment };
  await tx.update(mocs).set({ status: "c" }).where(eq(mocs.id, moc.id));
  await notifyAboutMoc(
    tx,
    moc,
    {
      userIds: [moc.hseqId, moc.approverId, moc.originatorId, moc.implementerId].filter((id): id is string => !!id),
      except: actor._id,
    },
    {
      event: `${actor.name} re-ranked the risk after the HSEQ review (${rerankAction(before, level)}): the MOC is back at HSEQ review.`,
      expectation: "Next: the assigned HSEQ user reviews the change again (Part C), then the approvals follow.",
      details: [["Why", comment]],
    },
  );
  return { action: RERANKED_AFTER_REVIEW, comment, to: "c" };
}

/** The trail's words for a change of a MOC's risk. */
export function rerankAction(before: RiskLevel | null, after: RiskLevel | null): string {
  return `Risk re-ranked from ${riskLabel(before)} to ${riskLabel(after)}`;
}

/** What a change of level does to the approvals the MOC needs, in words ("" when nothing). */
export function approvalsChange(before: RiskLevel | null, after: RiskLevel | null, s: RiskSettings): string {
  const holder = (stage: ApprovalStage) =>
    stage === "high" ? `the ${s.highPosition} (High risk)` : `the ${s.extremePosition} (Extreme risk)`;
  const was = approvalStages(before).filter((x) => x !== "approver");
  const now = approvalStages(after).filter((x) => x !== "approver");
  const dropped = was.filter((x) => !now.includes(x)).map(holder);
  const added = now.filter((x) => !was.includes(x)).map(holder);
  return [
    dropped.length ? `The approval by ${dropped.join(" and ")} is no longer needed` : "",
    added.length ? `The approval by ${added.join(" and ")} is now needed as well` : "",
  ]
    .filter(Boolean)
    .join("; ");
}
