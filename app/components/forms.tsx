import type { FieldMetadata } from "@conform-to/react";
import { getInputProps, getSelectProps } from "@conform-to/react";
import { useNavigation } from "@remix-run/react";
import type { ReactNode } from "react";

export function ErrorList({ id, errors }: { id?: string; errors?: string[] | null }) {
  if (!errors?.length) return null;
  return (
    <ul id={id} className="field-errors">
      {errors.map((error) => (
        <li key={error}>{error}</li>
      ))}
    </ul>
  );
}

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

/**
 * The form's default button, first in the form and out of sight: Enter in a text box then saves,
 * instead of pressing the first visible submit button (a row's "Remove" in a rows editor).
 */
export function DefaultSubmit({ children }: { children: ReactNode }) {
  return (
    <button type="submit" className="default-submit" tabIndex={-1} aria-hidden="true">
      {children}
    </button>
  );
}

/** A submit button that shows progress while its form is being sent. */
export function SubmitButton({
  children,
  pendingText,
  name,
  value,
  className = "button button-primary",
  formAction,
}: {
  children: ReactNode;
  pendingText?: string;
  name?: string;
  value?: string;
  className?: string;
  formAction?: string;
}) {
  const navigation = useNavigation();
  const pending =
    navigation.state === "submitting" &&
    (name === undefined || navigation.formData?.get(name) === value) &&
    (formAction === undefined || navigation.formAction === formAction);
  return (
    <button
      type="submit"
      className={className}
      name={name}
      value={value}
      aria-disabled={pending}
      data-pending={pending || undefined}
    >
      {pending ? (pendingText ?? "Saving…") : children}
    </button>
  );
}
