/**
 * Year-end review labels without the schemas: the review pages read them without loading zod
 * (docs/decisions/032-pages-at-sea.md); app/models/review/review.schema.ts re-exports them.
 */
import { type REVIEW_ACTION_STATUSES } from "#db/schema/enums";

export const REVIEW_ACTION_LABELS: Record<(typeof REVIEW_ACTION_STATUSES)[number], string> = {
  open: "Open",
  in_progress: "In progress",
  done: "Done",
};

/**
 * `moc_summary.by_status` keys, in pipeline order: the status the app shows for a MOC, so a
 * closed MOC counts as `completed` rather than under `f`.
 */
export const SUMMARY_STATUSES = ["a", "b", "c", "d", "e", "f", "completed", "decline"] as const;
