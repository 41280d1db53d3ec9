import { useActionData, useLoaderData } from "@remix-run/react";
import { TextField } from "~/components/fields";
import { StepForm, useStepForm } from "~/components/step-form";
import { stepPage } from "~/web/moc-step-page.server";

const page = stepPage({
  step: "temporary-permanent",
  success: (doc) =>
    `MOC ${doc.serial_num} is being made permanent: a new MOC cloned from it is waiting for its assessment.`,
});
export const loader = page.loader;
export const action = page.action;

export default function TemporaryPermanentStep() {
  const { mocId } = useLoaderData<typeof loader>();
  const [form, fields] = useStepForm(
    "temporary-permanent-step",
    () => import("~/models/moc/moc.schema").then((m) => m.temporaryPermanentSchema),
    useActionData<typeof action>(),
  );
  return (
    <StepForm
      form={form}
      mocId={mocId}
      title="Temporary change — make it permanent"
      intro="A new MOC, cloned from this one as a permanent change, goes through assessment, approval and verification; the two are linked. This one stops being tracked as temporary."
      submitLabel="Start the permanent MOC"
    >
      <TextField meta={fields["permanent-reason"]} label="Why the change should become permanent" multiline />
    </StepForm>
  );
}
