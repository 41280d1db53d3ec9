import { getFormProps, getInputProps, useForm, type SubmissionResult } from "@conform-to/react";
import type { z } from "zod";
import type { pcrPageSchema } from "~/models/pcr/pcr.schema";
import { Form } from "~/components/form";
import { useLazyValidation } from "~/components/lazy-validation";
import { CheckboxGroupField, RichTextField, TextField, type UserOption } from "./fields";
import { ErrorList, SubmitButton } from "./submit";
import { useFocusFirstInvalid } from "./focus-first-invalid";

/** The PCR form: new and edit. */
export function PcrForm({
  users,
  lastResult,
  defaultValue,
  submitLabel,
}: {
  users: UserOption[];
  lastResult: SubmissionResult<string[]> | null | undefined;
  defaultValue?: Record<string, unknown>;
  submitLabel: string;
}) {
  const [form, fields] = useForm<z.input<typeof pcrPageSchema>>({
    id: "pcr-form",
    lastResult,
    defaultValue,
    onValidate: useLazyValidation("pcr-form", () => import("~/models/pcr/pcr.schema").then((m) => m.pcrPageSchema)),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
  const flag = (key: "new-suggestion" | "procedure-change" | "safety-critical", label: string) => {
    const meta = fields[key];
    return (
      <label className="checkbox" key={key}>
        <input {...getInputProps(meta, { type: "checkbox" })} key={meta.key} />
        {label}
      </label>
    );
  };
  useFocusFirstInvalid(form.id, form.allErrors);
  return (
    <Form method="post" {...getFormProps(form)} className="card">
      <ErrorList id={form.errorId} errors={form.errors} />
      <div className="stack">
        <TextField
          meta={fields.title}
          direct
          label="Title"
          hint="3 to 120 characters, how people will recognise it in lists and emails."
        />
        <fieldset className="field">
          <legend>Type of request</legend>
          <div className="choice-row">
            {flag("new-suggestion", "New suggestion")}
            {flag("procedure-change", "Procedure change")}
            {flag("safety-critical", "Safety-critical")}
          </div>
        </fieldset>
        <RichTextField meta={fields["manual-procedure"]} direct label="Manual / procedure concerned" />
        <RichTextField meta={fields["suggestion-details"]} direct label="Suggestion details" />
        <RichTextField meta={fields["reason-for-change"]} direct label="Reason for change" />
        <CheckboxGroupField
          meta={fields.parties}
          direct
          label="Affected parties (they sign too)"
          options={users.map((u) => ({ value: u._id, label: u.name }))}
        />
      </div>
      <div className="form-actions">
        <SubmitButton pendingText="Saving…">{submitLabel}</SubmitButton>
      </div>
    </Form>
  );
}
