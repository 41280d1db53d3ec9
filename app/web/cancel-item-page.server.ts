/**
 * The page side of cancelling a plan item (`/mocs/:id/cancel-item?plan=&item=`): shown to the
 * implementer and the assigned HSEQ user while the MOC is open, the same model function as
 * `POST /api/cancelPlanItem` (docs/decisions/033-closure-gates.md).
 */
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { isMocOpen, mayCancelPlanItems } from "~/models/authz/authz.server";
import { cancelPlanItemPageSchema, PLAN_KINDS } from "~/models/moc/moc.schema";
import { cancelPlanItem } from "~/models/moc/plan-items.server";
import { Forbidden, NotFound } from "~/utils/errors";
import { redirectWithFlash } from "~/utils/flash.server";
import { domainErrorReply, pageError, runForPage } from "~/utils/page.server";
import { requireMocForPage } from "./moc-page.server";

async function requireCanceller(request: Request, id: string | undefined) {
  const { user, access, doc } = await requireMocForPage(request, id);
  if (!mayCancelPlanItems(user, access)) {
    pageError(new Forbidden("Only the implementer or the assigned HSEQ user can cancel a plan item."));
  }
  if (!isMocOpen(access)) {
    throw await redirectWithFlash(`/mocs/${doc._id}`, {
      kind: "info",
      message: "This MOC is closed; its plans can no longer change.",
    });
  }
  return { user, doc };
}

/** The item named by the query string, in words, or the 404 page. */
function itemOf(doc: Awaited<ReturnType<typeof requireCanceller>>["doc"], url: URL) {
  const plan = url.searchParams.get("plan");
  const itemId = url.searchParams.get("item");
  const kind = PLAN_KINDS.find((k) => k === plan);
  const item =
    kind === "action"
      ? doc.action.items.find((i) => i._id === itemId)
      : kind === "manual_plan"
        ? doc.manual_plan.items.find((i) => i._id === itemId)
        : undefined;
  if (!kind || !item) pageError(new NotFound("There is no such item in this MOC's plans."));
  const words =
    "description" in item ? `Action: ${item.description}` : `Manuals and drawings: ${item.document} — ${item.change}`;
  return {
    plan: kind,
    itemId: item._id,
    words,
    due: item.due,
    done: item.done,
    cancelled: item.cancelled ?? null,
  };
}

export async function cancelItemLoader({ request, params }: LoaderFunctionArgs) {
  const { doc } = await requireCanceller(request, params.id);
  return { mocId: doc._id, item: itemOf(doc, new URL(request.url)) };
}

export async function cancelItemAction({ request, params }: ActionFunctionArgs) {
  const { user, doc } = await requireCanceller(request, params.id);
  const submission = parseWithZod(await request.formData(), { schema: cancelPlanItemPageSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const result = await runForPage(() => cancelPlanItem(user, { mocId: doc._id, ...submission.value }));
  if (!result.ok) {
    if (result.error.status === 403 || result.error.status === 404) pageError(result.error);
    return domainErrorReply(submission, result.error);
  }
  return redirectWithFlash(`/mocs/${doc._id}`, {
    kind: "success",
    message: "The item is cancelled; its reason is in the history.",
  });
}
