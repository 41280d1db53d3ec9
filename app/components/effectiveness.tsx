/**
 * A closed MOC's effectiveness review on its page, and the "Raise a follow-up MOC" links (issue 42,
 * docs/decisions/058-effectiveness-review.md). Zod-free: constants only.
 */
import { Link } from "@remix-run/react";
import {
  EFFECTIVENESS_RESULT_WORDS,
  type EffectivenessReview,
  needsFollowUp,
  REVIEW_DUE_WORDS,
  reviewStateWords,
} from "~/models/moc/effectiveness.constants";
import { followUpHref } from "~/models/moc/follow-up.constants";
import { formatDate, formatDateTime } from "./moc";

const TONE: Record<string, string> = {
  Overdue: "badge-danger",
  "Due today": "badge-warning",
  "Not effective": "badge-danger",
  "Partly effective": "badge-warning",
  Effective: "badge-success",
};

/** "Effectiveness review due <date>", its state, the answer, and what can be done next. */
export function EffectivenessPanel({
  mocId,
  review,
  today,
  canAnswer,
}: {
  mocId: string;
  review: EffectivenessReview;
  today: string;
  canAnswer: boolean;
}) {
  const state = reviewStateWords(review, today);
  return (
    <section className="card" aria-labelledby="effectiveness-title">
      <h2 id="effectiveness-title">Effectiveness review</h2>
      <p>
        {REVIEW_DUE_WORDS} {formatDate(review.due_on)} <span className={`badge ${TONE[state] ?? ""}`}>{state}</span>
      </p>
      <dl className="answers">
        <dt>Set by</dt>
        <dd>
          {review.set_by?.name ?? "—"} on closing, {formatDateTime(review.set_at)}
        </dd>
        {review.result ? (
          <>
            <dt>Result</dt>
            <dd>{EFFECTIVENESS_RESULT_WORDS[review.result]}</dd>
            <dt>Comment</dt>
            <dd style={{ overflowWrap: "anywhere", whiteSpace: "pre-wrap" }}>{review.comment ?? "—"}</dd>
            <dt>Reviewed by</dt>
            <dd>
              {review.reviewed_by?.name ?? "—"}, {review.reviewed_at ? formatDateTime(review.reviewed_at) : "—"}
            </dd>
          </>
        ) : null}
      </dl>
      <p className="row no-print">
        {!review.result && canAnswer ? (
          <Link to="effectiveness" className="button button-primary">
            Answer the effectiveness review
          </Link>
        ) : null}
        {needsFollowUp(review.result) ? (
          <Link to={followUpHref(mocId, { review: true })} className="button">
            Raise a follow-up MOC
          </Link>
        ) : null}
      </p>
    </section>
  );
}

/** Under a plan's table: a "Raise a follow-up MOC" link for each cancelled item. */
export function FollowUpLinks<Item extends { _id: string; cancelled?: unknown }>({
  mocId,
  items,
  name,
}: {
  mocId: string;
  items: Item[];
  name: (item: Item) => string;
}) {
  const cancelled = items.filter((item) => item.cancelled);
  if (!cancelled.length) return null;
  return (
    <ul className="cancel-links no-print" aria-label="Raise a follow-up MOC from a cancelled item">
      {cancelled.map((item) => (
        <li key={item._id}>
          <Link to={followUpHref(mocId, { item: item._id })}>Raise a follow-up MOC from “{name(item)}”</Link>
        </li>
      ))}
    </ul>
  );
}
