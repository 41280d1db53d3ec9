import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { SubmitButton } from "~/components/forms";
import { ReviewBody } from "~/components/review";
import { canWriteReviews } from "~/models/authz.server";
import { recountReviewSummary } from "~/models/review.server";
import { requirePageUser } from "~/utils/auth.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { pageError, runForPage } from "~/utils/page.server";
import { loadReview, requireReviewWriterPage, todayUtc } from "~/utils/review-page.server";
import styles from "~/styles/reviews.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: styles }];
export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.review.title} · Change Management` : "Year-end review · Change Management" },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  const review = await loadReview(user, params.id);
  return { review, canWrite: canWriteReviews(user), today: todayUtc() };
}

/** The one post on this page: count the year's MOCs again. */
export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireReviewWriterPage(request);
  const review = await loadReview(user, params.id);
  const result = await runForPage(() => recountReviewSummary(user, review._id));
  if (!result.ok) pageError(result.error);
  const total = result.value.moc_summary.total;
  return redirectWithFlash(`/reviews/${review._id}`, {
    kind: "success",
    message: `The MOC summary is counted again: ${total} ${total === 1 ? "MOC" : "MOCs"} in ${review.year}.`,
  });
}

export default function ReviewPage() {
  const { review, canWrite, today } = useLoaderData<typeof loader>();
  return (
    <>
      <p className="no-print">
        <Link to="/reviews">← Year-end reviews</Link>
      </p>
      <header className="record-header">
        <div>
          <h1>{review.title}</h1>
          <p className="owner-line">
            Year-end review <strong>{review.year}</strong> · {review.participants.length}{" "}
            {review.participants.length === 1 ? "participant" : "participants"} · {review.actions.length}{" "}
            {review.actions.length === 1 ? "action" : "actions"}
          </p>
        </div>
        <div className="row no-print">
          {canWrite ? (
            <Link to="edit" className="button">
              Edit
            </Link>
          ) : null}
          <Link to="print" className="button">
            Print view
          </Link>
          {canWrite ? (
            <Form method="post">
              <SubmitButton className="button" pendingText="Counting…">
                Recount MOC summary
              </SubmitButton>
            </Form>
          ) : null}
        </div>
      </header>
      <ReviewBody review={review} today={today} />
    </>
  );
}
