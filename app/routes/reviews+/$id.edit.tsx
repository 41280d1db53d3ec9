import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { ReviewForm } from "~/components/review-form";
import { reviewPageSchema, toReviewInput } from "~/models/review/review.schema";
import { updateReview } from "~/models/review/review.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { domainErrorReply, pageError, runForPage } from "~/utils/page.server";
import { loadReview, requireReviewWriterPage, reviewFieldName, reviewUserOptions } from "~/web/review-page.server";
import { withPlainTextAsHtml } from "~/utils/plain-text";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Edit: ${data.review.title} · Change Management` : "Edit review · Change Management" },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireReviewWriterPage(request);
  const review = await loadReview(user, params.id);
  return { review, users: await reviewUserOptions(review) };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const user = await requireReviewWriterPage(request);
  const review = await loadReview(user, params.id);
  const submission = parseWithZod(withPlainTextAsHtml(await request.formData()), { schema: reviewPageSchema });
  if (submission.status !== "success")
    return data(submission.reply(), { status: submission.status === "error" ? 400 : 200 });
  const result = await runForPage(() =>
    updateReview(user, review._id, toReviewInput(submission.value), { keepSummary: !submission.value.recount }),
  );
  if (!result.ok) {
    if (result.error.status === 403 || result.error.status === 404) pageError(result.error);
    return domainErrorReply(submission, result.error, reviewFieldName);
  }
  return redirectWithFlash(`/reviews/${review._id}`, { kind: "success", message: "The review is saved." });
}

export default function EditReview() {
  const { review, users } = useLoaderData<typeof loader>();
  return (
    <>
      <p>
        <Link to={`/reviews/${review._id}`}>← {review.title}</Link>
      </p>
      <div className="page-header">
        <div>
          <h1>Edit year-end review {review.year}</h1>
        </div>
      </div>
      <ReviewForm
        users={users}
        lastResult={useActionData<typeof action>()}
        submitLabel="Save review"
        cancelTo={`/reviews/${review._id}`}
        editing
        defaultValue={{
          year: String(review.year),
          title: review.title,
          sections: review.sections,
          participants: review.participants.map((p) => p._id),
          effectiveness: review.effectiveness,
          improvements: review.improvements,
          issues: review.issues,
          actions: review.actions.map((a) => ({
            description: a.description,
            owner: a.owner?._id ?? "",
            due: a.due,
            status: a.status,
          })),
        }}
      />
    </>
  );
}
