/**
 * The page side of a closed MOC's effectiveness review (`/mocs/:id/effectiveness`; issue 42,
 * docs/decisions/058-effectiveness-review.md): the HSEQ department or an admin (the 403 page for
 * others), the same model function as `POST /api/effectivenessReview`.
 */
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { canAnswerEffectivenessReview } from "~/models/authz/authz.server";
import { effectivenessReviewPageSchema } from "~/models/moc/effectiveness.schema";
import { answerEffectivenessReview, effectivenessReviewOf } from "~/models/moc/effectiveness.server";
import { titleOf } from "~/models/moc/moc-names";
import { Forbidden } from "~/utils/errors";
import { redirectWithFlash } from "~/utils/flash.server";
import { domainErrorReply, pageError, runForPage } from "~/utils/page.server";
import { requireMocForPage } from "./moc-page.server";

async function requireReviewer(request: Request, id: string | undefined) {
  const found = await requireMocForPage(request, id);
  if (!canAnswerEffectivenessReview(found.user)) {
    pageError(new Forbidden("Only the HSEQ department or an admin can answer an effectiveness review."));
  }
  return found;
}

export async function effectivenessLoader({ request, params }: LoaderFunctionArgs) {
  const { doc } = await requireReviewer(request, params.id);
  return {
    mocId: doc._id,
    serial: doc.serial_num,
    title: titleOf(doc.originator_form),
    review: await effectivenessReviewOf(doc._id),
    today: new Date().toISOString().slice(0, 10),
  };
}

export async function effectivenessAction({ request, params }: ActionFunctionArgs) {
  const { user, doc } = await requireReviewer(request, params.id);
  const submission = parseWithZod(await request.formData(), { schema: effectivenessReviewPageSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const result = await runForPage(() => answerEffectivenessReview(user, { id: doc._id, ...submission.value }));
  if (!result.ok) {
    if (result.error.status === 403 || result.error.status === 404) pageError(result.error);
    return domainErrorReply(submission, result.error);
  }
  return redirectWithFlash(`/mocs/${doc._id}/effectiveness`, {
    kind: "success",
    message: "The effectiveness review is answered; it is in the MOC's history.",
  });
}
