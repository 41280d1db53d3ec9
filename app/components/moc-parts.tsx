/**
 * A MOC's parts on the record page, laid out from the one description the print view and the PDF
 * read too (app/models/moc/moc-parts.server.ts): nothing here adds a field of its own.
 */
import type { ReactNode } from "react";
import type { MocPart, MocTable, PartField } from "~/models/moc/moc-parts.server";
import { RichText } from "./moc-record";
import { utcText } from "~/models/shared/utc-text";
import { DataTable } from "./data-table";

function FieldValue({ field }: { field: PartField }) {
  if (field.html !== undefined) return field.html ? <RichText html={field.html} /> : <span className="muted">—</span>;
  return field.text === "—" ? <span className="muted">—</span> : <>{field.text}</>;
}

export function PartFields({ fields }: { fields: PartField[] }) {
  return (
    <dl className="answers" data-part-fields>
      {fields.map((field) => (
        <div key={field.key} style={{ display: "contents" }}>
          <dt>{field.label}</dt>
          <dd className="plain-text">
            <FieldValue field={field} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * One part: its heading with who submitted it and when, its answers, and the history beneath
 * them. `folded`: a finished part, a <details> that opens on its heading (docs/decisions/032-pages-at-sea.md).
 */
export function PartView({ part, folded = false }: { part: MocPart; folded?: boolean }) {
  const headingId = part.id;
  const heading = (
    <h2 id={headingId}>
      {part.title}
      {part.state === "submitted" && part.when ? (
        <span className="muted" style={{ fontSize: "0.85rem", fontWeight: 400 }}>
          {part.id === "deviations" ? "Requested" : "Submitted"} {utcText(part.when)}
          {part.who ? ` by ${part.who}` : ""}
        </span>
      ) : part.state === "draft" ? (
        <span className="badge">Draft</span>
      ) : null}
    </h2>
  );
  const body: ReactNode = (
    <>
      <PartFields fields={part.fields} />
      {part.history ? (
        <>
          <h3>{part.history.title}</h3>
          <ol className="timeline" data-part-history>
            {part.history.entries.map((entry, i) => (
              <li key={i}>
                <strong>{entry.what}</strong> — {entry.who}
                {entry.comment ? (
                  <p className="muted plain-text" style={{ margin: "0.2rem 0 0" }}>
                    “{entry.comment}”
                  </p>
                ) : null}
                <time dateTime={entry.at}>{utcText(entry.at)}</time>
              </li>
            ))}
          </ol>
        </>
      ) : null}
    </>
  );
  if (folded) {
    return (
      <details className="card part" aria-labelledby={headingId} data-part={part.id}>
        <summary>{heading}</summary>
        {body}
      </details>
    );
  }
  return (
    <section className="card part" aria-labelledby={headingId} data-part={part.id}>
      {heading}
      {body}
    </section>
  );
}

/** One of the description's tables (the impact assessment, a plan), with the page's own heading extras. */
export function TableView({ table, extra, children }: { table: MocTable; extra?: ReactNode; children?: ReactNode }) {
  return (
    <section className="card table-wrap" aria-labelledby={`${table.id}-title`} data-part={table.id}>
      <h2 id={`${table.id}-title`}>
        {table.title}
        {extra}
      </h2>
      {table.rows.length === 0 ? (
        <p className="muted">{table.empty}</p>
      ) : (
        <DataTable columns={table.columns} rows={table.rows} />
      )}
      {children}
    </section>
  );
}
