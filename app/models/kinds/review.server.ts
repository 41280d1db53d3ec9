/**
 * The year-end review as a record kind (docs/decisions/060-record-kinds.md,
 * docs/decisions/011-year-end-reviews.md): its entry in the registry.
 */
import { sharedTrail } from "../audit/audit.server";
import { defineRecordKind } from "../record-kind/record-kind";
import { reviewsCsv } from "../review/review.server";
import { describeReviews, loadReviewRecord } from "../review/review-record.server";

export const REVIEW_KIND = defineRecordKind({
  name: "review",
  label: "Year-end review",
  page: (id) => `/reviews/${id}`,
  table: { name: "year_end_reviews", alias: "r" },
  load: loadReviewRecord,
  audit: sharedTrail("review"),
  export: reviewsCsv,
  api: ["/api/year-end-review"],
  linkable: { describe: describeReviews },
});
