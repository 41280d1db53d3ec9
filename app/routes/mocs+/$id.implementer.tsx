import { useActionData, useLoaderData } from "@remix-run/react";
import { lastReturn, ReturnedBanner } from "~/components/closure";
import { TextField, UserSelectField, YesNoField } from "~/components/fields";
import { StepForm, useStepForm } from "~/components/step-form";
import { RETURNED_BY_HSEQ } from "~/models/moc/moc-closure";
import { returnedByHseq, stateOfDocument, type StepInput } from "~/models/moc/moc-steps.server";
import { stepPage } from "~/web/moc-step-page.server";
import { useMocLayoutData } from "~/routes/mocs+/$id";

const page = stepPage({
  step: "implementer",
  // After an HSEQ return the page asks what changed (docs/decisions/033-closure-gates.md).
  pageRules: (value, doc) =>
    returnedByHseq(stateOfDocument(doc)) && !(value as StepInput<"implementer">)["changes-since-return"]?.value
      ? [{ path: "changes-since-return", message: "Say what changed since HSEQ returned the MOC" }]
      : [],
  success: (doc) =>
    doc.status === "decline" ? `MOC ${doc.serial_num} is declined.` : `MOC ${doc.serial_num} went to HSEQ review.`,
});
export const loader = page.loader;
export const action = page.action;

export default function ImplementerStep() {
  const { checkers, mocId } = useLoaderData<typeof loader>();
  const { moc, stage } = useMocLayoutData();
  const returned = stage.label === RETURNED_BY_HSEQ ? lastReturn(moc, "c", "b") : null;
  const { "changes-since-return": _previousAnswer, ...draft } = moc.implementer_form ?? {};
  const ref = (key: "approver-name" | "hseq-name") => {
    const id = moc.implementer_form?.[key]?.value._id;
    return id ? { value: { _id: id } } : undefined;
  };
  const [form, fields] = useStepForm(
    "implementer-step",
    () => import("~/models/moc/moc.schema").then((m) => m.implementerFormSchema),
    useActionData<typeof action>(),
    {
      ...draft,
      "approver-name": ref("approver-name"),
      "hseq-name": ref("hseq-name"),
      // Until the implementer sets one, the date Part A asked for.
      "target-date": moc.implementer_form?.["target-date"] ?? moc.originator_form?.["target-date"] ?? undefined,
    },
  );
  return (
    <>
      {returned ? <ReturnedBanner entry={returned} by={RETURNED_BY_HSEQ} /> : null}
      <StepForm
        form={form}
        mocId={mocId}
        title="Part B — Implementer assessment"
        intro="Assess the change. To go ahead, answer yes to both questions, name the approver and the HSEQ user and set the target date; otherwise give the reason for declining."
        submitLabel="Submit assessment"
      >
        {returned ? (
          <TextField
            meta={fields["changes-since-return"]}
            label="What changed since HSEQ returned it (required)"
            hint="HSEQ reads this beside the revised assessment."
            multiline
          />
        ) : null}
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
    </>
  );
}
