import { Link } from "@remix-run/react";
import { Form } from "~/components/form";
import type { ReactNode } from "react";
import { SubmitButton } from "./submit";

/** The `?delete` address that asks before a destructive action, with the card in view. */
export const CONFIRM_DELETE_PARAM = "delete";
export const CONFIRM_DELETE_ID = "confirm-delete";

/**
 * The confirmation step of a destructive action, as a page state (`?delete`) rather than a
 * `confirm()` dialog, so it asks first with JavaScript off too: the button posts the action with
 * `confirmed=yes`, and the action refuses a delete without it.
 */
export function ConfirmDelete({
  title,
  children,
  confirmLabel,
  cancelTo,
  action,
  fields = {},
  reason,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  cancelTo: string;
  action?: string;
  fields?: Record<string, string>;
  /** Asks for the reason (posted as `reason`) with this label. */
  reason?: string;
}) {
  return (
    <section id={CONFIRM_DELETE_ID} className="card confirm-card" aria-labelledby={`${CONFIRM_DELETE_ID}-title`}>
      <h2 id={`${CONFIRM_DELETE_ID}-title`}>{title}</h2>
      {children}
      <div className="row">
        <Form method="post" action={action}>
          {Object.entries(fields).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <input type="hidden" name="confirmed" value="yes" />
          {reason ? (
            <div className="field">
              <label htmlFor={`${CONFIRM_DELETE_ID}-reason`}>{reason}</label>
              <textarea id={`${CONFIRM_DELETE_ID}-reason`} name="reason" rows={3} required maxLength={5000} />
            </div>
          ) : null}
          <SubmitButton name="intent" value="delete" className="button button-danger" pendingText="Deleting…">
            {confirmLabel}
          </SubmitButton>
        </Form>
        <Link to={cancelTo} className="button" replace>
          Cancel
        </Link>
      </div>
    </section>
  );
}
