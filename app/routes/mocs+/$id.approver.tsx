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
      : doc.status === "d"
        ? `Your approval of MOC ${doc.serial_num} is recorded; it now waits on the next approval its risk needs.`
        : `MOC ${doc.serial_num} is approved for implementation.`,
});
export const loader = page.loader;
export const action = page.action;

export default function ApproverStep() {
  const { mocId } = useLoaderData<typeof loader>();
  const { moc, risk } = useMocLayoutData();
  // A second approval (docs/decisions/037-risk-ranking-and-approvals.md): its own answers, not the approver's.
  const second = risk.approvals.find((a) => a.state === "waiting" && a.label !== "Approver");
  // The answers saved before (a verification that left the MOC open, a revised review) come back.
  const [form, fields] = useStepForm(
    "approver-step",
    () => import("~/models/moc/moc.schema").then((m) => m.approverFormSchema),
    useActionData<typeof action>(),
    second ? undefined : (moc.approver_form ?? undefined),
  );
  return (
    <StepForm
      form={form}
      mocId={mocId}
      title="Part D — Approval"
      intro={
        second
          ? `This MOC's risk is ${risk.level === "extreme" ? "Extreme" : "High"}, so after the approver it needs this approval: ${second.label}. Approve it, or decline it with a reason. A declined MOC is final but can be cloned.`
          : "Approve the MOC for implementation, or decline it with a reason. A declined MOC is final but can be cloned."
      }
      submitLabel="Submit decision"
    >
      <YesNoField meta={fields["approver-changes-reviewed"]} label="Have you reviewed the changes?" />
      <YesNoField meta={fields["approver-moc-approved"]} label="Do you approve this MOC?" />
      <TextField meta={fields["decline-reason"]} label="Reason for declining (only when declining)" multiline />
    </StepForm>
  );
}
