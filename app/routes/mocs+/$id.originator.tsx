import { parseWithZod } from "@conform-to/zod/v4";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { listVessels } from "~/models/fleet/vessel.server";
import { useActionData, useLoaderData } from "@remix-run/react";
import { partADefaults, PartAForm } from "~/components/part-a";
import { partAPageSchema, toNewMocInput } from "~/models/moc/moc.schema";
import { updateDraft } from "~/models/moc/moc.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { requireOpenStep, stepPage } from "~/web/moc-step-page.server";
import { domainErrorReply, pageError, runForPage } from "~/utils/page.server";
import { withPlainTextAsHtml } from "~/utils/plain-text";
import { useMocLayoutData } from "~/routes/mocs+/$id";

const page = stepPage({
  step: "originator",
  schema: partAPageSchema,
  // The page schema requires every Part A answer to submit (only a draft may be partial).
  toInput: (value) => ({
    ...toNewMocInput(value),
    "implementer-name": value["implementer-name"]!,
    "description-of-change": value["description-of-change"]!,
    "reason-for-change": value["reason-for-change"]!,
    "department-of-change": value["department-of-change"]!,
  }),
  success: (doc) => `Part A of MOC ${doc.serial_num} is submitted; the implementer has been notified.`,
});
/** The step's own loader, with the vessels Part A may name. */
export async function loader(args: LoaderFunctionArgs) {
  const [base, vessels] = await Promise.all([page.loader(args), listVessels({ activeOnly: true })]);
  return { ...base, vessels: vessels.map((v) => ({ _id: v._id, name: v.name })) };
}

/** Submit runs the originator step; "save draft" (status a only) keeps it a draft. */
export async function action(args: ActionFunctionArgs) {
  const form = await args.request.clone().formData();
  if (form.get("intent") !== "draft") return page.action(args);
  // The same access checks as the step itself.
  const { user } = await requireOpenStep(args.request, args.params.id, "originator");
  const submission = parseWithZod(withPlainTextAsHtml(form), { schema: partAPageSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const result = await runForPage(() => updateDraft(user, args.params.id!, toNewMocInput(submission.value)));
  if (!result.ok) {
    if (result.error.status === 403 || result.error.status === 404) pageError(result.error);
    return domainErrorReply(submission, result.error);
  }
  return redirectWithFlash(`/mocs/${result.value._id}`, { kind: "success", message: "The draft is saved." });
}

export default function OriginatorStep() {
  const { users, vessels } = useLoaderData<typeof loader>();
  const { moc } = useMocLayoutData();
  const lastResult = useActionData<typeof action>();
  const isDraft = moc.status === "a";
  return (
    <section className="card" aria-labelledby="part-a-title">
      <h2 id="part-a-title">Part A — {isDraft ? "Finish the draft" : "Revise before the implementer's assessment"}</h2>
      <PartAForm
        id="originator-step"
        users={users}
        vessels={vessels}
        lastResult={lastResult}
        defaultValue={partADefaults(moc.originator_form)}
        allowDraft={isDraft}
        submitLabel={isDraft ? "Submit MOC" : "Save Part A"}
      />
    </section>
  );
}
