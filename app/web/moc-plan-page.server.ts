/**
 * The page side of the plan editors (impact assessment, action plan, manuals plan): shown to the
 * people who may edit them while the MOC is open, validated with zod, saved through the model.
 */
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import type { z } from "zod";
import { isMocOpen, isMocPlanEditor } from "~/models/authz.server";
import type { MocDocument } from "~/models/moc-document";
import type { PublicUser } from "~/models/user.server";
import { Forbidden } from "~/utils/errors";
import { redirectWithFlash } from "~/utils/flash.server";
import { activeUserOptions, requireMocForPage } from "./moc-page.server";
import { domainErrorReply, pageError, runForPage } from "~/utils/page.server";

export async function requirePlanEditor(request: Request, id: string | undefined) {
  const { user, access, doc } = await requireMocForPage(request, id);
  if (!isMocPlanEditor(user, access)) {
    pageError(new Forbidden("Only the originator, implementer, assigned HSEQ user or an admin can edit the plans."));
  }
  if (!isMocOpen(access)) {
    throw await redirectWithFlash(`/mocs/${doc._id}`, {
      kind: "info",
      message: "This MOC is closed; its plans can no longer change.",
    });
  }
  return { user, access, doc };
}

export function planPage<Schema extends z.ZodType>(options: {
  schema: Schema;
  save: (user: PublicUser, mocId: string, value: z.output<Schema>) => Promise<MocDocument>;
  success: string;
}) {
  return {
    async loader({ request, params }: LoaderFunctionArgs) {
      const { doc } = await requirePlanEditor(request, params.id);
      return { users: await activeUserOptions(), moc: doc };
    },
    async action({ request, params }: ActionFunctionArgs) {
      const { user, doc } = await requirePlanEditor(request, params.id);
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
