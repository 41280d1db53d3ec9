/**
 * A MOC's effectiveness review at closure and as read (issue 42, docs/decisions/058-effectiveness-review.md):
 * the date the closing verification sets (the verifier step calls it in its transaction) and the one
 * read of a review as JSON (GET /api/singlemoc, the page, print and PDF). A leaf module: the MOC's
 * steps and reads take it without importing the review's answer and reminders (effectiveness.server.ts).
 */
import { sql, type SQL } from "drizzle-orm";
import { EFFECTIVENESS_REVIEW_JSON } from "#db/moc-document";
import type { Executor } from "~/utils/db.server";
import { Invalid } from "~/utils/errors";
import type { EffectivenessReview } from "./effectiveness.constants";
import {
  addDays,
  defaultReviewDate,
  EFFECTIVENESS_RESULT_WORDS,
  REVIEW_MAX_DAYS,
  reviewStateWords,
} from "./effectiveness.constants";
import type { PrintSection } from "../records-out/record-print.server";
import { utcText } from "../shared/utc-text";

export type { EffectivenessReview };

/**
 * The review of the MOC whose id is `mocId` (an SQL expression) as JSON, or null: the MOC
 * document's own definition (db/moc-document.ts).
 */
export const reviewJsonSql = (mocId: SQL) =>
  sql<EffectivenessReview | null>`(select ${sql.raw(EFFECTIVENESS_REVIEW_JSON("x.id"))} from (select ${mocId} as id) x)`;

/**
 * The review date a closing verification sets: the one given (after the closing day, within two
 * years of it) or the default by the MOC's change type. 400 on the `review-date` field otherwise.
 */
export function reviewDateOnClosure(given: string | undefined, closedOn: string, changeType: string | null): string {
  if (given === undefined) return defaultReviewDate(closedOn, changeType);
  if (given <= closedOn) {
    throw new Invalid("The effectiveness review date must be after today", [
      { path: "review-date", message: "Choose a day after today" },
    ]);
  }
  const latest = addDays(closedOn, REVIEW_MAX_DAYS);
  if (given > latest) {
    throw new Invalid("The effectiveness review date must be within two years", [
      { path: "review-date", message: `Choose a day on or before ${latest}` },
    ]);
  }
  return given;
}

/** Sets the closed MOC's review, in the closing step's transaction. */
export async function reviewOnClosure(tx: Executor, review: { mocId: string; dueOn: string; setBy: string }) {
  await tx.execute(sql`
    insert into effectiveness_reviews (moc_id, due_on, set_by) values (${review.mocId}, ${review.dueOn}, ${review.setBy})
    on conflict (moc_id) do update set due_on = excluded.due_on, set_by = excluded.set_by, set_at = now()
      where effectiveness_reviews.result is null`);
}

/**
 * The review as the record's print view and PDF lay it out (a `PrintSection` after the parts), or
 * nothing before closure.
 */
export function effectivenessPrintSection(
  review: EffectivenessReview | null | undefined,
  today: string,
): PrintSection[] {
  if (!review) return [];
  const fields: [string, string][] = [
    ["Due", review.due_on],
    ["Set by", `${review.set_by?.name ?? "—"} on closing (${utcText(review.set_at)})`],
    ["State", reviewStateWords(review, today)],
    ...(review.result
      ? ([
          ["Result", EFFECTIVENESS_RESULT_WORDS[review.result]],
          ["Comment", review.comment ?? "—"],
          ["Reviewed by", `${review.reviewed_by?.name ?? "—"} (${utcText(review.reviewed_at)})`],
        ] as [string, string][])
      : []),
  ];
  return [
    {
      id: "effectiveness",
      title: "Effectiveness review",
      note: null,
      blocks: [{ kind: "fields", fields: fields.map(([label, value]) => ({ label, value })) }],
    },
  ];
}
