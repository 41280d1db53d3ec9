import { useActionData, useLoaderData } from "@remix-run/react";
import { TextField } from "~/components/fields";
import { StepForm, useStepForm } from "~/components/step-form";
import { stepPage } from "~/web/moc-step-page.server";

const page = stepPage({
  step: "temporary-extension",
  success: (doc) => `The extension of MOC ${doc.serial_num} is requested; the approver decides.`,
});
export const loader = page.loader;
export const action = page.action;

export default function TemporaryExtensionStep() {
  const { mocId } = useLoaderData<typeof loader>();
  const [form, fields] = useStepForm(
    "temporary-extension-step",
    () => import("~/models/moc/moc.schema").then((m) => m.temporaryExtensionSchema),
    useActionData<typeof action>(),
  );
  return (
    <StepForm
      form={form}
      mocId={mocId}
      title="Temporary change — ask for an extension"
      intro="Name the new end date and why the temporary change must last longer. The approver decides."
      submitLabel="Ask for the extension"
    >
      <TextField meta={fields["temporary-new-until"]} label="New end date" type="date" />
      <TextField meta={fields["temporary-extension-reason"]} label="Reason for the extension" multiline />
    </StepForm>
  );
}
