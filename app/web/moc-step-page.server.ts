/**
 * The page side of a workflow step (`/mocs/:id/<step>`): the form shows only to whoever may
 * submit it now, posts the step's form (moc-steps.server.ts), is validated with the same zod schema
 * the API uses, and runs the same `runStep`. Errors come back next to the fields with the entered
 * values kept.
 */
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import type { z } from "zod";
import { capitalise } from "~/models/shared/labels";
import type { MocDocument } from "~/models/moc/moc-document";
import {
  actingFor,
  isIndependentOf,
  openStepsFor,
  refusalFor,
  stateOfDocument,
  STEPS,
  type MocStep,
  type StepInput,
} from "~/models/moc/moc-steps.server";
import { runStepForDocument } from "~/models/moc/moc-workflow.server";
import { Forbidden, Invalid, type Issue } from "~/utils/errors";
import { redirectWithFlash } from "~/utils/flash.server";
import { decisionContext } from "./decision-context.server";
import { actingForPrincipal, activeUserOptions, requireMocForPage } from "./moc-page.server";
import { domainErrorReply, fieldErrors, pageError, runForPage } from "~/utils/page.server";
import { withPlainTextAsHtml } from "~/utils/plain-text";

export async function requireOpenStep(request: Request, id: string | undefined, step: MocStep) {
  const { user, access, doc, principals } = await requireMocForPage(request, id);
  if (!actingFor(step, user, access, principals)) pageError(new Forbidden(`${refusalFor(step, user, access)}.`));
  if (!openStepsFor(user, access, stateOfDocument(doc), principals).includes(step)) {
    throw await redirectWithFlash(`/mocs/${doc._id}`, {
      kind: "info",
      message: `${capitalise(STEPS[step].part)} is not open for you now.`,
    });
  }
  return { user, access, doc, principals };
}

export function stepPage<S extends MocStep, Schema extends z.ZodType = z.ZodType>(options: {
  step: S;
  /** The page's own form when it differs from the step's (Part A's page also saves drafts). */
  schema?: Schema;
  toInput?: (value: z.output<Schema>, doc: MocDocument) => StepInput<S>;
  /** What the page asks beyond the API, given the record (Part B's "what changed" after a return): field issues. */
  pageRules?: (value: z.output<Schema>, doc: MocDocument) => Issue[];
  success: (doc: MocDocument) => string;
}) {
  const schema = (options.schema ?? STEPS[options.step].form) as Schema;
  const toInput = options.toInput ?? ((value: z.output<Schema>) => value as StepInput<S>);
  return {
    async loader({ request, params }: LoaderFunctionArgs) {
      const { doc, access, user, principals } = await requireOpenStep(request, params.id, options.step);
      const onBehalfOf = actingForPrincipal(options.step, user, access, principals)?.onBehalfOf ?? null;
      const [users, decision] = await Promise.all([
        activeUserOptions(),
        // What the decision is taken on, above its questions (app/components/decision-context.tsx).
        decisionContext(doc, options.step, onBehalfOf?.name ?? null),
      ]);
      // Four eyes: the pickers for checkers (Part B's approver and HSEQ user) offer only people independent of the MOC.
      return { users, checkers: users.filter((u) => isIndependentOf(u._id, access)), mocId: doc._id, decision };
    },
    async action({ request, params }: ActionFunctionArgs) {
      const { user, doc } = await requireOpenStep(request, params.id, options.step);
      const submission = parseWithZod(withPlainTextAsHtml(await request.formData()), { schema });
      if (submission.status !== "success") return data(submission.reply(), { status: 400 });
      const pageIssues = options.pageRules?.(submission.value, doc) ?? [];
      if (pageIssues.length) {
        return data(submission.reply({ fieldErrors: fieldErrors(new Invalid(pageIssues[0]!.message, pageIssues)) }), {
          status: 400,
        });
      }
      const result = await runForPage(() =>
        runStepForDocument(options.step, user, doc._id, toInput(submission.value, doc)),
      );
      if (!result.ok) {
        if (result.error.status === 403 || result.error.status === 404) pageError(result.error);
        // A refusal naming what is open (the closure gate) comes back on the form, next to the answers.
        if (result.error.status === 409 && !result.error.issues?.length) {
          throw await redirectWithFlash(`/mocs/${doc._id}`, { kind: "error", message: result.error.message });
        }
        return domainErrorReply(submission, result.error);
      }
      return redirectWithFlash(`/mocs/${doc._id}`, { kind: "success", message: options.success(result.value) });
    },
  };
}
