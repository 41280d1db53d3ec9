/**
 * The PCR lists: GET /api/allPcr's documents, GET /api/pcr/summary built in SQL, the list page
 * with its filters and the CSV export reading the same conditions. Timestamps carry milliseconds
 * as every other answer does (`iso`, db/moc-document.ts).
 */
import { and, desc, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { z } from "zod";
import { pcrs } from "#db/schema";
import { iso } from "#db/moc-document";
import { getDb } from "~/utils/db.server";
import { pcrListScope } from "../authz/authz.server";
import { afterKey, cut, type PageOf, type PageRequest } from "../shared/keyset";
import { nextSlotSql } from "./pcr-chain.server";
import { referencesTextSql } from "../records/references-sql.server";
import { pcrDocuments, type PcrDocument } from "./pcr.server";
import { searchQuerySchema } from "../shared/text-rules";
import type { PublicUser } from "../people/user.server";
import { csvPlain, csvStream } from "../records-out/csv-export.server";

/** The PCRs the actor may see, newest first, in two queries whatever their number. */
export async function listPcrs(actor: PublicUser): Promise<PcrDocument[]> {
  const p = alias(pcrs, "p");
  const rows = await getDb().select().from(p).where(pcrListScope(actor)).orderBy(desc(p.createdAt), desc(p.id));
  return pcrDocuments(rows);
}

/** One page of the same list (keyset: app/models/shared/keyset.ts), in two queries. */
export async function listPcrsPage(actor: PublicUser, page: PageRequest): Promise<PageOf<PcrDocument>> {
  const p = alias(pcrs, "p");
  const after = afterKey(p.createdAt, p.id, page.after);
  const rows = await getDb()
    .select({ row: p, at: sql<string>`${p.createdAt}::text` })
    .from(p)
    .where(and(pcrListScope(actor), after))
    .orderBy(desc(p.createdAt), desc(p.id))
    .limit(page.limit + 1);
  const { rows: taken, next } = cut(rows, page.limit, (r) => ({ values: [r.at], id: r.row.id }));
  return { rows: await pcrDocuments(taken.map((r) => r.row)), next };
}

const createdAt = sql.raw(iso("p.created_at"));

/**
 * One PCR of GET /api/pcr/summary, built in SQL from the row `p` with only the listed fields.
 * Drawn signatures can weigh 200 KB each, so the summary says whether a slot is signed
 * (`Signature: true`) instead.
 */
const summaryOf = sql`json_build_object(
      '_id', p.id, 'serial_num', p.serial_num, 'chatId', p.chat_id, 'status', p.status,
      'createdAt', ${createdAt}, 'cloned', p.cloned,
      'signatures', (select coalesce(json_agg(json_build_object('Name', s->>'Name',
          'Signature', case s->>'state' when 'signed' then 'true'::json when 'commented' then 'null'::json else 'false'::json end,
          'signatureDate', left(s->>'signatureDate', 10), 'Comments', s->>'Comments') order by o), '[]'::json)
        from jsonb_array_elements(p.signatures) with ordinality as x(s, o)),
      'affectedParties', (select coalesce(json_agg(json_build_object('Name', json_build_object('value', a->>'userId'),
          'Signature', case a->>'state' when 'signed' then 'true'::json when 'commented' then 'null'::json else 'false'::json end,
          'Comments', a->>'Comments') order by o), '[]'::json)
        from jsonb_array_elements(p.affected_parties) with ordinality as y(a, o)),
      'originator', (select json_build_object('_id', u.id, 'name', u.name, 'email', u.email, 'department', u.department)
        from users u where u.id = p.originator_id))`;

export async function pcrSummary(actor: PublicUser): Promise<string> {
  const rows = await getDb().execute<{ body: string }>(sql`
    select coalesce(json_agg(${summaryOf} order by p.created_at desc, p.id), '[]'::json)::text as body
    from pcrs p where ${pcrListScope(actor)}`);
  return rows[0]?.body ?? "[]";
}

/** One page of the summary, newest first (keyset: app/models/shared/keyset.ts), as JSON texts, in one query. */
export async function pcrSummaryPage(actor: PublicUser, page: PageRequest): Promise<PageOf<string>> {
  const after = afterKey(sql`p.created_at`, sql`p.id`, page.after) ?? sql`true`;
  const rows = await getDb().execute<{ body: string; at: string; id: string }>(sql`
    select ${summaryOf}::text as body, p.created_at::text as at, p.id
    from pcrs p where ${pcrListScope(actor)} and ${after}
    order by p.created_at desc, p.id desc limit ${page.limit + 1}`);
  const { rows: taken, next } = cut([...rows], page.limit, (r) => ({ values: [r.at], id: r.id }));
  return { rows: taken.map((r) => r.body), next };
}

// ---------------------------------------------------------------------------------------------
// The PCR list page

/** The list's query string (the page's filter form, its CSV link and the CSV API read the same). */
export const pcrListQuerySchema = z.object({
  q: searchQuerySchema,
  status: z.enum(["pending", "finished", "withdrawn"]).optional().catch(undefined),
  safety: z.literal("1").optional().catch(undefined),
  scope: z.enum(["mine", "all"]).default("all").catch("all"),
  page: z.coerce.number().int().min(1).default(1).catch(1),
});
export type PcrListQuery = z.infer<typeof pcrListQuerySchema>;

export const pcrListFilter = (query: PcrListQuery): PcrListFilter => ({
  q: query.q,
  status: query.status,
  safetyCritical: query.safety === "1",
  mine: query.scope === "mine",
  page: query.page,
});

/** What a row of the list says of a PCR, on the page and in its CSV export alike. */
const LIST_COLUMNS = sql`nullif(p.form->>'title', '') as title, p.status,
      coalesce((p.form->>'safety-critical')::boolean, false) as "safetyCritical",
      coalesce(p.form->>'suggestion-details', '') as summary,
      (select name from users u where u.id = p.originator_id) as originator,
      ${nextSlotSql} as "nextRole",
      (select count(*)::int from jsonb_array_elements(p.signatures) s where s->>'state' = 'signed') as signed,
      ${createdAt} as "createdAt"`;

/** Every PCR of the filtered list, newest first, as CSV rows read (for its CSV below). */
export function pcrListExportQuery(actor: PublicUser, filter: PcrListFilter) {
  return sql`select p.serial_num as serial, ${LIST_COLUMNS},
      ${sql.raw(iso("p.finished_at"))} as "finishedAt",
      ${referencesTextSql("pcr", sql`p.id`)} as "references"
    from pcrs p where ${pcrListWhere(actor, filter)}
    order by p.created_at desc, p.id`;
}

export type PcrListFilter = {
  q?: string;
  status?: "pending" | "finished" | "withdrawn";
  safetyCritical?: boolean;
  mine?: boolean;
  page?: number;
  pageSize?: number;
};

export type PcrListRow = {
  id: string;
  serialNum: string;
  /** The PCR's title, null when not recorded. */
  title: string | null;
  status: string;
  safetyCritical: boolean;
  summary: string;
  originator: string | null;
  nextRole: string | null;
  signed: number;
  createdAt: string;
};

/** The list's conditions for `filter`: the page and its CSV export share them. */
export function pcrListWhere(actor: PublicUser, filter: PcrListFilter) {
  const conditions = [pcrListScope(actor)];
  const q = filter.q?.trim();
  if (q) {
    const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push(sql`(p.serial_num ilike ${like} or p.form->>'title' ilike ${like} or p.form->>'suggestion-details' ilike ${like}
      or p.form->>'reason-for-change' ilike ${like} or p.form->>'manual-procedure' ilike ${like})`);
  }
  if (filter.status) conditions.push(sql`p.status = ${filter.status}`);
  if (filter.safetyCritical) conditions.push(sql`(p.form->>'safety-critical')::boolean`);
  if (filter.mine) conditions.push(sql`(p.originator_id = ${actor._id} or ${actor._id}::uuid = any(p.party_ids))`);
  return sql.join(conditions, sql` and `);
}

export async function searchPcrs(
  actor: PublicUser,
  filter: PcrListFilter,
): Promise<{ rows: PcrListRow[]; total: number }> {
  const pageSize = Math.min(Math.max(filter.pageSize ?? 25, 1), 100);
  const offset = (Math.max(filter.page ?? 1, 1) - 1) * pageSize;
  const rows = await getDb().execute<PcrListRow & { total: number }>(sql`
    select p.id, p.serial_num as "serialNum", ${LIST_COLUMNS},
      count(*) over ()::int as total
    from pcrs p where ${pcrListWhere(actor, filter)}
    order by p.created_at desc, p.id limit ${pageSize} offset ${offset}`);
  return { rows: rows.map(({ total: _total, ...row }) => row), total: rows[0]?.total ?? 0 };
}

/** The PCR list as CSV (the list's filter and reading rule, one row per PCR). */
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
    references: string;
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
      "References",
    ],
    pcrListExportQuery(actor, filter),
    (r) => [
      r.serial,
      r.status === "finished" ? "Finished" : "Collecting signatures",
      r.safetyCritical,
      csvPlain(r.summary),
      r.originator,
      r.nextRole,
      `${r.signed} of 6`,
      r.createdAt,
      r.finishedAt,
      r.references,
    ],
    actor._id,
  );
}
