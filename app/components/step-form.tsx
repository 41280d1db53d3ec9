import { getFormProps, useForm, type FormMetadata, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, Link } from "@remix-run/react";
import type { ReactNode } from "react";
import type { z } from "zod";
import { ErrorList, SubmitButton } from "./forms";

/** The frame of a step form: heading, guidance, fields, submit and cancel. */
/** conform for a step form, validated in the browser with the schema the server uses. */
export function useStepForm(
  id: string,
  schema: z.ZodType,
  lastResult: SubmissionResult<string[]> | null | undefined,
  defaultValue?: Record<string, unknown>,
) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- field shapes vary by step
  return useForm<Record<string, any>>({
    id,
    lastResult,
    defaultValue,
    onValidate: ({ formData }) => parseWithZod(formData, { schema }) as never,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
  });
}

export function StepForm({
  form,
  title,
  intro,
  mocId,
  submitLabel,
  children,
}: {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any step's form
  form: FormMetadata<any, string[]>;
  title: string;
  intro: ReactNode;
  mocId: string;
  submitLabel: string;
  children: ReactNode;
}) {
  return (
    <section className="card" aria-labelledby={`${form.id}-title`}>
      <h2 id={`${form.id}-title`}>{title}</h2>
      <p className="muted">{intro}</p>
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
