/**
 * The legacy archive: paper-era MOC and PCR records (docs/decisions/010-legacy-archive.md). One set of
 * functions serves both kinds; `ARCHIVE[kind]` names the table and the kind's own fields (the
 * columns carry the documents' key names). Anyone signed in reads; admins and HSEQ write.
 */
import { appendAudit, appendAuditEntries } from "../audit/audit.server";
import { sql, type SQL } from "drizzle-orm";
import { iso } from "#db/moc-document";
import { getDb, type Executor } from "~/utils/db.server";
import { Conflict, databaseErrorCode, DomainError, Forbidden, Invalid, NotFound } from "~/utils/errors";
import { canReadRecords, canWriteArchive, type Actor } from "../authz/authz.server";
import { referencesTextSql } from "../records/references-sql.server";
import {
  afterSorted,
  cut,
  keyOfRow,
  orderBy,
  sortValues,
  type PageOf,
  type PageRequest,
  type SortKey,
} from "../shared/keyset";
import {
  ARCHIVE,
  defaultDirection,
  mergePatch,
  recordIssues,
  type ArchiveField,
  type ArchiveFilter,
  type ArchiveInput,
  type ArchiveKind,
  type ArchivePatch,
  type ArchiveSort,
  type LegacyStatus,
} from "./archive.schema";
import { csvStream } from "../records-out/csv-export.server";

type Person = { _id: string; name: string } | null;

/** A legacy record as /api returns it: the contract's fields (docs/api-contract.md), then timestamps and who wrote it. */
export type ArchiveDocument = {
  _id: string;
  serial_num: string;
  title: string;
  description?: string;
  department?: string;
  procedure?: string;
  originator_name: string;
  date_raised: string;
  date_closed: string | null;
  status: LegacyStatus;
  attachments: string[];
  notes: string;
  createdAt: string;
  updatedAt: string;
  created_by: Person;
  updated_by: Person;
};

// ---------------------------------------------------------------------------------------------
// Permissions

export function assertCanRead(actor: Actor): void {
  if (!canReadRecords(actor)) throw new Forbidden("You cannot read the archive");
}

/** Admins and the HSEQ department write the archive (app/models/authz/authz.server.ts). */
export function assertCanWrite(actor: Actor, kind: ArchiveKind): void {
  if (!canWriteArchive(actor)) {
    throw new Forbidden(`Only admins and the HSEQ department can change ${ARCHIVE[kind].plural}`);
  }
}

// ---------------------------------------------------------------------------------------------
// SQL pieces

const table = (kind: ArchiveKind) => sql.identifier(ARCHIVE[kind].table);
const column = (field: ArchiveField) => sql.identifier(field);
const UTC = (col: string) => sql.raw(iso(`r.${col}`));
const person = (alias: string) =>
  sql.raw(
    `case when ${alias}.id is null then null else json_build_object('_id', ${alias}.id, 'name', ${alias}.name) end`,
  );

/** The document's columns in order, from `r` joined to its writers `cu` and `uu`. */
function selectDocument(kind: ArchiveKind, extra: SQL = sql``): SQL {
  const fields = ARCHIVE[kind].fields.map((f) => {
    if (f === "date_raised" || f === "date_closed") return sql`r.${column(f)}::text as ${column(f)}`;
    return sql`r.${column(f)}`;
  });
  return sql`select r.id as "_id", ${sql.join(fields, sql`, `)},
    ${UTC("created_at")} as "createdAt", ${UTC("updated_at")} as "updatedAt",
    ${person("cu")} as created_by, ${person("uu")} as updated_by${extra}
    from ${table(kind)} r
    left join users cu on cu.id = r.created_by
    left join users uu on uu.id = r.updated_by`;
}

/** Each sort's keys in direction `desc` (docs/api-contract.md, "Lists"); the record's id breaks ties the same way. */
const SORT_KEYS: Record<ArchiveSort, (desc: boolean) => SortKey[]> = {
  // "{count}-{year}" serials (with any suffix) in date order: year, then count; other styles after, as text.
  serial: (desc) => [
    { sql: sql`(substring(r.serial_num from '^[0-9]+-([0-9]{4})(?![0-9])'))::int`, type: "int", desc },
    { sql: sql`(substring(r.serial_num from '^([0-9]+)-[0-9]{4}(?![0-9])'))::numeric`, type: "numeric", desc },
    { sql: sql`r.serial_num`, type: "text", desc },
  ],
  raised: (desc) => [
    { sql: sql`r.date_raised`, type: "date", desc },
    { sql: sql`r.serial_num`, type: "text", desc },
  ],
  closed: (desc) => [
    { sql: sql`r.date_closed`, type: "date", desc },
    { sql: sql`r.date_raised`, type: "date", desc },
  ],
  title: (desc) => [
    { sql: sql`lower(r.title)`, type: "text", desc },
    { sql: sql`r.serial_num`, type: "text", desc },
  ],
};

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const isUniqueViolation = (error: unknown) => databaseErrorCode(error) === "23505";

const duplicateSerial = (kind: ArchiveKind, serial: string) =>
  new Conflict(`A ${ARCHIVE[kind].label} with serial number ${serial} already exists`);

async function readOne(db: Executor, kind: ArchiveKind, id: string): Promise<ArchiveDocument | null> {
  const rows = await db.execute<ArchiveDocument>(sql`${selectDocument(kind)} where r.id = ${id}`);
  return rows[0] ?? null;
}

const notFound = (kind: ArchiveKind) => new NotFound(`No ${ARCHIVE[kind].label} with this id`);

/** The values of a record's columns, in the kind's field order. */
function values(kind: ArchiveKind, input: ArchiveInput): SQL[] {
  return ARCHIVE[kind].fields.map((f) =>
    f === "attachments" ? sql`${sql.param(input.attachments)}::text[]` : sql`${input[f] ?? null}`,
  );
}

// ---------------------------------------------------------------------------------------------
// Reading

/**
 * GET /api/oldMoc, /api/oldPcr: every record of the filtered list in its order (latest raised
 * first unless `sort`/`dir` say otherwise), the same rows and order as its CSV.
 */
export async function listArchive(actor: Actor, kind: ArchiveKind, filter: ArchiveSearch): Promise<ArchiveDocument[]> {
  assertCanRead(actor);
  const rows = await getDb().execute<ArchiveDocument>(
    sql`${selectDocument(kind)} where ${archiveWhere(kind, filter)} order by ${archiveOrder(filter)}`,
  );
  return [...rows];
}

/** The order a filter asks for, as the cursor names it (`raised.desc`). */
export const archiveOrderName = (filter: ArchiveSearch) => `${filter.sort ?? "raised"}.${directionOf(filter)}`;
/** How many sort values a cursor of that order carries. */
export const archiveOrderSize = (filter: ArchiveSearch) => sortKeys(filter).length;

/** One page of the same list in the same order (keyset: app/models/shared/keyset.ts), in one query. */
export async function listArchivePage(
  actor: Actor,
  kind: ArchiveKind,
  filter: ArchiveSearch,
  page: PageRequest,
): Promise<PageOf<ArchiveDocument>> {
  assertCanRead(actor);
  const keys = sortKeys(filter);
  const after = afterSorted(keys, sql`r.id`, page.after, directionOf(filter) === "desc") ?? sql`true`;
  const rows = await getDb().execute<ArchiveDocument & Record<string, unknown>>(
    sql`${selectDocument(kind, sql`, ${sortValues(keys)}`)}
      where ${archiveWhere(kind, filter)} and ${after} order by ${archiveOrder(filter)} limit ${page.limit + 1}`,
  );
  const { rows: taken, next } = cut([...rows], page.limit, (r) => keyOfRow(keys, r, r._id));
  return {
    rows: taken.map((r) => {
      const doc = { ...r };
      keys.forEach((_k, i) => delete doc[`_k${i}`]);
      return doc as ArchiveDocument;
    }),
    next,
  };
}

export async function getArchiveRecord(actor: Actor, kind: ArchiveKind, id: string): Promise<ArchiveDocument> {
  assertCanRead(actor);
  const doc = await readOne(getDb(), kind, id);
  if (!doc) throw notFound(kind);
  return doc;
}

export type ArchiveSearch = Omit<ArchiveFilter, "page"> & { page?: number; pageSize?: number };

/** The archive list's conditions for `filter`: the page, the CSV export. */
function archiveWhere(kind: ArchiveKind, filter: ArchiveSearch): SQL {
  const conditions: SQL[] = [sql`true`];
  const q = filter.q?.trim();
  if (q) {
    const like = likePattern(q);
    const texts = ["serial_num", "title", "originator_name", ARCHIVE[kind].textField, "notes"] as const;
    conditions.push(
      sql`(${sql.join(
        texts.map((f) => sql`r.${column(f)} ilike ${like}`),
        sql` or `,
      )})`,
    );
  }
  if (filter.status) conditions.push(sql`r.status = ${filter.status}`);
  if (filter.department && ARCHIVE[kind].hasDepartment) conditions.push(sql`r.department = ${filter.department}`);
  if (filter.year) {
    conditions.push(
      sql`r.date_raised >= ${`${filter.year}-01-01`}::date and r.date_raised < ${`${filter.year + 1}-01-01`}::date`,
    );
  }
  return sql.join(conditions, sql` and `);
}

const directionOf = (filter: ArchiveSearch) => filter.dir ?? defaultDirection(filter.sort ?? "raised");
const sortKeys = (filter: ArchiveSearch) => SORT_KEYS[filter.sort ?? "raised"](directionOf(filter) === "desc");

/** The list's order for `filter`: the whole list, its pages, its CSV and the archive page share it. */
function archiveOrder(filter: ArchiveSearch): SQL {
  return orderBy(sortKeys(filter), sql`r.id`, directionOf(filter) === "desc");
}

/** Every record of the filtered archive list, in its order, as documents (for its CSV below). */
export function archiveExportQuery(actor: Actor, kind: ArchiveKind, filter: ArchiveSearch): SQL {
  assertCanRead(actor);
  const references = referencesTextSql(kind === "moc" ? "archive-moc" : "archive-pcr", sql`r.id`);
  return sql`${selectDocument(kind, sql`, ${references} as "references"`)} where ${archiveWhere(kind, filter)}
    order by ${archiveOrder(filter)}`;
}

/** The archive pages' list: search, filters, sort and a page, with the total, in one query. */
export async function searchArchive(
  actor: Actor,
  kind: ArchiveKind,
  filter: ArchiveSearch,
): Promise<{ rows: ArchiveDocument[]; total: number }> {
  assertCanRead(actor);
  const where = archiveWhere(kind, filter);
  const pageSize = Math.min(Math.max(filter.pageSize ?? 25, 1), 100);
  const offset = (Math.max(filter.page ?? 1, 1) - 1) * pageSize;
  const rows = await getDb().execute<ArchiveDocument & { total: number }>(sql`
    ${selectDocument(kind, sql`, count(*) over ()::int as total`)}
    where ${where}
    order by ${archiveOrder(filter)}
    limit ${pageSize} offset ${offset}`);
  return { rows: rows.map(({ total: _total, ...doc }) => doc as ArchiveDocument), total: rows[0]?.total ?? 0 };
}

/** The filters' choices: the years records were raised in, and (MOCs) the departments named. */
export async function archiveFacets(kind: ArchiveKind): Promise<{ years: number[]; departments: string[] }> {
  const rows = await getDb().execute<{ years: number[] | null; departments: string[] | null }>(sql`
    select
      (select array_agg(y order by y desc) from (select distinct extract(year from date_raised)::int as y
        from ${table(kind)}) ys) as years,
      ${
        ARCHIVE[kind].hasDepartment
          ? sql`(select array_agg(d order by d) from (select distinct department as d from ${table(kind)}
              where department <> '') ds)`
          : sql`null::text[]`
      } as departments`);
  return { years: rows[0]?.years ?? [], departments: rows[0]?.departments ?? [] };
}

// ---------------------------------------------------------------------------------------------
// Writing (each one statement or one transaction; a duplicate serial is 409 and changes nothing)

const auditArchive = (tx: Executor, kind: ArchiveKind, id: string, actor: Actor, action: string) =>
  appendAudit(tx, { kind: `archive-${kind}`, recordId: id, actorId: actor._id, action });

export async function createArchiveRecord(
  actor: Actor,
  kind: ArchiveKind,
  input: ArchiveInput,
): Promise<ArchiveDocument> {
  assertCanWrite(actor, kind);
  try {
    return await getDb().transaction(async (tx) => {
      const fields = ARCHIVE[kind].fields;
      const [row] = await tx.execute<{ id: string }>(sql`
        insert into ${table(kind)} (${sql.join(fields.map(column), sql`, `)}, created_by, updated_by)
        values (${sql.join(values(kind, input), sql`, `)}, ${actor._id}, ${actor._id})
        returning id`);
      await auditArchive(tx, kind, row!.id, actor, `Created ${ARCHIVE[kind].label} ${input.serial_num}`);
      return (await readOne(tx, kind, row!.id))!;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateSerial(kind, input.serial_num);
    throw error;
  }
}

/** Writes the whole record `id` (PUT, and PATCH after merging). */
async function writeRecord(
  actor: Actor,
  kind: ArchiveKind,
  id: string,
  next: (current: ArchiveInput) => ArchiveInput,
): Promise<ArchiveDocument> {
  assertCanWrite(actor, kind);
  let serial = "";
  try {
    return await getDb().transaction(async (tx) => {
      const [locked] = await tx.execute<{ id: string }>(sql`select id from ${table(kind)} where id = ${id} for update`);
      if (!locked) throw notFound(kind);
      const current = (await readOne(tx, kind, id))!;
      const record = next(current);
      const issues = recordIssues(record);
      if (issues.length) throw new Invalid(`The ${ARCHIVE[kind].label} is not valid`, issues);
      serial = record.serial_num;
      const sets = ARCHIVE[kind].fields.map((f, i) => sql`${column(f)} = ${values(kind, record)[i]!}`);
      await tx.execute(sql`update ${table(kind)}
        set ${sql.join(sets, sql`, `)}, updated_by = ${actor._id}, updated_at = now()
        where id = ${id}`);
      await auditArchive(tx, kind, id, actor, "Edited");
      return (await readOne(tx, kind, id))!;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateSerial(kind, serial);
    throw error;
  }
}

/** The edit page: the whole form, every field as posted. (PUT and PATCH over /api merge: `patchArchiveRecord`.) */
export function replaceArchiveRecord(
  actor: Actor,
  kind: ArchiveKind,
  input: ArchiveInput & { _id: string },
): Promise<ArchiveDocument> {
  const { _id, ...record } = input;
  return writeRecord(actor, kind, _id, () => record);
}

/** PUT and PATCH over /api: only the fields sent; the merged record must still hold together. */
export function patchArchiveRecord(
  actor: Actor,
  kind: ArchiveKind,
  id: string,
  patch: ArchivePatch & { _id?: string },
): Promise<ArchiveDocument> {
  const { _id, ...fields } = patch;
  if (_id !== undefined && _id !== id) {
    throw new Invalid("The body's _id is not the id in the path", [
      { path: "_id", message: "Leave _id out, or send the id in the path" },
    ]);
  }
  // The stored document is the base: the write reads only the kind's fields of the merged record.
  return writeRecord(actor, kind, id, (current) => mergePatch(current, fields));
}

export async function deleteArchiveRecord(actor: Actor, kind: ArchiveKind, id: string): Promise<{ _id: string }> {
  assertCanWrite(actor, kind);
  return getDb().transaction(async (tx) => {
    const rows = await tx.execute<{ id: string; serial_num: string }>(
      sql`delete from ${table(kind)} where id = ${id} returning id, serial_num`,
    );
    if (!rows[0]) throw notFound(kind);
    // The history outlives the record: audit entries have no foreign key to it.
    await auditArchive(tx, kind, id, actor, `Deleted ${ARCHIVE[kind].label} ${rows[0].serial_num}`);
    return { _id: id };
  });
}

// ---------------------------------------------------------------------------------------------
// Import

/** Of these serial numbers, the ones already in the archive. */
export async function existingSerials(
  kind: ArchiveKind,
  serials: string[],
  db: Executor = getDb(),
): Promise<Set<string>> {
  if (!serials.length) return new Set();
  const rows = await db.execute<{ serial_num: string }>(
    sql`select serial_num from ${table(kind)} where serial_num = any(${sql.param(serials)}::text[])`,
  );
  return new Set(rows.map((r) => r.serial_num));
}

const INSERT_CHUNK = 500;

/** Inserts validated records in one transaction: all of them, or none (a duplicate is 409). */
export async function insertArchiveRecords(actor: Actor, kind: ArchiveKind, records: ArchiveInput[]): Promise<number> {
  assertCanWrite(actor, kind);
  const fields = ARCHIVE[kind].fields;
  try {
    await getDb().transaction(async (tx) => {
      for (let start = 0; start < records.length; start += INSERT_CHUNK) {
        const rows = records
          .slice(start, start + INSERT_CHUNK)
          .map((r) => sql`(${sql.join(values(kind, r), sql`, `)}, ${actor._id}, ${actor._id})`);
        const inserted = await tx.execute<{ id: string }>(sql`insert into ${table(kind)}
          (${sql.join(fields.map(column), sql`, `)}, created_by, updated_by)
          values ${sql.join(rows, sql`, `)} returning id`);
        // One entry per record, in two statements per chunk (each record's chain starts here).
        await appendAuditEntries(
          tx,
          inserted.map((r) => ({
            kind: `archive-${kind}` as const,
            recordId: r.id,
            actorId: actor._id,
            action: "Imported",
          })),
        );
      }
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      const e = error as { detail?: string; cause?: { detail?: string } };
      const detail = e.detail ?? e.cause?.detail ?? "";
      const serial = /\(serial_num\)=\((.*)\)/.exec(detail)?.[1];
      throw new DomainError(
        409,
        serial
          ? `A ${ARCHIVE[kind].label} with serial number ${serial} was added meanwhile; nothing was imported`
          : `A serial number was added meanwhile; nothing was imported`,
      );
    }
    throw error;
  }
  return records.length;
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

/** One archive list (paper MOCs or PCRs) as CSV. */
export function archiveCsv(actor: Actor, kind: ArchiveKind, filter: ArchiveSearch) {
  const fields = ARCHIVE[kind].fields;
  return csvStream<ArchiveDocument & { references: string }>(
    [...fields.map((f) => ARCHIVE_HEADERS[f] ?? f), "Entered by", "Entered", "References"],
    archiveExportQuery(actor, kind, filter),
    (r) => [
      ...fields.map((f) => {
        const value = r[f as keyof ArchiveDocument];
        return Array.isArray(value) ? value.join(" ") : value;
      }),
      r.created_by?.name ?? null,
      r.createdAt,
      r.references,
    ],
    actor._id,
  );
}
