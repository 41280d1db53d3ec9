/**
 * CSV import of paper records into the legacy archive. Every row is checked first (field rules,
 * serial numbers repeated in the file or already in the archive) and the rejected rows are listed
 * with their line numbers; records are saved only on a separate confirmation, which checks the
 * file again and saves every row in one transaction, or nothing (docs/decisions/010-legacy-archive.md).
 */
import { CsvError, parse } from "csv-parse/sync";
import { Invalid } from "~/utils/errors";
import {
  ARCHIVE,
  archiveSchemas,
  CSV_LIMITS,
  isRequiredField,
  type ArchiveField,
  type ArchiveInput,
  type ArchiveKind,
} from "./archive.schema";
import { assertCanWrite, existingSerials, insertArchiveRecords } from "./archive.server";
import type { Actor } from "../authz/authz.server";

export type RejectedRow = { line: number; serial_num: string | null; problems: string[] };

export type ImportCheck = {
  kind: ArchiveKind;
  /** Problems with the file as a whole (not CSV, wrong header, too big): no row was checked. */
  fileErrors: string[];
  /** Data rows found (blank lines aside). */
  rowCount: number;
  rejected: RejectedRow[];
  valid: { line: number; record: ArchiveInput }[];
};

export type ImportResult = { saved: true; count: number } | { saved: false; check: ImportCheck };

const fileProblem = (kind: ArchiveKind, ...fileErrors: string[]): ImportCheck => ({
  kind,
  fileErrors,
  rowCount: 0,
  rejected: [],
  valid: [],
});

/** An uploaded file's text: UTF-8 only (a byte-order mark is dropped). */
export function decodeCsvFile(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new Invalid('The file is not UTF-8 text. Save it as "CSV UTF-8" and upload it again');
  }
}

/** Header names are matched loosely: case, surrounding spaces, and spaces or hyphens for underscores. */
const normaliseHeader = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");

type Row = { line: number; cells: string[] };

/** Parses the text into a header and rows, each row with the line it starts on. */
function readCsv(text: string): { header: string[]; rows: Row[] } | { error: string } {
  const normalised = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (normalised.trim() === "") return { error: "The file is empty" };
  const firstLine = normalised.slice(0, normalised.indexOf("\n") === -1 ? undefined : normalised.indexOf("\n"));
  // Spreadsheets set to a comma-decimal locale write semicolons between fields.
  const delimiter = !firstLine.includes(",") && firstLine.includes(";") ? ";" : ",";
  let parsed: { record: string[]; info: { lines: number } }[];
  try {
    // csv-parse's types do not follow `info: true` (each record comes as { record, info }, not as
    // its cells), so its answer is named here.
    parsed = parse(normalised, {
      delimiter,
      info: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
    }) as unknown as typeof parsed;
  } catch (error) {
    if (error instanceof CsvError) {
      const line = (error as CsvError & { lines?: number }).lines;
      const where = line ? ` (at line ${line})` : "";
      if (error.code === "CSV_QUOTE_NOT_CLOSED") {
        return { error: `A quoted field is never closed${where}: check that every opening " has its closing "` };
      }
      return { error: `The file is not valid CSV${where}: ${error.message.replace(/^[^:]*:\s*/, "")}` };
    }
    throw error;
  }
  const [head, ...body] = parsed;
  if (!head) return { error: "The file is empty" };
  const rows = body
    .filter(({ record }) => record.some((cell) => cell.trim() !== ""))
    .map(({ record, info }) => ({
      // `info.lines` is where the record ends; line breaks inside quoted fields come before it.
      line: info.lines - record.reduce((n, cell) => n + (cell.match(/\n/g)?.length ?? 0), 0),
      cells: record,
    }));
  return { header: head.record, rows };
}

type Columns = { fields: (ArchiveField | null)[]; errors: string[] };

function readHeader(kind: ArchiveKind, header: string[], rows: Row[]): Columns {
  const info = ARCHIVE[kind];
  const other = ARCHIVE[kind === "moc" ? "pcr" : "moc"];
  const errors: string[] = [];
  const seen = new Set<string>();
  const fields = header.map((raw, index): ArchiveField | null => {
    const name = normaliseHeader(raw);
    if (name === "") {
      if (rows.some((r) => (r.cells[index] ?? "").trim() !== "")) {
        errors.push(`Column ${index + 1} has values but no name in the header row`);
      }
      return null;
    }
    if (!(info.fields as readonly string[]).includes(name)) {
      const hint = (other.fields as readonly string[]).includes(name)
        ? ` (it belongs to ${other.plural}: is this the right file?)`
        : "";
      errors.push(`Unknown column "${raw.trim()}"${hint}`);
      return null;
    }
    if (seen.has(name)) errors.push(`The column ${name} appears twice`);
    seen.add(name);
    return name as ArchiveField;
  });
  const missing = info.fields.filter((f) => isRequiredField(f) && !seen.has(f));
  if (missing.length)
    errors.push(`The header row lacks the required column${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`);
  if (errors.length) errors.push(`The header row names the columns: ${info.fields.join(", ")}`);
  return { fields, errors };
}

/** A row as the record body the API takes: empty cells left out, attachments split on ; or |. */
function rowBody(columns: Columns, cells: string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  columns.fields.forEach((field, index) => {
    const cell = (cells[index] ?? "").trim();
    if (!field || cell === "") return;
    body[field] =
      field === "attachments"
        ? cell
            .split(/[;|]/)
            .map((s) => s.trim())
            .filter(Boolean)
        : cell;
  });
  return body;
}

const describeIssue = (issue: { path: PropertyKey[]; message: string }) => {
  const [field, index] = issue.path;
  if (field === undefined) return issue.message;
  if (field === "attachments" && typeof index === "number") return `attachments (link ${index + 1}): ${issue.message}`;
  return `${String(field)}: ${issue.message}`;
};

/** Checks every row of a CSV file; saves nothing. */
export async function checkArchiveImport(actor: Actor, kind: ArchiveKind, text: string): Promise<ImportCheck> {
  assertCanWrite(actor, kind);
  if (Buffer.byteLength(text, "utf8") > CSV_LIMITS.bytes) {
    return fileProblem(kind, "The file is larger than 1 MiB: split it into smaller files");
  }
  const csv = readCsv(text);
  if ("error" in csv) return fileProblem(kind, csv.error);
  const columns = readHeader(kind, csv.header, csv.rows);
  if (columns.errors.length) return fileProblem(kind, ...columns.errors);
  if (csv.rows.length === 0) return fileProblem(kind, "The file has a header row but no records");
  if (csv.rows.length > CSV_LIMITS.rows) {
    return fileProblem(kind, `The file has ${csv.rows.length} records; import at most ${CSV_LIMITS.rows} at a time`);
  }

  const schema = archiveSchemas[kind].create;
  const checked = csv.rows.map(({ line, cells }) => {
    const problems: string[] = [];
    if (cells.length !== csv.header.length) {
      problems.push(`The line has ${cells.length} fields; the header row has ${csv.header.length}`);
    }
    const body = rowBody(columns, cells);
    const parsed = schema.safeParse(body);
    if (!parsed.success) problems.push(...parsed.error.issues.map(describeIssue));
    const serial = typeof body.serial_num === "string" ? body.serial_num : null;
    return { line, serial, problems, record: parsed.success ? parsed.data : null };
  });

  // Serial numbers: once in the file, and not yet in the archive.
  const linesBySerial = new Map<string, number[]>();
  for (const row of checked)
    if (row.serial) linesBySerial.set(row.serial, [...(linesBySerial.get(row.serial) ?? []), row.line]);
  const taken = await existingSerials(kind, [...linesBySerial.keys()]);
  for (const row of checked) {
    if (!row.serial) continue;
    const lines = linesBySerial.get(row.serial)!;
    if (lines.length > 1) {
      row.problems.push(`serial_num: ${row.serial} appears more than once in the file (lines ${lines.join(", ")})`);
    }
    if (taken.has(row.serial)) {
      row.problems.push(
        `serial_num: a ${ARCHIVE[kind].label} with serial number ${row.serial} is already in the archive`,
      );
    }
  }

  return {
    kind,
    fileErrors: [],
    rowCount: checked.length,
    rejected: checked
      .filter((r) => r.problems.length)
      .map((r) => ({ line: r.line, serial_num: r.serial, problems: r.problems })),
    valid: checked.filter((r) => !r.problems.length).map((r) => ({ line: r.line, record: r.record! })),
  };
}

/** Checks the file again and, only if every row is valid, saves them all in one transaction. */
export async function importArchiveCsv(actor: Actor, kind: ArchiveKind, text: string): Promise<ImportResult> {
  const check = await checkArchiveImport(actor, kind, text);
  if (check.fileErrors.length || check.rejected.length || !check.valid.length) return { saved: false, check };
  const count = await insertArchiveRecords(
    actor,
    kind,
    check.valid.map((v) => v.record),
  );
  return { saved: true, count };
}
