import { getFormProps, type DefaultValue, type FormMetadata, type SubmissionResult } from "@conform-to/react";
import { Link } from "@remix-run/react";
import { Form } from "~/components/form";
import type { ReactNode } from "react";
import { StepDecisionContext } from "./decision-context";
import { ErrorList, SubmitButton } from "./submit";
import { useFocusFirstInvalid } from "./focus-first-invalid";
import type { z } from "zod";
import type { SchemaLoader } from "./lazy-validation";
import { useSchemaForm, type FormShape } from "./schema-form";

export { useFocusFirstInvalid };

/** The frame of a step form: heading, guidance, fields, submit and cancel. */
/**
 * conform for a step form, typed by and validated in the browser with the schema the server uses,
 * loaded when the form is first used (app/components/schema-form.ts).
 */
export function useStepForm<S extends z.ZodType>(
  id: string,
  schema: SchemaLoader<S>,
  lastResult: SubmissionResult<string[]> | null | undefined,
  defaultValue?: DefaultValue<FormShape<S>>,
) {
  return useSchemaForm({ id, schema, lastResult, defaultValue });
}

export function StepForm<Shape extends Record<string, unknown>>({
  form,
  title,
  intro,
  mocId,
  submitLabel,
  children,
}: {
  form: FormMetadata<Shape, string[]>;
  title: string;
  intro: ReactNode;
  mocId: string;
  submitLabel: string;
  children: ReactNode;
}) {
  useFocusFirstInvalid(form.id, form.allErrors);
  return (
    <section className="card" aria-labelledby={`${form.id}-title`}>
      <h2 id={`${form.id}-title`}>{title}</h2>
      <p className="muted">{intro}</p>
      <StepDecisionContext />
      <Form method="post" {...getFormProps(form)}>
        <ErrorList id={form.errorId} errors={form.errors} />
        <div className="stack">{children}</div>
        <div className="form-actions">
          <SubmitButton pendingText="Submitting…">{submitLabel}</SubmitButton>
          <Link to={`/mocs/${mocId}`} className="button">
            Cancel
          </Link>
        </div>
      </Form>
    </section>
  );
}
