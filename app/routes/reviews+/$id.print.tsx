import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { ReviewBody } from "~/components/review";
import { useHydrated } from "~/components/use-hydrated";
import { requirePageUser } from "~/web/auth.server";
import { loadReview, todayUtc } from "~/web/review-page.server";
import { RecordLinks } from "~/components/record-links";
import { linksPanel } from "~/web/record-links-page.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.review.title} (print) · Change Management` : "Year-end review · Change Management" },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  const review = await loadReview(user, params.id);
  // Its links the reader may see both ends of (issue 42).
  return { review, today: todayUtc(), links: await linksPanel(user, { kind: "review", id: review._id }) };
}

/** With JavaScript a Print button; without, how to print. */
function PrintControl() {
  const enhanced = useHydrated();
  return enhanced ? (
    <button type="button" className="button button-primary" onClick={() => window.print()}>
      Print
    </button>
  ) : (
    <p className="hint">Print this page with your browser&apos;s Print command (Ctrl+P, or ⌘P on a Mac).</p>
  );
}

export default function ReviewPrint() {
  const { review, today, links } = useLoaderData<typeof loader>();
  return (
    <article className="review-print" aria-labelledby="review-print-title">
      <div className="row no-print review-print-toolbar">
        <Link to={`/reviews/${review._id}`} className="button">
          ← Back to the review
        </Link>
        <PrintControl />
      </div>
      <header className="review-print-header">
        <p className="muted">Year-end review {review.year}</p>
        <h1 id="review-print-title">{review.title}</h1>
      </header>
      <ReviewBody review={review} today={today} print />
      <RecordLinks panel={links} here={`/reviews/${review._id}`} readOnly />
    </article>
  );
}
