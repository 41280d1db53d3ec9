/**
 * The effectiveness review's rules and words without the schemas (issue 42,
 * docs/decisions/058-effectiveness-review.md): the verifier page, the review page and the MOC page
 * read them in the browser without loading zod (docs/decisions/032-pages-at-sea.md);
 * app/models/moc/effectiveness.schema.ts and effectiveness.server.ts read the same.
 */
import type { EffectivenessResult } from "#db/schema/enums";

export { EFFECTIVENESS_RESULTS, type EffectivenessResult } from "#db/schema/enums";

/**
 * Days from closure to the review by the MOC's change type (Part A's `change-type`): a constant map,
 * changed in code (the decision says why not an admin page yet). A temporary change is checked
 * sooner, while it is still in effect.
 */
export const REVIEW_DAYS_BY_CHANGE_TYPE = { permanent: 90, temporary: 30 } as const;
export type ReviewChangeType = keyof typeof REVIEW_DAYS_BY_CHANGE_TYPE;
/** The latest review date the verifier may set: this many days after closure. */
export const REVIEW_MAX_DAYS = 730;

/** A MOC's review as the MOC's JSON (`effectiveness_review`), its page, print and PDF read it. */
export type EffectivenessReview = {
  due_on: string;
  set_by: { _id: string; name: string } | null;
  set_at: string;
  result: EffectivenessResult | null;
  comment: string | null;
  reviewed_by: { _id: string; name: string } | null;
  reviewed_at: string | null;
};

/** A result in words (the pages, print, PDF, emails and Insight). */
export const EFFECTIVENESS_RESULT_WORDS: Record<EffectivenessResult, string> = {
  effective: "Effective",
  partly: "Partly effective",
  "not-effective": "Not effective",
};
/** Results that need a comment, and offer a follow-up MOC. */
export const needsFollowUp = (result: EffectivenessResult | null | undefined) =>
  result === "partly" || result === "not-effective";
/** The comment's limit. */
export const EFFECTIVENESS_COMMENT_MAX = 4000;

/** "Effectiveness review due <date>": the MOC page's line. */
export const REVIEW_DUE_WORDS = "Effectiveness review due";

/** The MOC's trail entry for an answered review (its action; the result and comment follow). */
export const EFFECTIVENESS_REVIEWED_ACTION = "Reviewed the effectiveness";

/** `day` (YYYY-MM-DD) plus `days`, as YYYY-MM-DD (UTC). */
export const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** The default review date of a MOC closed on `closedOn` (UTC day) by its change type. */
export const defaultReviewDate = (closedOn: string, changeType: string | null | undefined) =>
  addDays(closedOn, REVIEW_DAYS_BY_CHANGE_TYPE[changeType === "temporary" ? "temporary" : "permanent"]);

/** A review's state in words for the MOC page: answered, due, overdue or waiting for its day. */
export function reviewStateWords(
  review: { due_on: string; result: EffectivenessResult | null },
  today: string,
): string {
  if (review.result) return EFFECTIVENESS_RESULT_WORDS[review.result];
  if (review.due_on < today) return "Overdue";
  if (review.due_on === today) return "Due today";
  return "Waiting for its date";
}
