/**
 * The insight steps and overdue bands with their labels, without the schemas: the Insight and review
 * pages read them without loading zod (docs/decisions/032-pages-at-sea.md);
 * app/models/insights.schema.ts re-exports them.
 */
import { REMINDER_URGENCIES } from "#db/schema/enums";

/** The steps a MOC waits in, in pipeline order; `deviation` is status b while a deviation/extension waits. */
export const INSIGHT_STEPS = ["a", "b", "c", "d", "e", "deviation", "f"] as const;
export type InsightStep = (typeof INSIGHT_STEPS)[number];
export const INSIGHT_STEP_LABELS: Record<InsightStep, string> = {
  a: "Draft (Part A)",
  b: "Implementer assessment (Part B)",
  c: "HSEQ review (Part C)",
  d: "Approval (Part D)",
  e: "Implementation (Part E)",
  deviation: "Deviation/extension decision",
  f: "Verification (Part F)",
};

/** Bands of open MOCs by their target date on the as-of day: past the reminders, then the reminder urgencies. */
export const OVERDUE_BANDS = ["OVERDUE_LONG", ...REMINDER_URGENCIES] as const;
export type OverdueBand = (typeof OVERDUE_BANDS)[number];
export const OVERDUE_BAND_LABELS: Record<OverdueBand, string> = {
  OVERDUE_LONG: "Overdue > 14 days",
  CRITICAL: "Critical (1-14 days overdue)",
  URGENT: "Urgent (due today or tomorrow)",
  HIGH: "High (due in 2-7 days)",
  MEDIUM: "Medium (8-14 days)",
  LOW: "Low (15-30 days)",
};
