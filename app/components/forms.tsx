import type { FieldMetadata } from "@conform-to/react";
import { getInputProps, getSelectProps } from "@conform-to/react";
import { ErrorList } from "./submit";

// A form with conform fields takes its buttons and errors from here too; a page that only posts
// a button imports ./submit, which leaves conform out of its code (scripts/chunks.ts).
export { DefaultSubmit, ErrorList, SubmitButton } from "./submit";

type InputType = "text" | "email" | "password" | "date" | "search" | "number" | "url" | "tel";

/** A labelled input whose errors are announced with it (aria-describedby / aria-invalid). */
export function Field({
  meta,
  label,
  type = "text",
  hint,
  autoComplete,
  autoFocus,
  required,
}: {
  /** A text field, or a number one (a year, a threshold) that posts as text. */
  meta: FieldMetadata<string | number | undefined>;
  label: string;
  type?: InputType;
  hint?: string;
  autoComplete?: string;
  autoFocus?: boolean;
  required?: boolean;
}) {
  const props = getInputProps(meta, { type, ariaDescribedBy: hint ? `${meta.id}-hint` : undefined });
  return (
    <div className="field">
      <label htmlFor={meta.id}>
        {label}
        {required ? <span className="required"> (required)</span> : null}
      </label>
      <input
        {...props}
        key={props.key}
        autoComplete={autoComplete}
        autoFocus={autoFocus}
        required={required ?? props.required}
      />
      {hint ? (
        <p id={`${meta.id}-hint`} className="hint">
          {hint}
        </p>
      ) : null}
      <ErrorList id={meta.errorId} errors={meta.errors} />
    </div>
  );
}

export function SelectField({
  meta,
  label,
  options,
  placeholder,
  required,
}: {
  meta: FieldMetadata<string | null | undefined>;
  label: string;
  options: readonly { value: string; label: string }[];
  placeholder?: string;
  required?: boolean;
}) {
  const props = getSelectProps(meta);
  return (
    <div className="field">
      <label htmlFor={meta.id}>
        {label}
        {required ? <span className="required"> (required)</span> : null}
      </label>
      <select {...props} key={props.key}>
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <ErrorList id={meta.errorId} errors={meta.errors} />
    </div>
  );
}
