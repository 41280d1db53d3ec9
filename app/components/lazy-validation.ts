/**
 * A form's browser-side validation, loaded when the form is first used rather than with the page
 * (docs/decisions/032-pages-at-sea.md). zod and its conform adapter are about a quarter of a page's
 * compressed JavaScript; a page that is only read never fetches them. The first focus, tap or key
 * in the form fetches the form's own schema module (and, once for every form, zod); until it has
 * arrived, a submission goes to the server, which validates with the same schema and answers with
 * the same messages, as it does without JavaScript.
 *
 * Forms use it through `useSchemaForm` (app/components/schema-form.ts), which types the form by
 * the same schema:
 *
 *   const [form, fields] = useSchemaForm({
 *     id: "hseq-step",
 *     schema: () => import("~/models/moc/moc.schema").then((m) => m.hseqFormSchema),
 *     ...
 *   });
 */
import type { Submission } from "@conform-to/react";
import { useEffect, useRef, useState } from "react";
import type { z } from "zod";

type Validate<S extends z.ZodType> = (context: { formData: FormData }) => Submission<z.input<S>, string[], z.output<S>>;
export type SchemaLoader<S extends z.ZodType = z.ZodType> = () => Promise<S>;

const WARM_EVENTS = ["focusin", "pointerdown", "keydown"] as const;

/** Loads the schema and the adapter; the validator, or null when the network failed (the server validates). */
async function loadValidator<S extends z.ZodType>(load: SchemaLoader<S>): Promise<Validate<S> | null> {
  try {
    const [schema, { parseWithZod }] = await Promise.all([load(), import("@conform-to/zod/v4")]);
    return ({ formData }) => parseWithZod(formData, { schema });
  } catch {
    return null;
  }
}

/**
 * conform's `onValidate` for the form `formId`: undefined until the form is first used and its
 * schema has arrived, then the schema's validation.
 */
export function useLazyValidation<S extends z.ZodType>(formId: string, load: SchemaLoader<S>): Validate<S> | undefined {
  const [validate, setValidate] = useState<{ fn: Validate<S> } | null>(null);
  // A fresh arrow on each render: the latest is used when the form is first touched.
  const loader = useRef(load);
  loader.current = load;
  useEffect(() => {
    let cancelled = false;
    let started = false;
    const warm = (event: Event) => {
      if (started) return;
      const target = event.target instanceof Element ? event.target : null;
      const form = document.getElementById(formId);
      if (!form || !target || !(form === target || form.contains(target) || target.getAttribute("form") === formId)) {
        return;
      }
      started = true;
      for (const name of WARM_EVENTS) document.removeEventListener(name, warm, true);
      void loadValidator(loader.current).then((fn) => {
        if (fn && !cancelled) setValidate({ fn });
      });
    };
    for (const name of WARM_EVENTS) document.addEventListener(name, warm, true);
    return () => {
      cancelled = true;
      for (const name of WARM_EVENTS) document.removeEventListener(name, warm, true);
    };
  }, [formId]);
  return validate?.fn;
}
