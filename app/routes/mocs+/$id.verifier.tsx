import { useActionData, useLoaderData } from "@remix-run/react";
import { ClosureChecklist } from "~/components/closure";
import { TextField, YesNoField } from "~/components/fields";
import { StepForm, useStepForm } from "~/components/step-form";
import { VERIFIER_QUESTIONS } from "~/models/moc/moc-closure";
import { defaultReviewDate, REVIEW_DAYS_BY_CHANGE_TYPE } from "~/models/moc/effectiveness.constants";
import { stepPage } from "~/web/moc-step-page.server";
import { useMocLayoutData } from "~/routes/mocs+/$id";

const page = stepPage({
  step: "verifier",
  success: (doc) =>
    doc.completed
      ? `MOC ${doc.serial_num} is verified and closed.`
      : `The verification of MOC ${doc.serial_num} is saved; it stays open.`,
});
export const loader = page.loader;
export const action = page.action;

export default function VerifierStep() {
  const { mocId } = useLoaderData<typeof loader>();
  const { moc, permissions } = useMocLayoutData();
  // The answers saved before (a verification that left the MOC open, a revised review) come back;
  // the effectiveness review's date starts at the default by change type (issue 42).
  const changeType = moc.temporary ? "temporary" : "permanent";
  const reviewDate = defaultReviewDate(new Date().toISOString().slice(0, 10), changeType);
  const [form, fields] = useStepForm(
    "verifier-step",
    () => import("~/models/moc/moc.schema").then((m) => m.verifierFormSchema),
    useActionData<typeof action>(),
    { ...(moc.verifier_form ?? {}), "review-date": { value: reviewDate } },
  );
  return (
    <>
      <ClosureChecklist
        moc={moc}
        canCancel={permissions.canCancelPlanItems}
        canReturn={permissions.openSteps.some((s) => s.step === "verifier-return")}
      />
      <StepForm
        form={form}
        mocId={mocId}
        title="Part F — Verification"
        intro="Check the change was effective. Answer yes to “Close the MOC” to complete it; no saves your answers and leaves it open."
        submitLabel="Submit verification"
      >
        {(Object.keys(VERIFIER_QUESTIONS) as (keyof typeof VERIFIER_QUESTIONS)[]).map((key) => (
          <YesNoField key={key} meta={fields[key]} label={VERIFIER_QUESTIONS[key]} />
        ))}
        <YesNoField meta={fields["close-moc"]} label="Close the MOC?" />
        <TextField
          meta={fields["review-date"]}
          type="date"
          label="Effectiveness review date"
          hint={`When the MOC closes, the HSEQ department is asked on this day whether the change worked: by default ${REVIEW_DAYS_BY_CHANGE_TYPE[changeType]} days after closing a ${changeType} change; after today, within two years.`}
        />
      </StepForm>
    </>
  );
}
