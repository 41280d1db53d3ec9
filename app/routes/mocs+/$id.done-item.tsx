import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { ErrorList, SubmitButton } from "~/components/submit";
import { formatDate } from "~/components/moc";
import { doneItemAction, doneItemLoader } from "~/web/done-item-page.server";

export const loader = doneItemLoader;
export const action = doneItemAction;

/** Mark one action-plan or manuals-plan item done, with a note and an optional evidence file. */
export default function DonePlanItem() {
  const { mocId, serial, state, item, settled, types } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const noteError = result?.field === "note" ? result.error : null;
  const fileError = result && result.field !== "note" ? result.error : null;
  return (
    <section className="card" aria-labelledby="done-item-title">
      <h2 id="done-item-title">Mark an item done</h2>
      <dl className="answers">
        <dt>MOC</dt>
        <dd>
          <Link to={`/mocs/${mocId}`}>MOC {serial}</Link> · {state}
        </dd>
        <dt>{item.kind}</dt>
        <dd style={{ overflowWrap: "anywhere" }}>{item.words}</dd>
        <dt>Due</dt>
        <dd>{item.due ? formatDate(item.due) : "No due date"}</dd>
      </dl>
      {settled ? (
        <p className="callout">{settled}</p>
      ) : (
        <Form method="post" encType="multipart/form-data" className="stack">
          <div className="field">
            <label htmlFor="done-note">What was done (note)</label>
            <textarea
              id="done-note"
              name="note"
              required
              rows={4}
              maxLength={5000}
              aria-describedby="done-note-error"
              aria-invalid={noteError ? true : undefined}
            />
            <ErrorList id="done-note-error" errors={noteError ? [noteError] : null} />
          </div>
          <div className="field">
            <label htmlFor="done-file">Evidence file (optional)</label>
            <input
              id="done-file"
              name="file"
              type="file"
              accept={types.map((t) => `.${t}`).join(",")}
              aria-describedby="done-file-hint done-file-error"
              aria-invalid={fileError ? true : undefined}
            />
            <p id="done-file-hint" className="hint">
              {types.join(", ").toUpperCase()} — at most 10 MB. It is kept with the MOC&apos;s attachments.
            </p>
            <ErrorList id="done-file-error" errors={fileError ? [fileError] : null} />
          </div>
          <div className="form-actions">
            <SubmitButton pendingText="Saving…">Mark done</SubmitButton>
            <Link to="/" className="button">
              Back to the dashboard
            </Link>
          </div>
        </Form>
      )}
    </section>
  );
}
