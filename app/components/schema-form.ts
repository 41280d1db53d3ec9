/**
 * conform's `useForm` typed by the zod schema the form posts to: its fields are the schema's input
 * (`fields.title`, a typo fails to compile), its default value is checked against that input, and
 * its validation is the schema's own, loaded when the form is first used
 * (app/components/lazy-validation.ts). Written once so no form declares its shape by hand or casts
 * its validator.
 */
import { useForm, type DefaultValue, type SubmissionResult } from "@conform-to/react";
import type { z } from "zod";
import { useLazyValidation, type SchemaLoader } from "./lazy-validation";

/**
 * The fields conform sees for schema `S`: its input object, except that a field zod takes as
 * `unknown` (a preprocessed one: `optionalField`, a blank rich text) is taken as it comes out, which
 * is the shape its controls post. A schema whose input is not an object gives fields of any name.
 */
export type FormShape<S extends z.ZodType> =
  z.input<S> extends Record<string, unknown> ? MergedShape<z.input<S>, z.output<S>> : Record<string, unknown>;

type MergedShape<In, Out> = {
  [K in keyof In]: unknown extends In[K] ? (K extends keyof Out ? Out[K] : unknown) : In[K];
};

export type SchemaFormOptions<S extends z.ZodType, Shape extends Record<string, unknown>> = {
  id: string;
  /** The form's schema, loaded when the form is first used. */
  schema: SchemaLoader<S>;
  /** The action's answer (`submission.reply()`), errors and entered values. */
  lastResult: SubmissionResult<string[]> | null | undefined;
  /** Checked against the shape, never read to infer it (a default leaves fields out). */
  defaultValue?: DefaultValue<NoInfer<Shape>>;
  shouldValidate?: "onSubmit" | "onBlur" | "onInput";
  shouldRevalidate?: "onSubmit" | "onBlur" | "onInput";
};

/**
 * A form over `S`. `Shape` is the schema's input unless a form whose field names are not known
 * statically (a table of rows whose columns are data) names a looser one.
 */
export function useSchemaForm<S extends z.ZodType, Shape extends Record<string, unknown> = FormShape<S>>(
  options: SchemaFormOptions<S, Shape>,
) {
  return useForm<Shape, z.output<S>>({
    id: options.id,
    lastResult: options.lastResult,
    defaultValue: options.defaultValue,
    onValidate: useLazyValidation(options.id, options.schema),
    shouldValidate: options.shouldValidate ?? "onSubmit",
    shouldRevalidate: options.shouldRevalidate ?? "onInput",
  });
}
