import { useActionData, useLoaderData } from "@remix-run/react";
import { TextField, YesNoField } from "~/components/fields";
import { StepForm, useStepForm } from "~/components/step-form";
import { stepPage } from "~/web/moc-step-page.server";
import { useMocLayoutData } from "~/routes/mocs+/$id";

const page = stepPage({
  step: "approver",
  success: (doc) =>
    doc.status === "decline"
      ? `MOC ${doc.serial_num} is declined.`
      : `MOC ${doc.serial_num} is approved for implementation.`,
});
export const loader = page.loader;
export const action = page.action;

export default function ApproverStep() {
  const { mocId } = useLoaderData<typeof loader>();
  const { moc } = useMocLayoutData();
  // The answers saved before (a verification that left the MOC open, a revised review) come back.
  const [form, fields] = useStepForm(
    "approver-step",
    () => import("~/models/moc.schema").then((m) => m.approverFormSchema),
    useActionData<typeof action>(),
    moc.approver_form ?? undefined,
  );
  return (
    <StepForm
      form={form}
      mocId={mocId}
      title="Part D — Approval"
      intro="Approve the MOC for implementation, or decline it with a reason. A declined MOC is final but can be cloned."
      submitLabel="Submit decision"
    >
      <YesNoField meta={fields["approver-changes-reviewed"]} label="Have you reviewed the changes?" />
      <YesNoField meta={fields["approver-moc-approved"]} label="Do you approve this MOC?" />
      <TextField meta={fields["decline-reason"]} label="Reason for declining (only when declining)" multiline />
    </StepForm>
  );
}
