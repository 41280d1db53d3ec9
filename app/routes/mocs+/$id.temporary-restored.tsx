import { useActionData, useLoaderData } from "@remix-run/react";
import { TextField } from "~/components/fields";
import { StepForm, useStepForm } from "~/components/step-form";
import { stepPage } from "~/web/moc-step-page.server";

const page = stepPage({
  step: "temporary-restored",
  success: (doc) => `The restoration of MOC ${doc.serial_num} is reported; the HSEQ user confirms it.`,
});
export const loader = page.loader;
export const action = page.action;

export default function TemporaryRestoredStep() {
  const { mocId } = useLoaderData<typeof loader>();
  const [form, fields] = useStepForm(
    "temporary-restored-step",
    () => import("~/models/moc/moc.schema").then((m) => m.temporaryRestoredSchema),
    useActionData<typeof action>(),
  );
  return (
    <StepForm
      form={form}
      mocId={mocId}
      title="Temporary change — original condition restored"
      intro="Say what was done to restore the original condition. The assigned HSEQ user then confirms it, which ends the temporary change."
      submitLabel="Report restored"
    >
      <TextField
        meta={fields["restoration-details"]}
        label="What was done to restore the original condition"
        multiline
      />
    </StepForm>
  );
}
