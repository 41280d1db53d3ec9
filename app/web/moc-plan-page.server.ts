/**
 * The page side of the plan editors (impact assessment, action plan, manuals plan): shown to the
 * people who may edit them while the MOC is open, validated with zod, saved through the model.
 */
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import type { z } from "zod";
import { approvedContentFrozen, canMarkPlanItem, isMocOpen, isMocPlanEditor } from "~/models/authz/authz.server";
import type { MocDocument } from "~/models/moc/moc-document";
import type { PublicUser } from "~/models/people/user.server";
import { Forbidden } from "~/utils/errors";
import { redirectWithFlash } from "~/utils/flash.server";
import { activeUserOptions, requireMocForPage } from "./moc-page.server";
import { domainErrorReply, pageError, runForPage } from "~/utils/page.server";

/**
 * A plan page's record and mode: `edit` for the plan editors while the MOC is open and its
 * approved content not frozen; `mark` once approved (docs/decisions/034), for the action and
 * manuals plans only, to whoever may mark one of their items done. The impact assessment and the
 * risk assessment page send a frozen MOC back to its record with the reason.
 */
export async function requirePlanEditor(
  request: Request,
  id: string | undefined,
  plan: "impact" | "risk" | "action" | "manuals" = "impact",
) {
  const { user, access, doc } = await requireMocForPage(request, id);
  const frozen = approvedContentFrozen(access);
  const items = plan === "action" ? doc.action.items : plan === "manuals" ? doc.manual_plan.items : [];
  const marks = frozen !== null && isMocOpen(access) && items.some((item) => canMarkPlanItem(user, access, item));
  if (!isMocPlanEditor(user, access) && !marks) {
    pageError(new Forbidden("Only the originator, implementer, assigned HSEQ user or an admin can edit the plans."));
  }
  if (!isMocOpen(access)) {
    throw await redirectWithFlash(`/mocs/${doc._id}`, {
      kind: "info",
      message: "This MOC is closed; its plans can no longer change.",
    });
  }
  if (frozen && !marks) throw await redirectWithFlash(`/mocs/${doc._id}`, { kind: "info", message: frozen });
  return { user, access, doc, mode: frozen ? ("mark" as const) : ("edit" as const) };
}

export function planPage<Schema extends z.ZodType>(options: {
  plan: "impact" | "action" | "manuals";
  schema: Schema;
  save: (user: PublicUser, mocId: string, value: z.output<Schema>) => Promise<MocDocument>;
  success: string;
}) {
  return {
    async loader({ request, params }: LoaderFunctionArgs) {
      const { user, access, doc, mode } = await requirePlanEditor(request, params.id, options.plan);
      const items =
        options.plan === "action" ? doc.action.items : options.plan === "manuals" ? doc.manual_plan.items : [];
      // Once frozen, the rows whose done mark this viewer may change (the others show as they are).
      const markable = items.filter((item) => canMarkPlanItem(user, access, item)).map((item) => item._id);
      return { users: await activeUserOptions(), moc: doc, mode, markable, userId: user._id };
    },
    async action({ request, params }: ActionFunctionArgs) {
      const { user, doc } = await requirePlanEditor(request, params.id, options.plan);
      const submission = parseWithZod(await request.formData(), { schema: options.schema });
      // Adding or removing a row (conform's list intents) comes back here too: re-render, unsaved.
      if (submission.status !== "success")
        return data(submission.reply(), { status: submission.status === "error" ? 400 : 200 });
      const result = await runForPage(() => options.save(user, doc._id, submission.value));
      if (!result.ok) {
        if (result.error.status === 403 || result.error.status === 404) pageError(result.error);
        return domainErrorReply(submission, result.error);
      }
      return redirectWithFlash(`/mocs/${doc._id}`, { kind: "success", message: options.success });
    },
  };
}
