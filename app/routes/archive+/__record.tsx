/** One legacy record's pages, for both kinds: the record, the new/edit form, the delete confirmation (not a route: `__`). */
import { getFormProps, getInputProps } from "@conform-to/react";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { RecordReferences } from "~/components/record-references";
import { RecordLinks } from "~/components/record-links";
import { Form } from "~/components/form";
import { ARCHIVE, ARCHIVE_LIMITS } from "~/models/archive/archive.constants";
import { capitalise } from "~/models/shared/labels";
import { useSchemaForm } from "~/components/schema-form";
import type { archivePageSchemas } from "~/models/archive/archive.schema";
import type { archiveDeleteLoader, archiveEditAction, archiveEditLoader, archiveRecordLoader } from "./pages.server";
import { LegacyStatusBadge } from "~/components/archive";
import { TextField } from "~/components/fields";
import { ErrorList, Field, SelectField, SubmitButton } from "~/components/forms";
import { formatDate, formatDateTime } from "~/components/moc";
import { AttachmentLinks, listPath, recordPath } from "./__list";

type ArchivePageSchema = (typeof archivePageSchemas)[keyof typeof archivePageSchemas];

function LongText({ text }: { text: string | undefined }) {
  return text ? <p className="archive-text">{text}</p> : <p className="muted">None recorded.</p>;
}

export function ArchiveRecordPage() {
  const { kind, doc, canWrite, references, links } = useLoaderData<typeof archiveRecordLoader>();
  const info = ARCHIVE[kind];
  return (
    <>
      <p className="no-print">
        <Link to={listPath(kind)}>← {capitalise(info.plural)}</Link>
      </p>
      <header className="record-header">
        <div>
          <h1>
            {capitalise(info.label)} {doc.serial_num}
          </h1>
          <p className="owner-line">
            <LegacyStatusBadge status={doc.status} /> {doc.title}
          </p>
        </div>
        {canWrite ? (
          <div className="row no-print">
            <Link to="edit" className="button">
              Edit
            </Link>
            <Link to="delete" className="button button-danger">
              Delete
            </Link>
          </div>
        ) : null}
      </header>
      <section className="card" aria-labelledby="archive-details">
        <h2 id="archive-details">Record</h2>
        <dl className="answers">
          <dt>Serial number</dt>
          <dd>{doc.serial_num}</dd>
          <dt>Title</dt>
          <dd>{doc.title}</dd>
          {info.hasDepartment ? (
            <>
              <dt>Department</dt>
              <dd>{doc.department || "—"}</dd>
            </>
          ) : null}
          <dt>Originator</dt>
          <dd>{doc.originator_name}</dd>
          <dt>Date raised</dt>
          <dd>{formatDate(doc.date_raised)}</dd>
          <dt>Date closed</dt>
          <dd>{formatDate(doc.date_closed)}</dd>
          <dt>Status</dt>
          <dd>
            <LegacyStatusBadge status={doc.status} />
          </dd>
        </dl>
      </section>
      <section className="card" aria-labelledby="archive-text">
        <h2 id="archive-text">{info.textLabel}</h2>
        <LongText text={doc[info.textField]} />
      </section>
      <section className="card" aria-labelledby="archive-attachments">
        <h2 id="archive-attachments">Attachments</h2>
        <AttachmentLinks urls={doc.attachments} />
      </section>
      <section className="card" aria-labelledby="archive-notes">
        <h2 id="archive-notes">Notes</h2>
        <LongText text={doc.notes} />
      </section>
      <RecordReferences panel={references} />
      <RecordLinks panel={links} here={recordPath(kind, doc._id)} />
      <p className="muted">
        Added {doc.created_by ? `by ${doc.created_by.name} ` : ""}on {formatDateTime(doc.createdAt)}
        {doc.updatedAt !== doc.createdAt
          ? `; last changed ${doc.updated_by ? `by ${doc.updated_by.name} ` : ""}on ${formatDateTime(doc.updatedAt)}`
          : ""}
        .
      </p>
    </>
  );
}

/** New and edit: the same form; `doc` is the record being edited. */
export function ArchiveFormPage() {
  const { kind, doc, departments } = useLoaderData<typeof archiveEditLoader>();
  const lastResult = useActionData<typeof archiveEditAction>();
  const info = ARCHIVE[kind];
  // Every field of the form is a string (attachments one link per line); which fields, the kind says.
  const [form, fields] = useSchemaForm<ArchivePageSchema, Record<string, string | undefined>>({
    id: `archive-${kind}-form`,
    schema: () => import("~/models/archive/archive.schema").then((m) => m.archivePageSchemas[kind]),
    lastResult,
    defaultValue: doc
      ? {
          ...Object.fromEntries(info.fields.map((f) => [f, doc[f] as string | undefined])),
          date_closed: doc.date_closed ?? "",
          attachments: doc.attachments.join("\n"),
        }
      : { status: "open" },
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
  });
  const back = doc ? recordPath(kind, doc._id) : listPath(kind);
  const department = fields.department!;
  return (
    <>
      <p>
        <Link to={back}>← {doc ? `${capitalise(info.label)} ${doc.serial_num}` : capitalise(info.plural)}</Link>
      </p>
      <h1>{doc ? `Edit ${info.label} ${doc.serial_num}` : `New ${info.label}`}</h1>
      <p className="muted">A record copied from paper. Fields marked required must be filled in.</p>
      <Form method="post" {...getFormProps(form)} className="card">
        <ErrorList id={form.errorId} errors={form.errors} />
        <div className="form-grid">
          <Field meta={fields.serial_num!} label="Serial number" required hint="As written on the paper record" />
          <Field meta={fields.title!} label="Title" required />
          <Field meta={fields.originator_name!} label="Originator" required hint="Who raised it" />
          {info.hasDepartment ? (
            <div className="field">
              <label htmlFor={department.id}>Department</label>
              <input {...getInputProps(department, { type: "text" })} key={department.key} list="archive-departments" />
              <datalist id="archive-departments">
                {departments.map((d) => (
                  <option key={d} value={d} />
                ))}
              </datalist>
              <ErrorList id={department.errorId} errors={department.errors} />
            </div>
          ) : null}
          <Field meta={fields.date_raised!} label="Date raised" type="date" required />
          <Field
            meta={fields.date_closed!}
            label="Date closed"
            type="date"
            hint="Leave empty while the record is open"
          />
          <SelectField
            meta={fields.status!}
            label="Status"
            options={[
              { value: "open", label: "Open" },
              { value: "closed", label: "Closed" },
            ]}
          />
        </div>
        <div className="stack archive-long-fields">
          <TextField meta={fields[info.textField]} direct multiline label={info.textLabel} />
          <TextField
            meta={fields.attachments}
            direct
            multiline
            label="Attachments"
            hint={`Links to the scanned documents, one per line (http:// or https://), at most ${ARCHIVE_LIMITS.attachments}`}
          />
          <TextField meta={fields.notes} direct multiline label="Notes" />
        </div>
        <div className="form-actions">
          <SubmitButton pendingText="Saving…">{doc ? "Save changes" : `Add ${info.label}`}</SubmitButton>
          <Link to={back} className="button">
            Cancel
          </Link>
        </div>
      </Form>
    </>
  );
}

/** The confirmation before a record is deleted: a page of its own, so it works without JavaScript. */
export function ArchiveDeletePage() {
  const { kind, doc } = useLoaderData<typeof archiveDeleteLoader>();
  const info = ARCHIVE[kind];
  return (
    <section className="card archive-confirm" aria-labelledby="delete-title">
      <h1 id="delete-title">
        Delete {info.label} {doc.serial_num}?
      </h1>
      <p>
        <strong>{doc.title}</strong>, raised {formatDate(doc.date_raised)} by {doc.originator_name}.
      </p>
      <p>The record is removed from the archive permanently. This cannot be undone.</p>
      <Form method="post" className="form-actions">
        <SubmitButton className="button button-danger" pendingText="Deleting…">
          Delete permanently
        </SubmitButton>
        <Link to={recordPath(kind, doc._id)} className="button">
          Keep it
        </Link>
      </Form>
    </section>
  );
}
