/**
 * The risk matrix (docs/decisions/037-risk-ranking-and-approvals.md): likelihood x severity (each
 * 1-5) gives a score of 1-25, which the admins' thresholds turn into a level. A MOC's risk is the
 * highest residual level of its impact items; an item without its residual pair is not ranked.
 * Pure: the pages, the print view, the PDF and the models share it.
 */

export const RISK_LEVELS = ["low", "medium", "high", "extreme"] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

export const RISK_LEVEL_LABEL: Record<RiskLevel, string> = {
  low: "Low",
  medium: "Medium",
  high: "High",
  extreme: "Extreme",
};
export const NOT_RANKED = "Not ranked";

/** The score's upper bounds of Low, Medium and High; above `highMax` is Extreme. */
export type RiskThresholds = { lowMax: number; mediumMax: number; highMax: number };

/** The defaults (migration 0027): 1-4 Low, 5-9 Medium, 10-14 High, 15-25 Extreme. */
export const DEFAULT_THRESHOLDS: RiskThresholds = { lowMax: 4, mediumMax: 9, highMax: 14 };

/** Why a set of thresholds is not usable, or null: 1 <= Low < Medium < High < 25. */
export function thresholdsProblem(t: RiskThresholds): string | null {
  if (![t.lowMax, t.mediumMax, t.highMax].every((n) => Number.isInteger(n))) return "Thresholds are whole numbers";
  if (t.lowMax < 1) return "Low must reach at least score 1";
  if (!(t.lowMax < t.mediumMax && t.mediumMax < t.highMax)) return "Each threshold must be above the one before";
  if (t.highMax >= 25) return "High must end below 25, so that Extreme keeps at least score 25";
  return null;
}

export function levelOfScore(score: number, t: RiskThresholds): RiskLevel {
  return score <= t.lowMax ? "low" : score <= t.mediumMax ? "medium" : score <= t.highMax ? "high" : "extreme";
}

/** The level of a likelihood and severity pair, or null when either is missing. */
export function levelOf(
  likelihood: number | null | undefined,
  severity: number | null | undefined,
  t: RiskThresholds,
): RiskLevel | null {
  return likelihood && severity ? levelOfScore(likelihood * severity, t) : null;
}

type RankedItem = { residualLikelihood?: number | null; residualSeverity?: number | null };

/**
 * The MOC's risk: the highest residual level of its items, or null when none is ranked; Low for a
 * MOC without items whose implementer declared "no significant hazard" (`declared`; issue 38).
 */
export function mocRiskLevel(items: readonly RankedItem[], t: RiskThresholds, declared = false): RiskLevel | null {
  if (items.length === 0 && declared) return "low";
  let highest: RiskLevel | null = null;
  for (const item of items) {
    const level = levelOf(item.residualLikelihood, item.residualSeverity, t);
    if (level && (!highest || RISK_LEVELS.indexOf(level) > RISK_LEVELS.indexOf(highest))) highest = level;
  }
  return highest;
}

type FullyRankedItem = RankedItem & { category?: string; likelihood?: number | null; severity?: number | null };

/**
 * The risk gate (issue 38, docs/decisions/037): why a MOC is not ranked enough to pass the HSEQ
 * review, or null. Ranked: at least one impact item and every item with its likelihood and
 * severity before and after the controls, or no item and the implementer's "no significant
 * hazard" declaration.
 */
export function rankingGap(items: readonly FullyRankedItem[], declared: boolean): string | null {
  if (items.length === 0) {
    return declared
      ? null
      : "The MOC is not ranked: its impact assessment has no item, and its implementer has not declared that the change has no significant hazard";
  }
  const unranked = items.findIndex((i) => !(i.likelihood && i.severity && i.residualLikelihood && i.residualSeverity));
  if (unranked < 0) return null;
  const item = items[unranked]!;
  return `The MOC is not fully ranked: impact item ${unranked + 1}${item.category ? ` (${item.category})` : ""} needs its likelihood and severity before and after the controls`;
}

/** Why HSEQ may not answer "the risk assessment covers the change: yes", or null (the risk gate). */
export function riskGateRefusal(moc: {
  items: readonly FullyRankedItem[];
  declared: boolean;
  level: RiskLevel | null;
  riskAssessment: string | null;
}): string | null {
  const gap = rankingGap(moc.items, moc.declared);
  if (gap) return `${gap}, so the risk assessment cannot be said to cover the change yet`;
  if ((moc.level === "high" || moc.level === "extreme") && !moc.riskAssessment) {
    return `A ${RISK_LEVEL_LABEL[moc.level]}-risk MOC needs its risk assessment file attached before the risk assessment can be said to cover the change`;
  }
  return null;
}

export const riskLabel = (level: RiskLevel | null | undefined) => (level ? RISK_LEVEL_LABEL[level] : NOT_RANKED);

/** The higher of two levels (null: not ranked, below Low). */
export function higherLevel(a: RiskLevel | null | undefined, b: RiskLevel | null | undefined): RiskLevel | null {
  const rank = (level: RiskLevel | null | undefined) => (level ? RISK_LEVELS.indexOf(level) : -1);
  return (rank(a) >= rank(b) ? a : b) ?? null;
}

/**
 * The level a MOC's approvals follow: its ranking now, never below the level HSEQ reviewed it at
 * (lowering the ranking after the review skips no approval; issue 40 item 3).
 */
export const approvalLevel = (moc: { level: RiskLevel | null | undefined; reviewed: RiskLevel | null | undefined }) =>
  higherLevel(moc.level, moc.reviewed);

/**
 * The approvals a MOC's risk needs, in order: the approver's, then for High and Extreme the holder
 * of the position set for High, and for Extreme the holder of the position set for Extreme too.
 */
export type ApprovalStage = "approver" | "high" | "extreme";
export function approvalStages(level: RiskLevel | null | undefined): ApprovalStage[] {
  return level === "extreme" ? ["approver", "high", "extreme"] : level === "high" ? ["approver", "high"] : ["approver"];
}

/**
 * The current round of approvals in a MOC's trail (`ROUND_APPROVAL` in risk-approval.server.ts is
 * its SQL twin): the entries after the MOC last came to `d` from elsewhere; of them, the approvals
 * given while it stayed at `d`, and the entry that took it on (or back) from `d`. Empty before the
 * MOC first reached `d`.
 */
export function approvalRound<L extends { from: string | null; to: string; action: string }>(
  logs: readonly L[],
): { given: L[]; leaving: L | undefined; started: boolean } {
  const start = logs.findLastIndex((l) => l.to === "d" && l.from !== "d");
  const round = start < 0 ? [] : logs.slice(start + 1);
  return {
    given: round.filter((l) => l.from === "d" && l.to === "d" && l.action.startsWith(APPROVAL_STAGE_ACTION)),
    leaving: round.find((l) => l.from === "d" && l.to !== "d"),
    started: start >= 0,
  };
}

/** The approval a MOC at `d` waits for, from its level and the approvals this round gave; null when none is owed. */
export const approvalOwed = (level: RiskLevel | null | undefined, given: number): ApprovalStage | null =>
  approvalStages(level)[given] ?? null;

/**
 * The words that start the trail entry of an approval given while the MOC stays at `d` (the
 * approver's yes on a High or Extreme MOC, and the High-risk approval on an Extreme one): how the
 * trail tells the approvals of the current round apart from other entries at `d`.
 */
export const APPROVAL_STAGE_ACTION = "Approved as the ";
