/**
 * The insight steps and overdue bands with their labels, without the schemas: the Insight and review
 * pages read them without loading zod (docs/decisions/032-pages-at-sea.md);
 * app/models/insights.schema.ts re-exports them.
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
