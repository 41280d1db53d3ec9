/**
 * What the record page shows of a MOC's risk (docs/decisions/037-risk-ranking-and-approvals.md):
 * the approvals its risk needs, each given, declined, waited on or still to come, read from its
 * trail as the approver step reads it, and who a second approval waits on (the position's holders).
 */
import { sql } from "drizzle-orm";
import type { MocDocument } from "~/models/moc/moc-document";
import {
  approvalLevel,
  approvalRound,
  approvalStages,
  riskGateRefusal,
  RISK_LEVEL_LABEL,
  type ApprovalStage,
} from "~/models/risk/risk";
import { getRiskSettings, type RiskSettings } from "~/models/moc/risk-settings.server";
import { getDb } from "~/utils/db.server";
import type { ApprovalLine } from "~/components/risk";

const label = (stage: ApprovalStage, s: RiskSettings) =>
  stage === "approver"
    ? "Approver"
    : `${stage === "high" ? s.highPosition : s.extremePosition} (${RISK_LEVEL_LABEL[stage]}-risk approval)`;

/** The approvals of the MOC's current (or last) round at `d`, in order; empty when only the approver's is needed. */
export function approvalLines(
  doc: Pick<MocDocument, "status" | "logs" | "risk_level" | "reviewed_risk_level" | "approver_id">,
  s: RiskSettings,
  holders: Map<string, string[]>,
): ApprovalLine[] {
  const stages = approvalStages(approvalLevel({ level: doc.risk_level, reviewed: doc.reviewed_risk_level }));
  if (stages.length < 2 || !["d", "e", "f", "decline"].includes(doc.status)) return [];
  const { given, leaving } = approvalRound(doc.logs);
  const owed = (stage: ApprovalStage) =>
    stage === "approver"
      ? (doc.approver_id?.name ?? null)
      : (() => {
          const position = stage === "high" ? s.highPosition : s.extremePosition;
          return holders.get(position)?.join(" or ") || position;
        })();
  return stages.map((stage, i) => {
    const entry = given[i] ?? (i === given.length ? leaving : undefined);
    if (entry) {
      return {
        label: label(stage, s),
        who: entry.userId?.name ?? null,
        state: entry.to === "decline" ? "declined" : "given",
        at: entry.at,
      };
    }
    return {
      label: label(stage, s),
      who: owed(stage),
      state: doc.status === "d" && i === given.length ? "waiting" : "todo",
      at: null,
    };
  });
}

/** The record page's risk: the settings, the approval lines, and whom the MOC waits on when a second approval is next. */
export async function riskOfRecord(doc: MocDocument) {
  const settings = await getRiskSettings();
  const positions = [settings.highPosition, settings.extremePosition];
  const rows = await getDb().execute<{ position: string; name: string }>(
    sql`select position, name from users where active and position in (${positions[0]}, ${positions[1]}) order by name`,
  );
  const holders = new Map<string, string[]>();
  for (const row of rows) holders.set(row.position, [...(holders.get(row.position) ?? []), row.name]);
  const approvals = approvalLines(doc, settings, holders);
  const waiting = approvals.find((a) => a.state === "waiting");
  return {
    level: doc.risk_level ?? null,
    approvals,
    /**
     * Why HSEQ cannot yet say the risk assessment covers the change (the risk gate, issue 38), or
     * null: shown on the HSEQ review so the reviewer knows before answering.
     */
    gate: settings.rankingRequired
      ? riskGateRefusal({
          items: doc.impact_assessment,
          declared: !!doc.no_significant_hazard,
          level: doc.risk_level ?? null,
          riskAssessment: doc.risk_assessment,
        })
      : null,
    /** Whom the MOC waits on when it is a second approval (the owner line names them instead of the approver). */
    waitingOn: waiting && waiting.label !== "Approver" ? waiting.who : null,
  };
}
