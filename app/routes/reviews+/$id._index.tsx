import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { SubmitButton } from "~/components/submit";
import { ReviewBody } from "~/components/review";
import { RecordReferences } from "~/components/record-references";
import { RecordLinks } from "~/components/record-links";
import { canWriteReviews } from "~/models/authz/authz.server";
import { pullReviewInsights, recountReviewSummary } from "~/models/review/review.server";
import { requirePageUser } from "~/web/auth.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { pageError, runForPage } from "~/utils/page.server";
import { loadReview, requireReviewWriterPage, todayUtc } from "~/web/review-page.server";
import { isReferencesPost, referencesPageAction, referencesPanel } from "~/web/references-page.server";
import { linksPanel } from "~/web/record-links-page.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.review.title} · Change Management` : "Year-end review · Change Management" },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  const review = await loadReview(user, params.id);
  // External references (issue 42): shown to every reader, changed by the reviews' writers.
  const references = await referencesPanel(user, { kind: "review", id: review._id });
  // Linked records (issue 42): those whose other end the reader may read too.
  const links = await linksPanel(user, { kind: "review", id: review._id });
  return { review, canWrite: canWriteReviews(user), today: todayUtc(), references, links };
}

/** Two posts: count the year's MOCs again, or pull the year's insight figures into the summary. */
export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireReviewWriterPage(request);
  const review = await loadReview(user, params.id);
  const form = await request.formData();
  if (isReferencesPost(form)) {
    return referencesPageAction(form, user, { kind: "review", id: review._id }, `/reviews/${review._id}`);
  }
  const intent = form.get("intent");
  if (intent === "insights") {
    const pulled = await runForPage(() => pullReviewInsights(user, review._id));
    if (!pulled.ok) pageError(pulled.error);
    return redirectWithFlash(`/reviews/${review._id}`, {
      kind: "success",
      message: `The insight figures for ${review.year} are in the summary, as counted now.`,
    });
  }
  const result = await runForPage(() => recountReviewSummary(user, review._id));
  if (!result.ok) pageError(result.error);
  const total = result.value.moc_summary.total;
  return redirectWithFlash(`/reviews/${review._id}`, {
    kind: "success",
    message: `The MOC summary is counted again: ${total} ${total === 1 ? "MOC" : "MOCs"} in ${review.year}.`,
  });
}

export default function ReviewPage() {
  const { review, canWrite, today, references, links } = useLoaderData<typeof loader>();
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
              <input type="hidden" name="intent" value="recount" />
              <SubmitButton className="button" pendingText="Counting…">
                Recount MOC summary
              </SubmitButton>
            </Form>
          ) : null}
          {canWrite ? (
            <Form method="post">
              <input type="hidden" name="intent" value="insights" />
              <SubmitButton className="button" pendingText="Counting…">
                {review.moc_summary.insights ? "Pull in the insight figures again" : "Pull in the insight figures"}
              </SubmitButton>
            </Form>
          ) : null}
        </div>
      </header>
      <ReviewBody review={review} today={today} />
      <RecordReferences panel={references} />
      <RecordLinks panel={links} here={`/reviews/${review._id}`} />
    </>
  );
}
