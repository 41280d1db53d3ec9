/** The MOC list page and the dashboard: searches and counts over the MOCs the actor may see. */
import { sql, type SQL } from "drizzle-orm";
import { iso } from "#db/moc-document";
import { getDb } from "~/utils/db.server";
import { pendingMocIds } from "./actions.server";
import { referencesTextSql } from "../records/references-sql.server";
import { mocListScope, mocOpenSql, type Actor, type MocList } from "../authz/authz.server";
import { documentsWithStage, withStage } from "./moc-query.server";
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

import { z } from "zod";
import { searchQuerySchema } from "../shared/text-rules";
import { DEPARTMENTS } from "#db/schema/enums";
import type { TemporaryState } from "#db/schema";
import { riskLabel, RISK_LEVELS, type RiskLevel } from "../risk/risk";
import { MOC_SORTS, TEMPORARY_FILTERS, type MocSort, type TemporaryFilter } from "./moc-status";
import { MOC_STAGE_SQL, MOC_STAGES, OWNER_SQL, STAGE_LABEL_SQL, TEMPORARY_EXPIRED_SQL } from "./moc-steps.server";
import {
  TITLE_SQL,
  VESSEL_LABEL_OR_NOT_RECORDED_SQL,
  VESSEL_LABEL_SQL,
  vesselFilterSchema,
  vesselFilterSql,
  type VesselFilter,
} from "./moc-scope.server";
import { temporaryCountsSql, temporaryFilterSql, temporaryStateSql, TODAY_SQL } from "./temporary.server";
import { csvPlain, csvStream } from "../records-out/csv-export.server";

export type MocListFilter = {
  q?: string;
  status?: string;
  /** Where the MOCs stand: one of `MOC_STAGES` ("Second approval (High risk)", "Completion report"). */
  stage?: string;
  department?: string;
  /** A vessel's id, "office", "fleet" or "none" (not recorded): docs/decisions/036-vessels-and-crew-access.md. */
  vessel?: VesselFilter;
  /** Only MOCs the actor is involved in. */
  mine?: boolean;
  /** Only MOCs with a step waiting on the actor (the dashboard's "waiting on me"). */
  waiting?: boolean;
  /** `open`, `completed`, or all. */
  state?: "open" | "completed" | "all";
  /** Open MOCs whose target date has passed. */
  overdue?: boolean;
  /** Temporary changes in effect, ending within 14 days, or expired (not restored). */
  temporary?: TemporaryFilter;
  /** The MOC's risk (docs/decisions/037-risk-ranking-and-approvals.md); `none`: not ranked. */
  risk?: RiskLevel | "none";
  sort?: MocSort;
  page?: number;
  pageSize?: number;
};

export type MocListRow = {
  id: string;
  serialNum: string;
  /** Part A's title, null when not recorded. */
  title: string | null;
  /** Part A's vessel or scope as it reads, null when not recorded. */
  vessel: string | null;
  status: string;
  completed: boolean;
  description: string;
  department: string | null;
  originator: string;
  owner: string | null;
  /** What it waits for when its status alone would mislead (a deviation decision), else null. */
  stage: string | null;
  targetDate: string | null;
  /** Null for a permanent change; else the temporary change's state today and its end date. */
  temporaryState: TemporaryState | null;
  temporaryUntil: string | null;
  /** The MOC's risk, null when not ranked. */
  riskLevel: RiskLevel | null;
  createdAt: string;
  updatedAt: string;
};

/** The list's query string (the page's filter form, its CSV link and the CSV API read the same). */
export const mocListQuerySchema = z.object({
  q: searchQuerySchema,
  status: z.enum(["a", "b", "c", "d", "e", "f", "decline"]).optional().catch(undefined),
  stage: z
    .enum(MOC_STAGES as [string, ...string[]])
    .optional()
    .catch(undefined),
  department: z.enum(DEPARTMENTS).optional().catch(undefined),
  vessel: vesselFilterSchema,
  scope: z.enum(["mine", "waiting", "all"]).default("all").catch("all"),
  state: z.enum(["open", "completed", "all"]).default("all").catch("all"),
  overdue: z.literal("1").optional().catch(undefined),
  temporary: z.enum(TEMPORARY_FILTERS).optional().catch(undefined),
  risk: z
    .enum([...RISK_LEVELS, "none"])
    .optional()
    .catch(undefined),
  sort: z.enum(MOC_SORTS).default("newest").catch("newest"),
  page: z.coerce.number().int().min(1).default(1).catch(1),
});
export type MocListQuery = z.infer<typeof mocListQuerySchema>;

/** The filter a list query string asks for. */
export const mocListFilter = (query: MocListQuery): MocListFilter => ({
  ...query,
  mine: query.scope === "mine",
  waiting: query.scope === "waiting",
  overdue: query.overdue === "1",
});

const WHOLE_LIST = JSON.stringify(mocListQuerySchema.parse({}));
/** Whether a query asks for the whole list in its own order (no filter, the default sort). */
export const isWholeMocList = (query: MocListQuery) => JSON.stringify(query) === WHOLE_LIST;

/** Every MOC of the filtered list, in the list's order, as CSV rows read (for its CSV below). */
export function mocListExportQuery(actor: Actor, filter: MocListFilter, list: MocList = "visible"): SQL {
  return sql`select m.serial_num as "serial", ${TITLE_SQL} as title, ${VESSEL_LABEL_OR_NOT_RECORDED_SQL} as vessel,
      ${MOC_STAGE_SQL} as stage,
      f.data->'department-of-change'->>'value' as department,
      coalesce(f.data->'description-of-change'->>'value', '') as description,
      (select name from users where id = m.originator_id) as originator,
      ${OWNER_SQL} as owner,
      m.target_date::text as "targetDate",
      ${sql.raw(iso("m.created_at", "s"))} as "createdAt",
      ${sql.raw(iso("m.updated_at", "s"))} as "updatedAt",
      m.risk_level as risk,
      ${referencesTextSql("moc", sql`m.id`)} as "references"
    from mocs m left join moc_forms f on f.moc_id = m.id and f.kind = 'originator'
    where ${mocListWhere(actor, filter, list)}
    order by ${ORDER(filter.sort)}`;
}

const created = (desc: boolean): SortKey => ({ sql: sql`m.created_at`, type: "timestamptz", desc });
/** Each sort's keys; the MOC's id ends every order, so pages never overlap or skip a MOC. */
const SORT_KEYS: Record<MocSort, SortKey[]> = {
  newest: [created(true)],
  oldest: [created(false)],
  serial: [
    { sql: sql`m.serial_year`, type: "int", desc: true },
    { sql: sql`m.serial_count`, type: "int", desc: true },
  ],
  target: [{ sql: sql`m.target_date`, type: "date", desc: false }, created(true)],
  status: [
    { sql: sql`m.completed`, type: "boolean", desc: false },
    { sql: sql`m.status`, type: "text", desc: false },
    created(true),
  ],
  temporary: [{ sql: sql`(m.temporary->>'until')::date`, type: "date", desc: false }, created(true)],
};
const ORDER = (sort: MocSort = "newest") => orderBy(SORT_KEYS[sort], sql`m.id`);

/** How many sort values a cursor of `sort` carries. */
export const mocOrderSize = (sort: MocSort = "newest") => SORT_KEYS[sort].length;

/**
 * The list's conditions for `filter`: the page, its CSV export and the dashboard share them, and
 * the /api lists' JSON and CSV (`list`: the MOCs that list answers the actor, docs/api-contract.md).
 */
export function mocListWhere(actor: Actor, filter: MocListFilter, list: MocList = "visible"): SQL {
  const conditions: SQL[] = [mocListScope[list](actor)];
  const q = filter.q?.trim();
  if (q) {
    const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push(sql`(m.serial_num ilike ${like} or exists (select 1 from moc_forms f where f.moc_id = m.id
      and f.kind = 'originator' and (f.data->'description-of-change'->>'value' ilike ${like}
      or f.data->'reason-for-change'->>'value' ilike ${like} or f.data->'title'->>'value' ilike ${like}
      or f.data->'vessel'->'value'->>'name' ilike ${like})))`);
  }
  if (filter.vessel) conditions.push(vesselFilterSql(filter.vessel));
  if (filter.status) conditions.push(sql`m.status = ${filter.status} and not m.completed`);
  if (filter.stage) conditions.push(sql`${MOC_STAGE_SQL} = ${filter.stage}`);
  if (filter.department) {
    conditions.push(sql`exists (select 1 from moc_forms f where f.moc_id = m.id and f.kind = 'originator'
      and f.data->'department-of-change'->>'value' = ${filter.department})`);
  }
  if (filter.waiting) conditions.push(sql`m.id in ${pendingMocIds(actor)}`);
  if (filter.mine) {
    conditions.push(sql`exists (select 1 from moc_users mu where mu.moc_id = m.id and mu.user_id = ${actor._id})`);
  }
  // A temporary change expired and not restored is open work, and overdue (docs/decisions/033-closure-gates.md), though verified.
  if (filter.state === "open") {
    conditions.push(sql`(${mocOpenSql()} or ${TEMPORARY_EXPIRED_SQL})`);
  }
  if (filter.state === "completed") conditions.push(sql`(m.completed and not ${TEMPORARY_EXPIRED_SQL})`);
  if (filter.overdue) {
    conditions.push(
      sql`((${mocOpenSql()} and m.target_date < (now() at time zone 'UTC')::date) or ${TEMPORARY_EXPIRED_SQL})`,
    );
  }
  if (filter.temporary) conditions.push(temporaryFilterSql(filter.temporary));
  if (filter.risk)
    conditions.push(filter.risk === "none" ? sql`m.risk_level is null` : sql`m.risk_level = ${filter.risk}`);
  return sql.join(conditions, sql` and `);
}

export async function searchMocs(actor: Actor, filter: MocListFilter): Promise<{ rows: MocListRow[]; total: number }> {
  const where = mocListWhere(actor, filter);
  const pageSize = Math.min(Math.max(filter.pageSize ?? 25, 1), 100);
  const offset = (Math.max(filter.page ?? 1, 1) - 1) * pageSize;
  // The page's ids and the total first, then names, owner and description for that page only:
  // with every column in one select, PostgreSQL computed them for every matching MOC (the total
  // counts them all) before keeping 25.
  const rows = await getDb().execute<MocListRow & { total: number }>(sql`
    with page as (
      select m.id, count(*) over ()::int as total, row_number() over (order by ${ORDER(filter.sort)}) as n
      from mocs m
      where ${where}
      order by n
      limit ${pageSize} offset ${offset}
    )
    select m.id, m.serial_num as "serialNum", ${TITLE_SQL} as title, ${VESSEL_LABEL_SQL} as vessel, m.status, m.completed,
      coalesce(f.data->'description-of-change'->>'value', '') as description,
      f.data->'department-of-change'->>'value' as department,
      (select name from users where id = m.originator_id) as originator,
      ${OWNER_SQL} as owner,
      ${STAGE_LABEL_SQL} as stage,
      m.target_date::text as "targetDate",
      ${temporaryStateSql(TODAY_SQL)} as "temporaryState", m.temporary->>'until' as "temporaryUntil",
      m.risk_level as "riskLevel",
      ${sql.raw(iso("m.created_at"))} as "createdAt",
      ${sql.raw(iso("m.updated_at"))} as "updatedAt",
      page.total
    from page join mocs m on m.id = page.id
    left join moc_forms f on f.moc_id = m.id and f.kind = 'originator'
    order by page.n`);
  return { rows: rows.map(({ total: _total, ...row }) => row), total: rows[0]?.total ?? 0 };
}

export type Dashboard = {
  /** How many MOCs stand at each stage (`mocStage`), in the order of `MOC_STAGES`; deleted ones not counted. */
  counts: { stage: string; n: number }[];
  temporary: { inEffect: number; endingSoon: number; expired: number };
  /** The expired temporary changes (not restored), longest expired first. */
  expired: DashboardMoc[];
  overdue: DashboardMoc[];
  activity: {
    mocId: string;
    serialNum: string;
    title: string | null;
    action: string;
    by: string | null;
    at: string;
    to: string | null;
  }[];
};

/** A MOC as the dashboard's short lists name it: what they show, not a list row. */
export type DashboardMoc = Pick<
  MocListRow,
  "id" | "serialNum" | "title" | "targetDate" | "temporaryState" | "temporaryUntil"
>;

/**
 * The first ten MOCs of the list `filter` selects, with only what the dashboard shows of them: the
 * list page's conditions and order, without its total, names, owner and stage (searchMocs), whose
 * large query took longer to plan than to run, twice per dashboard (docs/decisions/032-pages-at-sea.md).
 */
function dashboardList(actor: Actor, filter: MocListFilter) {
  return getDb().execute<DashboardMoc>(sql`
    select m.id, m.serial_num as "serialNum",
      (select ${TITLE_SQL} from moc_forms f where f.moc_id = m.id and f.kind = 'originator') as title,
      m.target_date::text as "targetDate",
      ${temporaryStateSql(TODAY_SQL)} as "temporaryState", m.temporary->>'until' as "temporaryUntil"
    from mocs m
    where ${mocListWhere(actor, filter)}
    order by ${ORDER(filter.sort)}
    limit 10`);
}

export async function dashboard(actor: Actor): Promise<Dashboard> {
  const db = getDb();
  const scope = mocListScope.visible(actor);
  const [counts, temporary, expired, overdue, activity] = await Promise.all([
    db.execute<{ stage: string; n: number }>(sql`
      select ${MOC_STAGE_SQL} as stage, count(*)::int as n from mocs m where ${scope} group by 1`),
    db.execute<Dashboard["temporary"]>(temporaryCountsSql(scope)),
    dashboardList(actor, { temporary: "expired", sort: "temporary" }),
    dashboardList(actor, { overdue: true, sort: "target" }),
    db.execute<Dashboard["activity"][number]>(sql`
      select l.moc_id as "mocId", m.serial_num as "serialNum",
        (select nullif(f.data->'title'->>'value', '') from moc_forms f where f.moc_id = m.id and f.kind = 'originator') as title, l.action, u.name as by, l.to_status as to,
        ${sql.raw(iso("l.at"))} as at
      from moc_logs l join mocs m on m.id = l.moc_id left join users u on u.id = l.user_id
      where not m.is_deleted and exists (select 1 from moc_users mu where mu.moc_id = m.id and mu.user_id = ${actor._id})
      order by l.at desc limit 12`),
  ]);
  const order = (stage: string) => MOC_STAGES.indexOf(stage);
  return {
    counts: [...counts].sort((a, b) => order(a.stage) - order(b.stage)),
    temporary: temporary[0]!,
    expired: [...expired],
    overdue: [...overdue],
    activity: [...activity],
  };
}

// ---------------------------------------------------------------------------------------------
// GET /api/newmoc and /api/getAllMoc with filters or another order (the whole list in its own
// order is app/models/moc/moc-query.server.ts's cached body)

const DOC = sql`coalesce(d.doc, build_moc_document(m.id))`;

/** The documents of `list` that `filter` selects, in its order, each with its stage, as a JSON array text, in one query. */
export async function mocListDocuments(actor: Actor, list: MocList, filter: MocListFilter): Promise<string> {
  const rows = await getDb().execute<{ doc: string; stage: string }>(sql`
    select ${DOC} as doc, ${MOC_STAGE_SQL} as stage
    from mocs m left join moc_documents d on d.moc_id = m.id
    where ${mocListWhere(actor, filter, list)}
    order by ${ORDER(filter.sort)}`);
  return documentsWithStage([...rows]);
}

/** One page of the same documents in the same order (keyset: app/models/shared/keyset.ts), in one query. */
export async function mocListDocumentsPage(
  actor: Actor,
  list: MocList,
  filter: MocListFilter,
  page: PageRequest,
): Promise<PageOf<string>> {
  const keys = SORT_KEYS[filter.sort ?? "newest"];
  const after = afterSorted(keys, sql`m.id`, page.after) ?? sql`true`;
  const rows = await getDb().execute<{ id: string; doc: string; stage: string } & Record<string, unknown>>(sql`
    select m.id, ${sortValues(keys)}, ${DOC} as doc, ${MOC_STAGE_SQL} as stage
    from mocs m left join moc_documents d on d.moc_id = m.id
    where ${mocListWhere(actor, filter, list)} and ${after}
    order by ${ORDER(filter.sort)}
    limit ${page.limit + 1}`);
  const { rows: taken, next } = cut([...rows], page.limit, (r) => keyOfRow(keys, r, r.id));
  return { rows: taken.map((r) => withStage(r.doc, r.stage)), next };
}

/** The MOC list as CSV (the list's filter and reading rule, one row per MOC). */
export function mocListCsv(actor: Actor, filter: MocListFilter, list: MocList = "visible") {
  type Row = {
    serial: string;
    title: string | null;
    vessel: string;
    /** Where the MOC stands (`mocStage`'s twin). */
    stage: string;
    department: string | null;
    description: string;
    originator: string | null;
    owner: string | null;
    targetDate: string | null;
    createdAt: string;
    updatedAt: string;
    risk: RiskLevel | null;
    references: string;
  };
  return csvStream<Row>(
    [
      "Serial",
      "Title",
      "Vessel",
      "Status",
      "Department",
      "Description",
      "Originator",
      "Waiting on",
      "Target date",
      "Raised",
      "Last changed",
      "Risk",
      "References",
    ],
    mocListExportQuery(actor, filter, list),
    (r) => [
      r.serial,
      r.title,
      r.vessel,
      r.stage,
      r.department,
      csvPlain(r.description),
      r.originator,
      r.owner,
      r.targetDate,
      r.createdAt,
      r.updatedAt,
      riskLabel(r.risk),
      r.references,
    ],
    actor._id,
  );
}
