/**
 * The page side of a workflow step (`/mocs/:id/<step>`): the form shows only to whoever may
 * submit it now, posts the same shape the API takes, is validated with the same zod schema, and
 * runs the same `runStep`. Errors come back next to the fields with the entered values kept.
 */
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import type { z } from "zod";
import { mayActOnStep, type MocStep } from "~/models/authz.server";
import { runStep, type StepInput } from "~/models/moc-workflow.server";
import type { MocDocument } from "~/models/moc-query.server";
import { MOC_STEP_PARTS } from "~/models/moc-status";
import { Forbidden } from "./errors";
import { redirectWithFlash } from "./flash.server";
import { activeUserOptions, openStepsFor, requireMocForPage } from "./moc-page.server";
import { domainErrorReply, pageError, runForPage, withoutBodyKey } from "./page.server";

const WHO: Record<MocStep, string> = {
  originator: "Only the originator (or an admin) can change Part A.",
  implementer: "Only the assigned implementer can submit the implementer assessment.",
  hseq: "Only members of the HSEQ department can submit the HSEQ review.",
  approver: "Only the assigned approver can decide on this MOC.",
  implementation: "Only the assigned implementer can report the implementation.",
  "deviation-extension": "Only the approver or the assigned HSEQ user can resolve deviations and extensions.",
  verifier: "Only the verifier (or the assigned HSEQ user when there is none) can verify this MOC.",
};

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export async function requireOpenStep(request: Request, id: string | undefined, step: MocStep) {
  const { user, access, doc } = await requireMocForPage(request, id);
  if (!mayActOnStep[step](user, access)) pageError(new Forbidden(WHO[step]));
  if (!openStepsFor(user, access, doc).includes(step)) {
    throw await redirectWithFlash(`/mocs/${doc._id}`, {
      kind: "info",
      message: `${capitalise(MOC_STEP_PARTS[step] ?? step)} is not open for you now.`,
    });
  }
  return { user, access, doc };
}

export function stepPage<S extends MocStep, Schema extends z.ZodType>(options: {
  step: S;
  schema: Schema;
  toInput: (value: z.output<Schema>, doc: MocDocument) => StepInput<S>;
  success: (doc: MocDocument) => string;
}) {
  return {
    async loader({ request, params }: LoaderFunctionArgs) {
      const { doc } = await requireOpenStep(request, params.id, options.step);
      return { users: await activeUserOptions(), mocId: doc._id };
    },
    async action({ request, params }: ActionFunctionArgs) {
      const { user, doc } = await requireOpenStep(request, params.id, options.step);
      const submission = parseWithZod(await request.formData(), { schema: options.schema });
      if (submission.status !== "success") return data(submission.reply(), { status: 400 });
      const result = await runForPage(() =>
        runStep(options.step, user, doc._id, options.toInput(submission.value, doc)),
      );
      if (!result.ok) {
        if (result.error.status === 403 || result.error.status === 404) pageError(result.error);
        if (result.error.status === 409) {
          throw await redirectWithFlash(`/mocs/${doc._id}`, { kind: "error", message: result.error.message });
        }
        return domainErrorReply(submission, result.error, withoutBodyKey);
      }
      return redirectWithFlash(`/mocs/${doc._id}`, { kind: "success", message: options.success(result.value) });
    },
  };
}
