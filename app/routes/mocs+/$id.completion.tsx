import { useActionData, useLoaderData } from "@remix-run/react";
import { TextField } from "~/components/fields";
import { formatDate } from "~/components/moc";
import { StepForm, useStepForm } from "~/components/step-form";
import { stepPage } from "~/web/moc-step-page.server";
import { useMocLayoutData } from "~/routes/mocs+/$id";

const page = stepPage({
  step: "completion-report",
  success: (doc) => `The completion is reported: MOC ${doc.serial_num} waits for verification.`,
});
export const loader = page.loader;
export const action = page.action;

/**
 * The implementer's completion report after the deviation and extension decisions (issue 38):
 * Part E keeps the answers given with the request; this says when and how the change was finished.
 */
export default function CompletionReportStep() {
  const { mocId } = useLoaderData<typeof loader>();
  const { moc } = useMocLayoutData();
  const tracking = moc.extentionsAndDeviations;
  const [form, fields] = useStepForm(
    "completion-report-step",
    () => import("~/models/moc/moc.schema").then((m) => m.completionReportSchema),
    useActionData<typeof action>(),
    { moc_id: mocId },
  );
  const decided = [
    tracking?.deviation?.requested
      ? `the deviation was ${tracking.deviation.approved === "yes" ? "accepted" : "rejected"}`
      : null,
    tracking?.extension?.requested
      ? `the extension to ${formatDate(tracking.extension.new_date)} was ${tracking.extension.approved === "yes" ? "approved" : "rejected"}`
      : null,
  ].filter(Boolean);
  return (
    <StepForm
      form={form}
      mocId={mocId}
      title="Report completion"
      intro={`${decided.length ? `The decisions are made: ${decided.join("; ")}. ` : ""}Say when the change was finished and how (for example, done as approved with the deviation). Part E keeps the answers you gave with the request; the verifier reads this report before closing.`}
      submitLabel="Report completion"
    >
      <input type="hidden" name="moc_id" value={mocId} />
      <TextField meta={fields.completion_date} label="Completion date" type="date" direct />
      <TextField meta={fields.note} label="How the change was finished" multiline direct />
    </StepForm>
  );
}
