import { useActionData, useLoaderData } from "@remix-run/react";
import { TextField, YesNoField } from "~/components/fields";
import { StepForm, useStepForm } from "~/components/step-form";
import { stepPage } from "~/web/moc-step-page.server";
import { useMocLayoutData } from "~/routes/mocs+/$id";

const page = stepPage({
  step: "hseq",
  success: (doc) =>
    doc.status === "b"
      ? `MOC ${doc.serial_num} went back to the implementer.`
      : `MOC ${doc.serial_num} passed HSEQ review and waits for approval.`,
});
export const loader = page.loader;
export const action = page.action;

export default function HseqStep() {
  const { mocId } = useLoaderData<typeof loader>();
  const { moc, risk } = useMocLayoutData();
  // The answers saved before (a verification that left the MOC open, a revised review) come back.
  const [form, fields] = useStepForm(
    "hseq-step",
    () => import("~/models/moc/moc.schema").then((m) => m.hseqFormSchema),
    useActionData<typeof action>(),
    moc.hseq_form ?? undefined,
  );
  return (
    <StepForm
      form={form}
      mocId={mocId}
      title="Part C — HSEQ review"
      intro="Answer yes to all three to send the MOC for approval. Any no returns it to the implementer with your reason."
      submitLabel="Submit HSEQ review"
    >
      <YesNoField meta={fields["hseq-change-adequately"]} label="Is the change adequately described?" />
      <YesNoField meta={fields["hseq-justification-satisfactory"]} label="Is the justification satisfactory?" />
      {risk.gate ? (
        <p className="callout callout-warning" id="risk-gate-note">
          <strong>Risk gate:</strong> {risk.gate}. Answer no and say what is missing to return it to the implementer.
        </p>
      ) : null}
      <YesNoField meta={fields["hseq-risk-assessment-covered"]} label="Does the risk assessment cover the change?" />
      <TextField meta={fields["decline-reason"]} label="Reason for returning it (only when returning)" multiline />
    </StepForm>
  );
}
