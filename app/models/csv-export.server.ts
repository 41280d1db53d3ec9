/**
 * CSV exports of the MOC, PCR and archive lists (docs/decisions/022-records-out.md): the rows the
 * list's own filters select (each list module builds the query from its own conditions), read
 * through a server-side cursor in batches inside one read-only snapshot and written out as they
 * come, so 10,000 rows never sit in memory. UTF-8 with a byte-order mark (Excel), ISO dates,
 * people by name, and cells that a spreadsheet would run as a formula made inert.
 */
import { sql, type SQL } from "drizzle-orm";
import { getDb } from "~/utils/db.server";
import { richTextToPlain } from "~/utils/sanitize.server";
import { ARCHIVE, type ArchiveKind } from "./archive.schema";
import { archiveExportQuery, type ArchiveDocument, type ArchiveSearch } from "./archive.server";
import type { Actor } from "./authz.server";
import { mocListExportQuery, type MocListFilter } from "./moc-list.server";
import { mocStatusLabel } from "./moc-status";
import { pcrListExportQuery, type PcrListFilter } from "./pcr.server";
import type { PublicUser } from "./user.server";

export const CSV_BATCH = 500;
const BOM = "\uFEFF";

/**
 * One cell: quoted when it holds a comma, quote or line break; a value starting with `=`, `+`,
 * `-`, `@`, tab or carriage return gets a leading apostrophe, so a spreadsheet shows it as text
 * instead of running it (OWASP's advice on CSV injection).
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = typeof value === "boolean" ? (value ? "yes" : "no") : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const csvLine = (cells: unknown[]) => `${cells.map(csvCell).join(",")}\r\n`;

/**
 * The CSV of `query` as a byte stream: the header, then `toCells` of each row, read CSV_BATCH rows
 * at a time from a cursor in a read-only repeatable-read transaction (one snapshot for the whole
 * file). The next batch is fetched only when the consumer has taken the last, so a slow client
 * holds one batch in memory, not the list.
 */
export function csvStream<Row>(
  header: string[],
  query: SQL,
  toCells: (row: Row) => unknown[],
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let wake: (() => void) | null = null;
  let cancelled = false;
  const demand = () => {
    wake?.();
    wake = null;
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        controller.enqueue(encoder.encode(BOM + csvLine(header)));
        getDb()
          .transaction(
            async (tx) => {
              await tx.execute(sql`declare csv_export no scroll cursor for ${query}`);
              for (;;) {
                const rows = (await tx.execute(
                  sql.raw(`fetch forward ${CSV_BATCH} from csv_export`),
                )) as unknown as Row[];
                if (cancelled) return;
                if (rows.length > 0) controller.enqueue(encoder.encode(rows.map((r) => csvLine(toCells(r))).join("")));
                if (rows.length < CSV_BATCH) return;
                while (!cancelled && (controller.desiredSize ?? 1) <= 0) await new Promise<void>((r) => (wake = r));
                if (cancelled) return;
              }
            },
            { isolationLevel: "repeatable read", accessMode: "read only" },
          )
          .then(
            () => {
              if (!cancelled) controller.close();
            },
            (error: unknown) => {
              if (!cancelled) controller.error(error);
            },
          );
      },
      pull: demand,
      cancel() {
        cancelled = true;
        demand();
      },
    },
    { highWaterMark: 2 },
  );
}

const plain = (html: unknown) => (typeof html === "string" && html ? richTextToPlain(html) : "");

export function mocListCsv(actor: Actor, filter: MocListFilter) {
  type Row = {
    serial: string;
    status: string;
    completed: boolean;
    department: string | null;
    description: string;
    originator: string | null;
    owner: string | null;
    targetDate: string | null;
    createdAt: string;
    updatedAt: string;
  };
  return csvStream<Row>(
    [
      "Serial",
      "Status",
      "Department",
      "Description",
      "Originator",
      "Waiting on",
      "Target date",
      "Raised",
      "Last changed",
    ],
    mocListExportQuery(actor, filter),
    (r) => [
      r.serial,
      mocStatusLabel(r.status, r.completed),
      r.department,
      plain(r.description),
      r.originator,
      r.owner,
      r.targetDate,
      r.createdAt,
      r.updatedAt,
    ],
  );
}

export function pcrListCsv(actor: PublicUser, filter: PcrListFilter) {
  type Row = {
    serial: string;
    status: string;
    safetyCritical: boolean;
    summary: string;
    originator: string | null;
    nextRole: string | null;
    signed: number;
    createdAt: string;
    finishedAt: string | null;
  };
  return csvStream<Row>(
    [
      "Serial",
      "Status",
      "Safety-critical",
      "Suggestion",
      "Originator",
      "Next signature",
      "Signatures",
      "Raised",
      "Finished",
    ],
    pcrListExportQuery(actor, filter),
    (r) => [
      r.serial,
      r.status === "finished" ? "Finished" : "Collecting signatures",
      r.safetyCritical,
      plain(r.summary),
      r.originator,
      r.nextRole,
      `${r.signed} of 6`,
      r.createdAt,
      r.finishedAt,
    ],
  );
}

const ARCHIVE_HEADERS: Record<string, string> = {
  serial_num: "Serial",
  title: "Title",
  description: "Description",
  department: "Department",
  procedure: "Procedure",
  originator_name: "Originator",
  date_raised: "Raised",
  date_closed: "Closed",
  status: "Status",
  attachments: "Attachments",
  notes: "Notes",
};

export function archiveCsv(actor: Actor, kind: ArchiveKind, filter: ArchiveSearch) {
  const fields = ARCHIVE[kind].fields;
  return csvStream<ArchiveDocument>(
    [...fields.map((f) => ARCHIVE_HEADERS[f] ?? f), "Entered by", "Entered"],
    archiveExportQuery(actor, kind, filter),
    (r) => [
      ...fields.map((f) => {
        const value = r[f as keyof ArchiveDocument];
        return Array.isArray(value) ? value.join(" ") : value;
      }),
      r.created_by?.name ?? null,
      r.createdAt,
    ],
  );
}

/** A CSV download, named after the list and the day. */
export function csvResponse(stream: ReadableStream<Uint8Array>, name: string): Response {
  return new Response(stream, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}-${new Date().toISOString().slice(0, 10)}.csv"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

/** A request asks for CSV: `format=csv`, or `Accept: text/csv`. */
export const wantsCsv = (request: Request) =>
  new URL(request.url).searchParams.get("format") === "csv" ||
  /\btext\/csv\b/i.test(request.headers.get("Accept") ?? "");
