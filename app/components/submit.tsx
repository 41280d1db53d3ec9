/**
 * A form's errors and buttons, without conform: a page that posts a button (the record page's sign
 * and close forms) loads these and not the form library (scripts/chunks.ts). Forms import them from
 * ./forms, which re-exports them.
 */
import { Link, useNavigation } from "@remix-run/react";
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

/** A MOC page's form buttons: its submit button, and back to the MOC's record. */
export function MocFormActions({
  mocId,
  pendingText,
  children,
}: {
  mocId: string;
  pendingText: string;
  children: ReactNode;
}) {
  return (
    <div className="form-actions">
      <SubmitButton pendingText={pendingText}>{children}</SubmitButton>
      <Link to={`/mocs/${mocId}`} className="button">
        Back to the MOC
      </Link>
    </div>
  );
}
