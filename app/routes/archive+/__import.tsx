/**
 * CSV import page, for both kinds. Step one uploads a file and shows the check: the rejected rows
 * with their lines and reasons, or the records about to be added. Step two (only when every row is
 * valid) confirms, carrying the checked file in a hidden field; nothing is saved before that. Not a
 * route (`__`).
 */
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { Form } from "~/components/form";
import {
  ARCHIVE,
  COLUMN_HELP,
  CSV_LIMITS,
  isRequiredField,
  type ArchiveKind,
} from "~/models/archive/archive.constants";
import { LegacyStatusBadge } from "~/components/archive";
import { ErrorList, SubmitButton } from "~/components/submit";
import { formatDate } from "~/components/moc";
import { capitalise } from "~/models/shared/labels";
import { listPath } from "./__list";
import type { archiveImportAction, archiveImportLoader, ImportReport } from "./pages.server";

function Columns({ kind }: { kind: ArchiveKind }) {
  const info = ARCHIVE[kind];
  return (
    <details className="card">
      <summary>The columns of the file</summary>
      <p>
        The first row names the columns (in any order). Optional columns can be left out. A file can hold at most{" "}
        {CSV_LIMITS.rows.toLocaleString("en-GB")} records and 1 MiB, as UTF-8 text.
      </p>
      <div className="table-wrap">
        <table className="stack-on-phone">
          <caption className="visually-hidden">CSV columns</caption>
          <thead>
            <tr>
              <th scope="col">Column</th>
              <th scope="col">Required</th>
              <th scope="col">Holds</th>
            </tr>
          </thead>
          <tbody>
            {info.fields.map((f) => (
              <tr key={f}>
                <td data-label="Column">
                  <code>{f}</code>
                </td>
                <td data-label="Required">{isRequiredField(f) ? "Yes" : "No"}</td>
                <td data-label="Holds">{COLUMN_HELP[f]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="hint">
        Example: <code>{info.fields.join(",")}</code>
      </p>
    </details>
  );
}

function Rejected({ report }: { report: ImportReport }) {
  return (
    <section className="card" aria-labelledby="import-rejected">
      <h2 id="import-rejected">
        {report.rejectedCount} of {report.rowCount} {report.rowCount === 1 ? "row is" : "rows are"} rejected
      </h2>
      <div className="table-wrap">
        <table className="stack-on-phone import-report">
          <caption className="visually-hidden">Rejected rows</caption>
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">Serial</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {report.rejected.map((row) => (
              <tr key={row.line}>
                <td data-label="Line">Line {row.line}</td>
                <td data-label="Serial">{row.serial_num ?? <span className="muted">—</span>}</td>
                <td data-label="Why">
                  <ul className="import-problems">
                    {row.problems.map((p) => (
                      <li key={p}>{p}</li>
                    ))}
                  </ul>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {report.rejectedCount > report.rejected.length ? (
        <p className="muted">
          The first {report.rejected.length} are shown; fix them and check the file again to see the rest.
        </p>
      ) : null}
    </section>
  );
}

function Ready({ kind, report }: { kind: ArchiveKind; report: ImportReport }) {
  const info = ARCHIVE[kind];
  const noun = report.validCount === 1 ? info.label : info.plural;
  return (
    <section className="card" aria-labelledby="import-ready">
      <h2 id="import-ready">
        {report.validCount === 1 ? "The row is valid" : `All ${report.validCount} rows are valid`}
      </h2>
      <p>
        Nothing is saved yet. Import adds{" "}
        {report.validCount === 1 ? `this ${noun}` : `these ${report.validCount} ${noun}`} to the archive in one go.
      </p>
      <div className="table-wrap">
        <table className="stack-on-phone">
          <caption className="visually-hidden">Records to import</caption>
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">Serial</th>
              <th scope="col">Title</th>
              <th scope="col">Raised</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {report.preview.map(({ line, record }) => (
              <tr key={line}>
                <td data-label="Line">{line}</td>
                <td data-label="Serial">{record.serial_num}</td>
                <td data-label="Title">{record.title}</td>
                <td data-label="Raised">{formatDate(record.date_raised)}</td>
                <td data-label="Status">
                  <LegacyStatusBadge status={record.status} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {report.validCount > report.preview.length ? (
        <p className="muted">…and {report.validCount - report.preview.length} more.</p>
      ) : null}
      <Form method="post" encType="multipart/form-data" className="form-actions">
        <input type="hidden" name="fileName" value={report.fileName} />
        <input type="hidden" name="csv" value={report.csv ?? ""} />
        <SubmitButton name="intent" value="import" pendingText="Importing…">
          Import {report.validCount} {noun}
        </SubmitButton>
        <Link to={listPath(kind)} className="button">
          Cancel
        </Link>
      </Form>
    </section>
  );
}

export function ArchiveImportPage() {
  const { kind } = useLoaderData<typeof archiveImportLoader>();
  const result = useActionData<typeof archiveImportAction>();
  const report = result && "report" in result ? result.report : null;
  const info = ARCHIVE[kind];
  const failed = report && (report.fileErrors.length > 0 || report.rejectedCount > 0);
  return (
    <>
      <p>
        <Link to={listPath(kind)}>← {capitalise(info.plural)}</Link>
      </p>
      <h1>Import {info.plural} from a CSV file</h1>
      <p className="muted">
        Every row is checked first. Nothing is saved until you confirm, and a file with any rejected row saves nothing:
        fix those rows and check the file again.
      </p>
      {report && failed ? (
        <div className="callout callout-danger" role="alert">
          <p>
            <strong>Nothing was imported from {report.fileName}.</strong>
          </p>
          {report.fileErrors.length ? <ErrorList errors={report.fileErrors} /> : null}
        </div>
      ) : null}
      {report && report.rejectedCount > 0 ? <Rejected report={report} /> : null}
      {report && !failed && report.csv ? <Ready kind={kind} report={report} /> : null}
      <section className="card" aria-labelledby="import-upload">
        <h2 id="import-upload">{report ? "Check another file" : "Choose the file"}</h2>
        <Form method="post" encType="multipart/form-data" className="stack">
          <div className="field">
            <label htmlFor="import-file">CSV file</label>
            <input
              id="import-file"
              name="file"
              type="file"
              accept=".csv,text/csv"
              required
              aria-describedby="import-file-hint"
            />
            <p id="import-file-hint" className="hint">
              UTF-8 CSV with a header row; attachments separated by ; or |.
            </p>
          </div>
          <div className="form-actions">
            <SubmitButton name="intent" value="check" pendingText="Checking…">
              Check file
            </SubmitButton>
          </div>
        </Form>
      </section>
      <Columns kind={kind} />
    </>
  );
}
