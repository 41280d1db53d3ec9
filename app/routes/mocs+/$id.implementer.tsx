import { useActionData, useLoaderData } from "@remix-run/react";
import { TextField, UserSelectField, YesNoField } from "~/components/fields";
import { StepForm, useStepForm } from "~/components/step-form";
import { stepPage } from "~/web/moc-step-page.server";
import { useMocLayoutData } from "~/routes/mocs+/$id";

const page = stepPage({
  step: "implementer",
  success: (doc) =>
    doc.status === "decline" ? `MOC ${doc.serial_num} is declined.` : `MOC ${doc.serial_num} went to HSEQ review.`,
});
export const loader = page.loader;
export const action = page.action;

export default function ImplementerStep() {
  const { checkers, mocId } = useLoaderData<typeof loader>();
  const { moc } = useMocLayoutData();
  const draft = moc.implementer_form ?? undefined;
  const ref = (key: "approver-name" | "hseq-name") => {
    const id = draft?.[key]?.value._id;
    return id ? { value: { _id: id } } : undefined;
  };
  const [form, fields] = useStepForm(
    "implementer-step",
    () => import("~/models/moc.schema").then((m) => m.implementerFormSchema),
    useActionData<typeof action>(),
    {
      ...draft,
      "approver-name": ref("approver-name"),
      "hseq-name": ref("hseq-name"),
    },
  );
  return (
    <StepForm
      form={form}
      mocId={mocId}
      title="Part B — Implementer assessment"
      intro="Assess the change. To go ahead, answer yes to both questions, name the approver and the HSEQ user and set the target date; otherwise give the reason for declining."
      submitLabel="Submit assessment"
    >
      <YesNoField meta={fields["details-assessed"]} label="Have the details of the change been assessed?" />
      <YesNoField meta={fields["necessary-justified"]} label="Is the change necessary and justified?" />
      <div className="form-grid">
        <UserSelectField meta={fields["approver-name"]} label="Approver" users={checkers} asRef />
        <UserSelectField
          meta={fields["hseq-name"]}
          label="HSEQ user"
          users={checkers.filter((u) => u.department === "hseq")}
          asRef
        />
        <TextField meta={fields["target-date"]} label="Target date" type="date" />
      </div>
      <TextField meta={fields["decline-reason"]} label="Reason for declining (only when declining)" multiline />
    </StepForm>
  );
}
