import { useActionData, useLoaderData } from "@remix-run/react";
import { ClosureChecklist } from "~/components/closure";
import { TextField } from "~/components/fields";
import { StepForm, useStepForm } from "~/components/step-form";
import { stepPage } from "~/web/moc-step-page.server";
import { useMocLayoutData } from "~/routes/mocs+/$id";

const page = stepPage({
  step: "verifier-return",
  success: (doc) => `MOC ${doc.serial_num} went back to implementation; the implementer is told why.`,
});
export const loader = page.loader;
export const action = page.action;

/** The verifier sends the MOC back to the implementer instead of closing it (docs/decisions/033-closure-gates.md). */
export default function VerifierReturnStep() {
  const { mocId } = useLoaderData<typeof loader>();
  const { moc, permissions } = useMocLayoutData();
  const [form, fields] = useStepForm(
    "verifier-return-step",
    () => import("~/models/moc/moc.schema").then((m) => m.verifierReturnSchema),
    useActionData<typeof action>(),
  );
  return (
    <>
      <ClosureChecklist moc={moc} canCancel={permissions.canCancelPlanItems} canReturn={false} />
      <StepForm
        form={form}
        mocId={mocId}
        title="Return to implementation"
        intro="The MOC goes back to the implementer (Part E), who finishes the work and reports it again. Say what is still to be done; the implementer reads it in the email and on the form."
        submitLabel="Return to implementation"
      >
        <TextField meta={fields["return-reason"]} label="Why it goes back" multiline />
      </StepForm>
    </>
  );
}
