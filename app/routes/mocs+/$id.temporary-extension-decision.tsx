import { useActionData, useLoaderData } from "@remix-run/react";
import { TextField, YesNoField } from "~/components/fields";
import { StepForm, useStepForm } from "~/components/step-form";
import { stepPage } from "~/web/moc-step-page.server";

const page = stepPage({
  step: "temporary-extension-decision",
  success: (doc) =>
    doc.temporary?.extension?.approved === "yes"
      ? `The temporary change of MOC ${doc.serial_num} now ends on ${doc.temporary.until}.`
      : `The extension of MOC ${doc.serial_num} is rejected.`,
});
export const loader = page.loader;
export const action = page.action;

export default function TemporaryExtensionDecisionStep() {
  const { mocId } = useLoaderData<typeof loader>();
  const [form, fields] = useStepForm(
    "temporary-extension-decision-step",
    () => import("~/models/moc/moc.schema").then((m) => m.temporaryExtensionDecisionSchema),
    useActionData<typeof action>(),
  );
  return (
    <StepForm
      form={form}
      mocId={mocId}
      title="Temporary change — decide on the extension"
      intro="The implementer asks to extend the temporary change (the new end date and the reason are on the record). Approve it, or reject it with a reason."
      submitLabel="Submit decision"
    >
      <YesNoField meta={fields["extension-approved"]} label="Do you approve the new end date?" />
      <TextField meta={fields["extension-comment"]} label="Reason for rejecting (only when rejecting)" multiline />
    </StepForm>
  );
}
