/**
 * The risk matrix's settings (docs/decisions/037-risk-ranking-and-approvals.md): the score
 * thresholds of the levels and the positions whose holders give the second approvals of High and
 * Extreme MOCs. Read by the impact assessment, the approver step and the pages; changed by admins,
 * each change in the audit trail (record kind "settings") and re-ranking the MOCs still waiting
 * for their first approval.
 */
import { eq, sql } from "drizzle-orm";
import { mocs, riskSettings, type Position } from "#db/schema";
import type { RiskSettingsInput } from "./risk.schema";
import { getDb, type Executor } from "~/utils/db.server";
import { Forbidden, Invalid } from "~/utils/errors";
import { appendAudit } from "./audit.server";
import { isAdmin, type Actor } from "./authz.server";
import { appendLog } from "./moc-store.server";
import {
  APPROVAL_STAGE_ACTION,
  approvalStages,
  DEFAULT_THRESHOLDS,
  mocRiskLevel,
  riskLabel,
  thresholdsProblem,
  type ApprovalStage,
  type RiskLevel,
  type RiskThresholds,
} from "./risk";
import type { ImpactItem } from "#db/schema";

export type RiskSettings = RiskThresholds & { highPosition: Position; extremePosition: Position };

export const DEFAULT_RISK_SETTINGS: RiskSettings = {
  ...DEFAULT_THRESHOLDS,
  highPosition: "Director HSEQ",
  extremePosition: "President",
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
    })
    .from(riskSettings)
    .where(eq(riskSettings.id, 1));
  return row ?? DEFAULT_RISK_SETTINGS;
}

const describe = (s: RiskSettings) =>
  `Low 1-${s.lowMax}, Medium ${s.lowMax + 1}-${s.mediumMax}, High ${s.mediumMax + 1}-${s.highMax}, ` +
  `Extreme ${s.highMax + 1}-25; High approved also by the ${s.highPosition}, Extreme also by the ${s.extremePosition}`;

/**
 * Admins change the settings: the thresholds must keep 1 <= Low < Medium < High < 25 (400 with the
 * field otherwise). One transaction: the row, the audit entry, and every MOC still to be approved
 * (status a-d, no approval given yet) re-ranked, each re-ranked one with a trail entry.
 */
export async function setRiskSettings(actor: Actor, input: RiskSettingsInput): Promise<RiskSettings> {
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
    await rerankUnapproved(tx, actor, next, "after an admin changed the risk matrix");
    return next;
  });
}

/**
 * Re-ranks every MOC that has not been approved yet (open, status a-d, no approval in its trail)
 * with the thresholds `t`; a MOC whose level changes gets a trail entry saying so.
 */
async function rerankUnapproved(tx: Executor, actor: Actor, t: RiskSettings, why: string) {
  const rows = await tx.execute<{ id: string; status: string; level: RiskLevel | null; items: ImpactItem[] }>(
    sql`select m.id, m.status, m.risk_level as level, m.impact_assessment as items from mocs m
      where not m.is_deleted and not m.completed and m.status in ('a', 'b', 'c', 'd')
        and not exists (select 1 from moc_logs l where l.moc_id = m.id and l.from_status = 'd'
          and (l.to_status = 'e' or (l.to_status = 'd' and l.action like ${`${APPROVAL_STAGE_ACTION}%`})))
      for update of m`,
  );
  for (const row of rows) {
    const level = mocRiskLevel(row.items, t);
    if (level === row.level) continue;
    await tx.update(mocs).set({ riskLevel: level }).where(eq(mocs.id, row.id));
    await appendLog(tx, {
      mocId: row.id,
      userId: actor._id,
      action: rerankAction(row.level, level),
      from: row.status,
      to: row.status,
      comment: [`Re-ranked ${why}`, approvalsChange(row.level, level, t)].filter(Boolean).join(". "),
    });
  }
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
