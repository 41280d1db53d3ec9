import { getFormProps } from "@conform-to/react";
import { useActionData, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import { StepDecisionContext } from "~/components/decision-context";
import { fieldset, TextField, YesNoField } from "~/components/fields";
import { ErrorList, SubmitButton } from "~/components/submit";
import { formatDate } from "~/components/moc";
import { RichText } from "~/components/moc-record";
import { useFocusFirstInvalid, useStepForm } from "~/components/step-form";
import type { ExtentionsAndDeviations } from "#db/schema";
import { unresolved } from "~/models/moc/moc-document";
import { stepPage } from "~/web/moc-step-page.server";
import { useMocLayoutData } from "~/routes/mocs+/$id";

const page = stepPage({
  step: "deviation-extension",
  success: (doc) =>
    doc.status === "f"
      ? `Everything requested is resolved: MOC ${doc.serial_num} waits for the implementer's completion report, then verification.`
      : "Your decision is recorded; the other item still waits for a decision.",
});
export const loader = page.loader;
export const action = page.action;

type Tracking = ExtentionsAndDeviations;

function Decision({ type, tracking, mocId }: { type: "deviation" | "extension"; tracking: Tracking; mocId: string }) {
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useStepForm(
    `${type}-decision`,
    () => import("~/models/moc/moc.schema").then((m) => m.deviationExtensionSchema),
    lastResult,
    {
      moc_id: mocId,
      deviationExtentionId: tracking._id,
      type,
    },
  );
  const value = fieldset(fields.value!);
  useFocusFirstInvalid(form.id, form.allErrors);
  return (
    <Form method="post" {...getFormProps(form)} className="stack">
      <ErrorList id={form.errorId} errors={form.errors} />
      <input type="hidden" name="moc_id" value={mocId} />
      <input type="hidden" name="deviationExtentionId" value={tracking._id} />
      <input type="hidden" name="type" value={type} />
      <YesNoField
        meta={value?.approved}
        direct
        label={type === "deviation" ? "Accept the deviation?" : "Approve the extension?"}
        yes={type === "deviation" ? "Accept" : "Approve"}
        no="Reject"
      />
      <TextField
        meta={value?.comment}
        direct
        label="Comment"
        hint="Required to reject: the implementer reads it in the history."
        multiline
      />
      <SubmitButton pendingText="Recording…">
        {type === "deviation" ? "Record decision on the deviation" : "Record decision on the extension"}
      </SubmitButton>
    </Form>
  );
}

export default function DeviationStep() {
  const { mocId } = useLoaderData<typeof loader>();
  const { moc } = useMocLayoutData();
  const tracking = moc.extentionsAndDeviations;
  if (!tracking) return null;
  return (
    <div className="parts">
      <StepDecisionContext />
      {tracking.deviation && unresolved(tracking.deviation) ? (
        <section className="card" aria-labelledby="deviation-title">
          <h2 id="deviation-title">Deviation during implementation</h2>
          <RichText html={tracking.deviation.details} />
          <Decision type="deviation" tracking={tracking} mocId={mocId} />
        </section>
      ) : null}
      {tracking.extension && unresolved(tracking.extension) ? (
        <section className="card" aria-labelledby="extension-title">
          <h2 id="extension-title">Extension of the target date</h2>
          <p>
            New target date requested: <strong>{formatDate(tracking.extension.new_date)}</strong>. Reason:{" "}
            {tracking.extension.reason}
          </p>
          <Decision type="extension" tracking={tracking} mocId={mocId} />
        </section>
      ) : null}
    </div>
  );
}
