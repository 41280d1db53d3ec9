import { useActionData, useLoaderData } from "@remix-run/react";
import { lastReturn, ReturnedBanner } from "~/components/closure";
import { RichTextField, TextField, YesNoField } from "~/components/fields";
import { StepForm, useStepForm } from "~/components/step-form";
import { stepPage } from "~/web/moc-step-page.server";
import { useMocLayoutData } from "~/routes/mocs+/$id";

const page = stepPage({
  step: "implementation",
  success: (doc) =>
    doc.status === "f"
      ? `MOC ${doc.serial_num} is implemented and waits for verification.`
      : `The deviation/extension of MOC ${doc.serial_num} went to the approver and HSEQ user.`,
});
export const loader = page.loader;
export const action = page.action;

export default function ImplementationStep() {
  const { mocId } = useLoaderData<typeof loader>();
  const { moc } = useMocLayoutData();
  // The answers saved before (a verification that left the MOC open, a revised review) come back.
  const [form, fields] = useStepForm(
    "implementation-step",
    () => import("~/models/moc/moc.schema").then((m) => m.implementationSchema),
    useActionData<typeof action>(),
    moc.implementation ?? undefined,
  );
  const returned = lastReturn(moc, "f", "e");
  return (
    <>
      {returned ? <ReturnedBanner entry={returned} by="Returned to implementation by the verifier" /> : null}
      <StepForm
        form={form}
        mocId={mocId}
        title="Part E — Implementation"
        intro="Report how the change was carried out. A deviation or a needed extension goes to the approver and HSEQ user for a decision before verification."
        submitLabel="Submit implementation"
      >
        <YesNoField
          meta={fields["deviation-during-implementation"]}
          label="Was there a deviation during implementation?"
        />
        <YesNoField meta={fields["moc-require-extension"]} label="Does the MOC need an extension?" />
        <YesNoField meta={fields["moc-circulated"]} label="Has the MOC been circulated?" />
        <YesNoField meta={fields["implementation-as-planned"]} label="Was it implemented as planned?" />
        <TextField
          meta={fields["completion-date"]}
          label="Completion date (when there is no deviation or extension)"
          type="date"
        />
        <RichTextField meta={fields["deviation-details"]} label="Deviation details (when there was a deviation)" />
        <div className="form-grid">
          <TextField meta={fields["extension-date"]} label="New target date (when extending)" type="date" />
          <TextField meta={fields["extension-reason"]} label="Reason for the extension" />
        </div>
      </StepForm>
    </>
  );
}
