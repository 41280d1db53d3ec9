import { useActionData, useLoaderData } from "@remix-run/react";
import { TextField, YesNoField } from "~/components/fields";
import { StepForm, useStepForm } from "~/components/step-form";
import { stepPage } from "~/web/moc-step-page.server";

const page = stepPage({
  step: "temporary-confirm",
  success: (doc) =>
    doc.temporary?.state === "restored"
      ? `The temporary change of MOC ${doc.serial_num} has ended: restoration confirmed.`
      : `The restoration of MOC ${doc.serial_num} is not confirmed; the implementer is told.`,
});
export const loader = page.loader;
export const action = page.action;

export default function TemporaryConfirmStep() {
  const { mocId } = useLoaderData<typeof loader>();
  const [form, fields] = useStepForm(
    "temporary-confirm-step",
    () => import("~/models/moc/moc.schema").then((m) => m.temporaryConfirmSchema),
    useActionData<typeof action>(),
  );
  return (
    <StepForm
      form={form}
      mocId={mocId}
      title="Temporary change — confirm the restoration"
      intro="The implementer reported the original condition restored (see the record). Confirm it to end the temporary change, or say what is still to be restored."
      submitLabel="Submit confirmation"
    >
      <YesNoField meta={fields["restoration-confirmed"]} label="Is the original condition restored?" />
      <TextField
        meta={fields["confirm-comment"]}
        label="What is still to be restored (only when not confirming)"
        multiline
      />
    </StepForm>
  );
}
