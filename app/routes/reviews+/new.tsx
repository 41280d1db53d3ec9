import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { ReviewForm } from "~/components/review-form";
import { reviewPageSchema, toReviewInput } from "~/models/review/review.schema";
import { createReview } from "~/models/review/review.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { domainErrorReply, pageError, runForPage } from "~/utils/page.server";
import { requireReviewWriterPage, reviewFieldName, reviewUserOptions } from "~/web/review-page.server";
import { withPlainTextAsHtml } from "~/utils/plain-text";

export const meta: MetaFunction = () => [{ title: "New year-end review · Change Management" }];

export async function loader({ request }: LoaderFunctionArgs) {
  await requireReviewWriterPage(request);
  return { users: await reviewUserOptions(), year: new Date().getUTCFullYear() };
}

export async function action({ request }: ActionFunctionArgs) {
  const user = await requireReviewWriterPage(request);
  const submission = parseWithZod(withPlainTextAsHtml(await request.formData()), { schema: reviewPageSchema });
  // Adding or removing a row (conform's list intents) comes back here too: the form again, unsaved.
  if (submission.status !== "success")
    return data(submission.reply(), { status: submission.status === "error" ? 400 : 200 });
  const result = await runForPage(() => createReview(user, toReviewInput(submission.value)));
  if (!result.ok) {
    if (result.error.status === 403) pageError(result.error);
    return domainErrorReply(submission, result.error, reviewFieldName);
  }
  return redirectWithFlash(`/reviews/${result.value._id}`, {
    kind: "success",
    message: `The ${result.value.year} review is saved.`,
  });
}

export default function NewReview() {
  const { users, year } = useLoaderData<typeof loader>();
  return (
    <>
      <p>
        <Link to="/reviews">← Year-end reviews</Link>
      </p>
      <div className="page-header">
        <div>
          <h1>New year-end review</h1>
          <p className="muted">Record how the year&apos;s changes went and who follows up on what.</p>
        </div>
      </div>
      <ReviewForm
        users={users}
        lastResult={useActionData<typeof action>()}
        submitLabel="Save review"
        cancelTo="/reviews"
        defaultValue={{
          year: String(year),
          title: `Year-end review ${year}`,
          sections: [{ heading: "Overview", body: "" }],
          participants: [],
          actions: [],
        }}
      />
    </>
  );
}
