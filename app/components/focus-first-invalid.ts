/** Focus after a refused submission, apart from the step form so pages with other forms load only this. */
import { useEffect, useRef } from "react";

/**
 * After a submission with errors (the browser's check or the server's answer), focus moves to the
 * first invalid field, so a keyboard or screen-reader user lands where the fix is; conform only
 * does it for inputs named exactly like the error (not radio groups, editors or `{ value }` fields).
 */
export function useFocusFirstInvalid(formId: string, errorsKey: unknown) {
  const submitted = useRef(false);
  useEffect(() => {
    const form = document.getElementById(formId);
    if (!form) return;
    const onSubmit = () => {
      submitted.current = true;
    };
    form.addEventListener("submit", onSubmit, true);
    return () => form.removeEventListener("submit", onSubmit, true);
  }, [formId]);
  const key = JSON.stringify(errorsKey ?? null);
  useEffect(() => {
    if (!submitted.current) return;
    submitted.current = false;
    const form = document.getElementById(formId);
    const invalid = form?.querySelector<HTMLElement>('[aria-invalid="true"]');
    if (!invalid) return;
    const target =
      invalid.tagName === "FIELDSET"
        ? (invalid.querySelector<HTMLElement>("input:not([type=hidden]), select, textarea") ?? invalid)
        : invalid;
    target.focus();
  }, [formId, key]);
}
