/**
 * The insight steps and overdue bands with their labels, without the schemas: the Insight and review
 * pages read them without loading zod (docs/decisions/032-pages-at-sea.md);
 * app/models/insights/insights.schema.ts re-exports them.
 */
import { INSIGHT_STEPS, OVERDUE_BANDS, type InsightStep, type OverdueBand } from "#db/insights-figures";

export { INSIGHT_STEPS, OVERDUE_BANDS, type InsightStep, type OverdueBand };

export const INSIGHT_STEP_LABELS: Record<InsightStep, string> = {
  a: "Draft (Part A)",
  b: "Implementer assessment (Part B)",
  c: "HSEQ review (Part C)",
  d: "Approval (Part D)",
  e: "Implementation (Part E)",
  deviation: "Deviation and extension decision",
  f: "Verification (Part F)",
};

export const OVERDUE_BAND_LABELS: Record<OverdueBand, string> = {
  OVERDUE_LONG: "Overdue > 14 days",
  CRITICAL: "Critical (1-14 days overdue)",
  URGENT: "Urgent (due today or tomorrow)",
  HIGH: "High (due in 2-7 days)",
  MEDIUM: "Medium (8-14 days)",
  LOW: "Low (15-30 days)",
};

/**
 * The figures that count MOCs and can list the MOCs behind them (the management review pack,
 * docs/decisions/059-management-review-pack.md): `computeInsightsWithMocs` names its lists by these.
 */
export const INSIGHT_MOC_FIGURES = [
  "state",
  "type",
  "risk",
  "vessel",
  "overdue",
  "overdueActions",
  "temporaryInEffect",
  "temporaryExpired",
  "effectiveness",
] as const;
export type InsightMocFigure = (typeof INSIGHT_MOC_FIGURES)[number];
