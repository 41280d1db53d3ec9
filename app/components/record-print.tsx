/** A MOC or PCR laid out for paper (A4): the same record the PDF prints (app/models/records-out/record-print.server.ts). */
import { Link } from "@remix-run/react";
import { PRINT_KINDS } from "~/models/records-out/print-kinds";
import type { PrintBlock, PrintRecord } from "~/models/records-out/record-print.server";
import { useHydrated } from "./use-hydrated";
import { DataTable } from "./data-table";

/** "2026-03-04 09:15 UTC" (the model's times are UTC ISO strings). */
export const utc = (value: string | null) =>
  value ? `${new Date(value).toISOString().slice(0, 16).replace("T", " ")} UTC` : "—";

export const fileSize = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** One block of a printed record; a table's `links` make its first cells links, its `more` a line after it. */
function Block({ block }: { block: PrintBlock }) {
  if (block.kind === "fields") {
    return (
      <dl className="print-fields">
        {block.fields.map((field, i) => (
          <div key={`${field.label}-${i}`} className="print-field">
            <dt>{field.label}</dt>
            <dd>{field.value}</dd>
          </div>
        ))}
      </dl>
    );
  }
  if (block.rows.length === 0) return <p className="muted">{block.empty}</p>;
  const more = block.more ? (
    <p className="muted">{block.more.href ? <Link to={block.more.href}>{block.more.text}</Link> : block.more.text}</p>
  ) : null;
  const links = block.links;
  return (
    <>
      <DataTable
        className="print-table"
        caption={block.title}
        columns={block.columns}
        rows={block.rows}
        cell={
          links
            ? (text, row, column) => {
                const href = column === 0 ? links[row] : null;
                return href ? <Link to={href}>{text}</Link> : text;
              }
            : undefined
        }
      />
      {more}
    </>
  );
}

/** With JavaScript a Print button; without, how to print. */
export function PrintControl() {
  const enhanced = useHydrated();
  return enhanced ? (
    <button type="button" className="button button-primary" onClick={() => window.print()}>
      Print
    </button>
  ) : (
    <p className="hint">Print this page with your browser&apos;s Print command (Ctrl+P, or ⌘P on a Mac).</p>
  );
}

/**
 * A printed record's sections, each a headed region of its blocks (the record print views and the
 * review pack). `scrollable`: each section may scroll sideways on a phone, so it takes the keyboard's
 * focus to be scrolled with the arrow keys.
 */
export function PrintSections({ sections, scrollable }: { sections: PrintRecord["sections"]; scrollable?: boolean }) {
  return sections.map((section) => (
    <section
      key={section.id}
      className="print-section"
      aria-labelledby={`print-${section.id}`}
      tabIndex={scrollable ? 0 : undefined}
    >
      <h2 id={`print-${section.id}`}>{section.title}</h2>
      {section.note ? <p className="muted">{section.note}</p> : null}
      {section.blocks.map((block, i) => (
        <Block key={i} block={block} />
      ))}
    </section>
  ));
}

export function RecordPrint({ record, back }: { record: PrintRecord; back: string }) {
  const kind = PRINT_KINDS[record.kind];
  const base = `${kind.path}/${record.id}`;
  return (
    <article className="record-print" aria-labelledby="print-title">
      <div className="row no-print print-toolbar">
        <Link to={back} className="button">
          ← {kind.back}
        </Link>
        <a href={`${base}/pdf`} className="button">
          Download PDF
        </a>
        <PrintControl />
      </div>
      <header className="print-header">
        <p className="muted">{kind.label}</p>
        <h1 id="print-title">{record.title}</h1>
        <p>
          {kind.statusLabel}: <strong>{record.status}</strong> · Printed {utc(record.generatedAt)}
        </p>
      </header>
      <PrintSections sections={record.sections} />
      {kind.recordParts ? (
        <>
          <section className="print-section" aria-labelledby="print-signatures">
            <h2 id="print-signatures">Signatures</h2>
            {record.signatures.length === 0 ? (
              <p className="muted">No signatures yet.</p>
            ) : (
              <ol className="print-signatures">
                {record.signatures.map((s, i) => (
                  <li key={i} className={`print-signature print-signature-${s.state}`}>
                    <p className="print-signature-role">
                      <strong>{s.role}</strong>
                      {s.state === "unsigned"
                        ? " — not signed"
                        : s.state === "commented"
                          ? " — commented, not signed"
                          : ""}
                    </p>
                    <dl className="print-fields">
                      <div className="print-field">
                        <dt>Name</dt>
                        <dd>{s.name ?? "—"}</dd>
                      </div>
                      <div className="print-field">
                        <dt>Position or role</dt>
                        <dd>{s.position ?? s.role}</dd>
                      </div>
                      <div className="print-field">
                        <dt>Time (UTC)</dt>
                        <dd>{utc(s.at)}</dd>
                      </div>
                      <div className="print-field">
                        <dt>Meaning</dt>
                        <dd>{s.meaning}</dd>
                      </div>
                      {s.image ? (
                        <div className="print-field">
                          <dt>Signature</dt>
                          <dd>
                            <img
                              src={s.image}
                              alt={`Drawn signature of ${s.name ?? s.role}`}
                              className="signature-image"
                            />
                          </dd>
                        </div>
                      ) : s.mark ? (
                        <div className="print-field">
                          <dt>Signature</dt>
                          <dd className={s.mark.startsWith("Drawn signature") ? undefined : "signature-typed"}>
                            {s.mark}
                          </dd>
                        </div>
                      ) : null}
                      {s.comment ? (
                        <div className="print-field">
                          <dt>Comment</dt>
                          <dd>{s.comment}</dd>
                        </div>
                      ) : null}
                      {s.reconstructed ? (
                        <div className="print-field">
                          <dt>Record</dt>
                          <dd>{s.reconstructed}</dd>
                        </div>
                      ) : null}
                    </dl>
                  </li>
                ))}
              </ol>
            )}
          </section>
          <section className="print-section" aria-labelledby="print-history">
            <h2 id="print-history">Audit trail</h2>
            {record.history.length === 0 ? (
              <p className="muted">No activity yet.</p>
            ) : (
              <table className="print-table">
                <thead>
                  <tr>
                    <th scope="col">Time (UTC)</th>
                    <th scope="col">Who</th>
                    <th scope="col">What</th>
                    <th scope="col">Details</th>
                  </tr>
                </thead>
                <tbody>
                  {record.history.map((entry, i) => (
                    <tr key={i}>
                      <td className="nowrap">{utc(entry.at)}</td>
                      <td>{entry.who}</td>
                      <td>{entry.action}</td>
                      <td>{entry.detail ?? ""}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <section className="print-section" aria-labelledby="print-attachments">
            <h2 id="print-attachments">Attachments</h2>
            {record.attachments.length === 0 ? (
              <p className="muted">No attachments.</p>
            ) : (
              <table className="print-table">
                <thead>
                  <tr>
                    <th scope="col">File</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Size</th>
                    <th scope="col">Uploaded</th>
                    <th scope="col">SHA-256</th>
                  </tr>
                </thead>
                <tbody>
                  {record.attachments.map((a, i) => (
                    <tr key={i}>
                      <td>
                        {a.name}
                        {a.removed ? " (removed)" : ""}
                        <br />
                        <span className="muted">{a.contentType}</span>
                      </td>
                      <td>{a.kind}</td>
                      <td className="nowrap">{fileSize(a.size)}</td>
                      <td>
                        {a.uploadedBy ?? "—"}
                        <br />
                        {utc(a.uploadedAt)}
                      </td>
                      <td className="hash">{a.sha256 ?? "—"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        </>
      ) : null}
    </article>
  );
}
