/**
 * The page side of marking a plan item done (`/mocs/:id/done-item?plan=&item=`), reached from "My
 * actions" on the dashboard: a note and an optional evidence file, one multipart form that works
 * without JavaScript; the same model function as `POST /api/actionDone`
 * (docs/decisions/038-actions-as-tasks.md).
 */
import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { itemWords, markItemDone, type PlanKind } from "~/models/moc/action-tasks.server";
import { actionDonePageSchema } from "~/models/moc/action-tasks.schema";
import { UPLOAD_TYPES } from "~/models/records/attachments.server";
import { canMarkPlanItem, isMocOpen, mayMarkItemDone } from "~/models/authz/authz.server";
import { PLAN_KINDS } from "~/models/moc/moc.schema";
import { mocStage, stateOfDocument } from "~/models/moc/moc-steps.server";
import { Forbidden, Invalid, NotFound } from "~/utils/errors";
import { redirectWithFlash } from "~/utils/flash.server";
import { pageError } from "~/utils/page.server";
import { receiveForm } from "./attachment-upload.server";
import { requireMocForPage } from "./moc-page.server";

const MARKERS = "Only the item's owner, the implementer, the assigned HSEQ user or an admin can mark it done.";

async function requireItem(request: Request, id: string | undefined) {
  const { user, access, doc } = await requireMocForPage(request, id);
  const url = new URL(request.url);
  const plan = PLAN_KINDS.find((k) => k === url.searchParams.get("plan")) as PlanKind | undefined;
  const itemId = url.searchParams.get("item");
  const items: { _id: string; owner: string | null; due: string | null; done: boolean; cancelled?: unknown }[] =
    plan === "action" ? doc.action.items : plan === "manual_plan" ? doc.manual_plan.items : [];
  const item = items.find((i) => i._id === itemId);
  if (!plan || !item) pageError(new NotFound("There is no such item in this MOC's plans."));
  if (!canMarkPlanItem(user, access, item)) pageError(new Forbidden(MARKERS));
  const settled = !isMocOpen(access)
    ? "This MOC is closed; its plans can no longer change."
    : item.done
      ? "This item is already done."
      : item.cancelled
        ? "This item is cancelled."
        : !mayMarkItemDone(user, access, item)
          ? "This MOC is not approved yet: its plan items are carried out after approval."
          : null;
  return {
    user,
    doc,
    item: {
      plan,
      itemId: item._id,
      kind: plan === "action" ? "Action" : "Manuals and drawings",
      words: itemWords(item as { description?: string; document?: string; change?: string }),
      due: item.due,
    },
    settled,
  };
}

export async function doneItemLoader({ request, params }: LoaderFunctionArgs) {
  const { doc, item, settled } = await requireItem(request, params.id);
  return {
    mocId: doc._id,
    serial: doc.serial_num,
    state: mocStage(stateOfDocument(doc)),
    item,
    settled,
    types: Object.keys(UPLOAD_TYPES),
  };
}

export async function doneItemAction({ request, params }: ActionFunctionArgs) {
  const { user, doc, item } = await requireItem(request, params.id);
  const result = await receiveForm(request, user, async (fields, file) => {
    const parsed = actionDonePageSchema.safeParse({ note: fields.get("note") ?? undefined });
    if (!parsed.success) {
      const message = parsed.error.issues[0]?.message ?? "The note is not valid";
      throw new Invalid(message, [{ path: "note", message }]);
    }
    return markItemDone(user, {
      mocId: doc._id,
      plan: item.plan,
      itemId: item.itemId,
      note: parsed.data.note,
      evidence: file ? { file } : null,
    });
  });
  if (!result.ok) {
    if (result.error.status === 403 || result.error.status === 404) pageError(result.error);
    const issue = result.error.issues?.[0];
    return data(
      { error: issue?.message ?? result.error.message, field: issue?.path === "note" ? "note" : "file" },
      { status: result.error.status },
    );
  }
  return redirectWithFlash("/", {
    kind: "success",
    message: `Marked done: ${item.words.slice(0, 80)} (MOC ${doc.serial_num}). The note is in its history.`,
  });
}
