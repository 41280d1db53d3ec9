/**
 * CSV exports of the MOC, PCR, archive, user and year-end-review lists (docs/decisions/022-records-out.md): the rows the
 * list's own filters select (each list module builds the query from its own conditions), read
 * through a server-side cursor in batches inside one read-only snapshot, spooled to a temporary
 * file and streamed from it, so 10,000 rows never sit in memory and a slow reader never holds a
 * database connection (docs/decisions/027-slow-clients.md). The HTTP side (the response, the
 * `format=csv` test) is app/web/csv-download.server.ts. UTF-8 with a byte-order mark (Excel), ISO dates,
 * people by name, and cells that a spreadsheet would run as a formula made inert.
 */
import { sql, type SQL } from "drizzle-orm";
import { getDb } from "~/utils/db.server";
import { env } from "~/utils/env.server";
import { richTextToPlain } from "~/utils/sanitize.server";
import type { Actor } from "../authz/authz.server";
import { slotGroup } from "../shared/person-slots.server";
import { usersExportQuery } from "../people/user.server";
import { spooledStream, type SpoolWriter } from "./spool.server";

export const CSV_BATCH = 500;
const BOM = "\uFEFF";

/** A cell a spreadsheet would run: it starts with a formula character. */
const FORMULA_START = /^[=+\-@\t\r]/;
/**
 * A separator followed by a formula character: a spreadsheet that splits on `;` (semicolon
 * locales) or on `,` would make the part after it a cell of its own that starts a formula
 * (`x;=cmd|' /C calc'!A0`).
 */
const FORMULA_AFTER_SEPARATOR = /[;,]\s*[=+\-@]/;

/**
 * One cell, after OWASP's advice on CSV injection: a value that starts with `=`, `+`, `-`, `@`,
 * tab or carriage return, or holds `;` or `,` followed by one of `=+-@`, gets a leading
 * apostrophe, so a spreadsheet shows it as text instead of running it; and a value holding a
 * separator (`,` or `;`), quote, tab or line break is quoted, so no locale splits it into cells.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = typeof value === "boolean" ? (value ? "yes" : "no") : String(value);
  if (FORMULA_START.test(text) || FORMULA_AFTER_SEPARATOR.test(text)) text = `'${text}`;
  return /[",;\t\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const csvLine = (cells: unknown[]) => `${cells.map(csvCell).join(",")}\r\n`;

/** An export larger than this is cut (a list of 10,000 MOCs is about 3.3 MB). */
export const CSV_SPOOL_MAX_BYTES = 256 * 1024 * 1024;
/**
 * Exports reading from the database at once in this process; more wait their turn. One: turning
 * rows into CSV is work on the request thread, and one export at a time leaves room between its
 * batches for everyone else's requests.
 */
const READERS = 1;

const exportSlots = slotGroup(
  "csv-export",
  ({ perUser }) =>
    `You have ${perUser} CSV export${perUser === 1 ? "" : "s"} running already; wait for ${perUser === 1 ? "it" : "them"} to finish, then try again`,
  5,
);

// Turns at the database, for the exports' read transactions (one queue per process).
const readers = globalThis as typeof globalThis & { __cmCsvReaders?: { running: number; waiting: (() => void)[] } };
async function readerTurn<T>(work: () => Promise<T>): Promise<T> {
  const state = (readers.__cmCsvReaders ??= { running: 0, waiting: [] });
  if (state.running >= READERS) await new Promise<void>((resolve) => state.waiting.push(resolve));
  else state.running++;
  try {
    return await work();
  } finally {
    const next = state.waiting.shift();
    if (next) next();
    else state.running--;
  }
}

/** The CSV exports running now in this process (tests). */
export const csvExportsInUse = () => exportSlots.inUse();

/**
 * The CSV of `query` as a byte stream, for `owner` (at most EXPORTS_PER_PERSON at once: 429
 * beyond). The header goes out at once; the rows are read CSV_BATCH at a time from a cursor in a
 * read-only repeatable-read transaction (one snapshot for the whole file) as fast as the database
 * gives them (one export at a time per process), never waiting on the client: each batch is
 * appended to a spool the stream reads behind the writer (./spool.server.ts), so the connection
 * goes back to the pool when the last batch is written, however slowly the client reads
 * (docs/security.md, "Slow clients").
 */
export function csvStream<Row extends Record<string, unknown>>(
  header: string[],
  query: SQL,
  toCells: (row: Row) => unknown[],
  owner: string,
): ReadableStream<Uint8Array> {
  const config = env();
  const release = exportSlots.acquire(owner, {
    perUser: config.EXPORTS_PER_PERSON,
    overall: config.EXPORTS_MAX_CONCURRENT,
  });
  const fill = async ({ append, cancelled }: SpoolWriter) => {
    await append(BOM + csvLine(header));
    await readerTurn(() =>
      getDb().transaction(
        async (tx) => {
          // Backstops: the transaction never waits on the client, but a stuck one ends anyway.
          await tx.execute(sql`set local idle_in_transaction_session_timeout = '10s'`);
          await tx.execute(sql`set local statement_timeout = '60s'`);
          await tx.execute(sql`declare csv_export no scroll cursor for ${query}`);
          for (;;) {
            if (cancelled()) return;
            // The cursor's rows are the query's, whose type the caller names.
            const rows = (await tx.execute(sql.raw(`fetch forward ${CSV_BATCH} from csv_export`))) as Row[];
            if (cancelled()) return;
            if (rows.length > 0) await append(rows.map((r) => csvLine(toCells(r))).join(""));
            if (rows.length < CSV_BATCH) return;
            // Let the requests that queued up meanwhile go first.
            await new Promise((resolve) => setImmediate(resolve));
          }
        },
        { isolationLevel: "repeatable read", accessMode: "read only" },
      ),
    );
  };
  return spooledStream(fill, { maxBytes: CSV_SPOOL_MAX_BYTES, onEnd: release }).stream;
}

/** Rich text as a CSV cell: plain text, empty for none. */
export const csvPlain = (html: unknown) => (typeof html === "string" && html ? richTextToPlain(html) : "");

export function usersCsv(actor: Actor, search: string | undefined) {
  type Row = {
    name: string;
    email: string;
    department: string;
    role: string;
    access: string;
    position: string | null;
    active: boolean;
    createdAt: string;
  };
  return csvStream<Row>(
    ["Name", "Email", "Department", "Role", "Access", "Position", "Active", "Created"],
    usersExportQuery(search),
    (r) => [r.name, r.email, r.department, r.role, r.access, r.position, r.active, r.createdAt],
    actor._id,
  );
}
