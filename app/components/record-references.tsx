/**
 * A record's "References" section (issue 42, docs/decisions/057-record-links-and-references.md),
 * shared by the MOC, PCR, archive and year-end review pages: each reference "PMS work order
 * WO-1234", a link when its type has a URL template (opened without the record's address or a
 * handle on this page: rel="noopener noreferrer"), plain text otherwise; for those who may, a remove
 * button on each and a form to add one (type and number, plain posts that work without JavaScript,
 * errors by field). The page's action handles the posts (app/web/references-page.server.ts).
 */
import { useActionData } from "@remix-run/react";
import { Form } from "~/components/form";
import { ErrorList, SubmitButton } from "~/components/submit";
import { REFERENCE_MAX } from "~/models/records/references.constants";

export const REFERENCE_ADD_INTENT = "add-reference";
export const REFERENCE_REMOVE_INTENT = "remove-reference";
export const REFERENCES_ANCHOR = "references";

/** A refused addition, as the page's action answers it. */
export type ReferencesRefusal = {
  typed: { type: string; ref: string };
  fieldErrors: { type?: string; ref?: string };
  formError: string | null;
};

export type ReferencesPanel = {
  references: { id: string; typeName: string; ref: string; url: string | null; addedBy: { name: string } | null }[];
  types: { id: string; name: string }[];
  mayManage: boolean;
};

/** One reference as it reads: a link to the outside record when its type has a template. */
export function ReferenceText({ reference }: { reference: { typeName: string; ref: string; url: string | null } }) {
  return (
    <>
      {reference.typeName}{" "}
      {reference.url ? (
        <a href={reference.url} target="_blank" rel="noopener noreferrer" className="break-anywhere">
          {reference.ref}
        </a>
      ) : (
        <span className="break-anywhere">{reference.ref}</span>
      )}
    </>
  );
}

export function RecordReferences({ panel }: { panel: ReferencesPanel | null | undefined }) {
  const answer = useActionData() as { references?: ReferencesRefusal } | undefined;
  if (!panel) return null;
  const refusal = answer?.references;
  const { references, types, mayManage } = panel;
  if (!mayManage && references.length === 0) return null;
  const errors = refusal?.fieldErrors ?? {};
  return (
    <section className="card" aria-labelledby="references-title" id={REFERENCES_ANCHOR}>
      <h2 id="references-title">References</h2>
      {references.length === 0 ? (
        <p className="empty">No incident, work order or other outside record is referenced yet.</p>
      ) : (
        <ul className="waiting-list">
          {references.map((r) => (
            <li key={r.id}>
              <div className="break-anywhere">
                <ReferenceText reference={r} />
                {r.addedBy ? <span className="muted"> · added by {r.addedBy.name}</span> : null}
              </div>
              {mayManage ? (
                <Form method="post" className="no-print">
                  <input type="hidden" name="intent" value={REFERENCE_REMOVE_INTENT} />
                  <input type="hidden" name="reference" value={r.id} />
                  <button type="submit" className="button button-small">
                    Remove<span className="visually-hidden"> {`${r.typeName} ${r.ref}`}</span>
                  </button>
                </Form>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {mayManage && types.length > 0 ? (
        <Form method="post" className="row no-print" aria-labelledby="add-reference-title">
          <h3 id="add-reference-title" className="visually-hidden">
            Add a reference
          </h3>
          <input type="hidden" name="intent" value={REFERENCE_ADD_INTENT} />
          {refusal?.formError ? (
            <p className="field-errors" role="alert">
              {refusal.formError}
            </p>
          ) : null}
          <div className="field">
            <label htmlFor="reference-type">Type</label>
            <select
              id="reference-type"
              name="type"
              defaultValue={refusal?.typed.type ?? types[0]?.id}
              aria-invalid={errors.type ? true : undefined}
              aria-describedby={errors.type ? "reference-type-error" : undefined}
            >
              {types.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
            <ErrorList id="reference-type-error" errors={errors.type ? [errors.type] : null} />
          </div>
          <div className="field">
            <label htmlFor="reference-number">Number</label>
            <input
              id="reference-number"
              name="ref"
              required
              maxLength={REFERENCE_MAX}
              autoComplete="off"
              defaultValue={refusal?.typed.ref ?? ""}
              aria-invalid={errors.ref ? true : undefined}
              aria-describedby={errors.ref ? "reference-number-error" : undefined}
            />
            <ErrorList id="reference-number-error" errors={errors.ref ? [errors.ref] : null} />
          </div>
          <SubmitButton className="button" pendingText="Adding…">
            Add the reference
          </SubmitButton>
        </Form>
      ) : null}
    </section>
  );
}
