/**
 * Insight for HSEQ managers (docs/decisions/017-insights.md): KPIs, trends and bottlenecks computed in SQL from what the
 * app already records: the MOC audit entries (moc_logs: times, from/to statuses), target dates
 * (moved by approved extensions), Part A departments, the deviation/extension tracking, PCR
 * signatures with their dates, and the reminder claims. Nothing is entered twice and nothing is
 * stored: every call counts again, in one read-only snapshot. docs/decisions/017-insights.md says
 * what each figure counts.
 */
import { sql, type SQL } from "drizzle-orm";
import { DEPARTMENTS, PCR_ROLES } from "#db/schema/enums";
import { inOneSnapshot, type Executor } from "~/utils/db.server";
import { Forbidden } from "~/utils/errors";
import { canSeeInsights, mocOpenSql, type Actor } from "../authz/authz.server";
import {
  INSIGHT_STEPS,
  INSIGHT_STEP_LABELS,
  OVERDUE_BANDS,
  type InsightMocFigure,
  type InsightStep,
  type InsightsFigures,
  type InsightsFilter,
  type OverdueBand,
  type Spread,
} from "./insights.schema";
import { MOC_CLOSED_ACTION } from "../moc/moc-steps.server";
import { urgencyCases } from "../moc/reminder.server";
import { overdueItem } from "../moc/action-tasks.server";
import { NOT_RECORDED, scopeLabel } from "../moc/moc-names";
import { VESSEL_LABEL_OR_NOT_RECORDED_SQL, vesselFilterSql } from "../moc/moc-scope.server";
import { recipientStateSql } from "../circulations/circulations.server";
import { effectivenessFigures } from "../moc/effectiveness.server";
import { MOC_STAGE_SQL } from "../moc/moc-steps.server";
import { temporaryFilterSql } from "../moc/temporary.server";

/**
 * `mocs` with each MOC's department as `department`: its Part A `department-of-change`, else its
 * originator's department (the year-end review counts by the same rule, docs/decisions/011). A
 * join, not a lookup per row, so a department filter over thousands of MOCs stays one hash join.
 */
/** That department as SQL, over a MOC's Part A row `f` and its originator `u`. */
const DEPARTMENT_OF_F_U = sql`coalesce(nullif(f.data->'department-of-change'->>'value', ''), u.department)`;

export const MOCS_WITH_DEPARTMENT = sql`(select m.*,
    ${DEPARTMENT_OF_F_U} as department
  from mocs m
  join users u on u.id = m.originator_id
  left join moc_forms f on f.moc_id = m.id and f.kind = 'originator')`;

/** The closing verification's action as an SQL literal (a constant of the code, not input). */
if (MOC_CLOSED_ACTION.includes("'")) throw new Error("MOC_CLOSED_ACTION must stay a plain literal");
const CLOSED = sql.raw(`'${MOC_CLOSED_ACTION}'`);
/**
 * An audit entry `l` that moves a MOC to another step (or completes it). Written exactly as the
 * predicate of the partial indexes moc_logs_moves_at_idx and moc_logs_moves_moc_idx (db/schema/
 * mocs.ts), with the action as a literal, so PostgreSQL can prove a query stays inside them: every
 * read of moc_logs here says MOVES, even where a narrower condition implies it.
 */
const MOVES = (l: string) =>
  sql`(${sql.raw(l)}.from_status is distinct from ${sql.raw(l)}.to_status or ${sql.raw(l)}.action = ${CLOSED})`;
/**
 * An audit entry `l` that ends a MOC: its decline, or the verification that completed it. Written
 * exactly as the predicate of the partial index moc_logs_ends_at_idx (db/migrations/
 * 0040_insight_ends_index.sql), a few thousand entries: every read of the ends or of the closing
 * entries says ENDS.
 */
const ENDS = (l: string) =>
  sql`${MOVES(l)} and (${sql.raw(l)}.action = ${CLOSED} or (${sql.raw(l)}.to_status = 'decline' and ${sql.raw(l)}.from_status is distinct from 'decline'))`;

// date_part, not extract: extract returns numeric, several times slower over thousands of rows.
const days = (interval: SQL) => sql`(date_part('epoch', ${interval}) / 86400)`;
/** count, median and 90th percentile of `value` (days), rounded to 2 decimals. */
const spread = (value: SQL) => sql`count(*)::int as count,
  round((percentile_cont(0.5) within group (order by ${value}))::numeric, 2)::float8 as median,
  round((percentile_cont(0.9) within group (order by ${value}))::numeric, 2)::float8 as p90`;

const percent = (part: number, whole: number) => (whole > 0 ? Math.round((1000 * part) / whole) / 10 : null);

export function requireInsightsReader(actor: Actor): void {
  if (!canSeeInsights(actor)) {
    throw new Forbidden("Only admins, the HSEQ department and full-access users can see the insight figures");
  }
}

/**
 * The period, the as-of day, and the MOCs to count: `mocs`, or one department's (or vessel's).
 * For a row `m` of mocs: `among` holds for the MOCs any figure counts, `inScope` for those in
 * `mocs`, `inDepartments` for those the per-department figures count (every MOC unless a
 * department is chosen: they ignore a vessel filter alone).
 */
type Bounds = { from: string; to: string; asOf: string; mocs: SQL; among: SQL; inScope: SQL; inDepartments: SQL };

/** Every figure for the period and department, read in one repeatable-read snapshot. */
export async function getInsights(actor: Actor, filter: InsightsFilter): Promise<InsightsFigures> {
  requireInsightsReader(actor);
  return computeInsights(filter);
}

/** The figures without the permission check (the year-end review's writers pull them for its year). */
export async function computeInsights(
  filter: InsightsFilter,
  options: { now?: Date; db?: Executor } = {},
): Promise<InsightsFigures> {
  return (await computeInsightsWithMocs(filter, options)).figures;
}

/**
 * The figures, and with `cap` the MOCs behind the MOC-counting ones (the management review pack,
 * docs/decisions/059-management-review-pack.md): for each figure and key, at most `cap` MOC ids
 * (newest first), chosen in the same statement by the same predicate that counts the figure, and
 * the longest stays of each step. Without `cap`, `mocs` is null and nothing more is read.
 */
export async function computeInsightsWithMocs(
  filter: InsightsFilter,
  options: { now?: Date; db?: Executor; cap?: number } = {},
): Promise<{ figures: InsightsFigures; mocs: InsightMocLists | null }> {
  const cap = options.cap ?? null;
  let mocs: InsightMocLists | null = null;
  const now = options.now ?? new Date();
  const today = now.toISOString().slice(0, 10);
  const asOf = filter.to < today ? filter.to : today;
  // `tx` reads the MOC figures (`mocFigures`, about half of the time) while `side` reads the others
  // at the same time, in the same snapshot (`inOneSnapshot`); they are one connection when no
  // second can be had, and then the statements simply queue on it.
  const compute = async (tx: Executor, side: Executor): Promise<InsightsFigures> => {
    // These statements' estimated costs pass jit_above_cost and the parallel thresholds, yet they
    // run in milliseconds: JIT compiling them took 2-3 s, and parallel workers each rebuilt the same
    // hash tables for longer than the scan they shared (docs/performance.md). Both off for this
    // transaction only, in one statement; and each statement planned for its own period and
    // department (a prepared statement's generic plan, chosen after five runs, was 15% slower).
    await Promise.all([...new Set([tx, side])].map((db) => db.execute(INSIGHT_SETTINGS)));
    const vessel = filter.vessel ?? null;
    const b: Bounds = { from: filter.from, to: filter.to, asOf, ...(await mocsOf(tx, filter.department, vessel)) };
    const [{ departments, overdueActions, risk, vessels, states, types, standing, lists }, others] = await Promise.all([
      mocFigures(tx, b, filter.department, cap),
      (async () => ({
        monthly: await monthlyFlow(side, b),
        stepTimes: await stepTimes(side, b, cap),
        deviations: await deviationFigures(side, b),
        pcrs: await pcrFigures(side, b, filter.department),
        reminders: await reminderFigures(side, b),
        acknowledgementCompliance: await acknowledgementFigures(side, b, filter.department, vessel),
        effectiveness: await effectivenessFigures(side, b, cap),
        vessel: vessel ? await vesselFilterLabel(side, vessel) : null,
      }))(),
    ]);
    const { monthly, deviations, pcrs, reminders, acknowledgementCompliance } = others;
    const { steps, longest } = others.stepTimes;
    const { figure: effectiveness, lists: effectivenessLists } = others.effectiveness;
    if (cap !== null) {
      mocs = { figures: lists ?? [], steps: longest };
      mocs.figures.push(...effectivenessLists.map((l) => ({ figure: "effectiveness" as const, ...l })));
    }
    const sum = (key: "opened" | "completed" | "declined") => monthly.reduce((n, m) => n + m[key], 0);
    const closed = departments.reduce((n, d) => n + d.completed, 0);
    const onTime = departments.reduce((n, d) => n + d.onTime, 0);
    return {
      period: { from: filter.from, to: filter.to, department: filter.department, asOf },
      totals: {
        opened: sum("opened"),
        completed: sum("completed"),
        declined: sum("declined"),
        openAtEnd: monthly.at(-1)?.openAtEnd ?? 0,
        onTimeRate: percent(onTime, closed),
      },
      monthly,
      steps,
      departments,
      deviations,
      pcrs,
      reminders,
      overdueActions,
      risk,
      vesselOrOffice: "recorded",
      vessel: others.vessel,
      vessels,
      acknowledgementCompliance,
      effectiveness,
      states,
      types,
      standing,
    };
  };
  // Inside a caller's transaction (a review pulling its year's figures) it reads there; alone, in
  // one read-only snapshot (on two connections: `inOneSnapshot`, db/client.ts) so the figures agree.
  const figures = await (options.db ? compute(options.db, options.db) : inOneSnapshot(compute));
  return { figures, mocs };
}

const INSIGHT_SETTINGS = sql`select set_config('jit', 'off', true), set_config('max_parallel_workers_per_gather', '0', true),
  set_config('plan_cache_mode', 'force_custom_plan', true)`;

/** The MOC-counting figures' lists: their name (`InsightMocFigure`), the key within it, the MOC ids. */
export type InsightMocLists = {
  figures: { figure: InsightMocFigure; key: string; ids: string[] }[];
  /** Per step, the MOCs of its longest stays in the period, longest first. */
  steps: { step: InsightStep; ids: string[] }[];
};
export type { InsightMocFigure };

const RISK_ORDER = ["low", "medium", "high", "extreme", "none"] as const;

/**
 * The MOCs to count: all, or one department's. A department's MOCs are found once (its rule needs
 * every MOC's Part A, a join over the whole table) and every figure then reads them by id, rather
 * than each statement working the department out again for every MOC.
 */
async function mocsOf(
  db: Executor,
  department: string | null,
  vessel: string | null = null,
): Promise<Pick<Bounds, "mocs" | "among" | "inScope" | "inDepartments">> {
  if (!department) {
    if (!vessel) return { mocs: sql`mocs`, among: sql`true`, inScope: sql`true`, inDepartments: sql`true` };
    const [row] = await db.execute<{ ids: string }>(sql`
      select coalesce(array_agg(m.id), '{}')::text as ids from mocs m where ${vesselFilterSql(vessel)}`);
    return {
      mocs: sql`(select m.* from mocs m where m.id = any(${row!.ids}::uuid[]))`,
      among: sql`true`,
      inScope: sql`m.id = any(${row!.ids}::uuid[])`,
      inDepartments: sql`true`,
    };
  }
  const [row] = await db.execute<{ ids: string }>(sql`
    select coalesce(array_agg(d.id), '{}')::text as ids from ${MOCS_WITH_DEPARTMENT} d where d.department = ${department}
      ${vessel ? sql`and d.id in (select m.id from mocs m where ${vesselFilterSql(vessel)})` : sql``}`);
  return {
    mocs: sql`(select m.*, ${department}::text as department from mocs m where m.id = any(${row!.ids}::uuid[]))`,
    among: sql`m.id = any(${row!.ids}::uuid[])`,
    inScope: sql`true`,
    inDepartments: sql`true`,
  };
}

/** How the vessel filter reads. */
async function vesselFilterLabel(db: Executor, vessel: string): Promise<string> {
  if (vessel === "office" || vessel === "fleet") return scopeLabel(vessel);
  if (vessel === "none") return NOT_RECORDED;
  const [row] = await db.execute<{ name: string }>(sql`select name from vessels where id = ${vessel}`);
  return row?.name ?? "Unknown vessel";
}

// The period's bounds as timestamptz: UTC midnight of `from`, and of the day after `to`.
const start = (b: Bounds) => sql`(${b.from}::date::timestamp at time zone 'UTC')`;
const endOf = (day: string) => sql`((${day}::date + 1)::timestamp at time zone 'UTC')`;

/**
 * Per UTC month of the period (cut to the period at its edges): MOCs opened (created), completed
 * (the closing verification), declined, and open at the month's end. Open at a moment = created
 * before it and not ended before it: the MOCs open now, plus those that ended since. In one pass
 * over the period's creations and ends, each counted in its month: open at a month's end is the
 * MOCs open now created before the period, plus a running sum of per-month changes (a MOC open
 * now counts from the month it was created; one that ended since counts from the month it was
 * created, or the period's first, until the month it ended).
 */
async function monthlyFlow(db: Executor, b: Bounds) {
  const firstMonth = sql`date_trunc('month', ${b.from}::date::timestamp)`;
  const rows = await db.execute<{
    month: string;
    opened: number;
    completed: number;
    declined: number;
    open_at_end: number;
  }>(sql`
    with months as materialized (
      select g as m, to_char(g, 'YYYY-MM') as month
      from generate_series(${firstMonth}, ${b.to}::date::timestamp, interval '1 month') g
    ),
    ended as materialized (
      select date_trunc('month', l.at at time zone 'UTC') as m_end,
             date_trunc('month', m.created_at at time zone 'UTC') as m_created,
             l.at < ${endOf(b.to)} as in_period, l.to_status = 'decline' as declined
      from moc_logs l join ${b.mocs} m on m.id = l.moc_id
      where l.at >= ${start(b)} and ${ENDS("l")} and not m.is_deleted
    ),
    flows as (
      select date_trunc('month', m.created_at at time zone 'UTC') as m, count(*) as opened,
        count(*) filter (where ${mocOpenSql()}) as open_delta, 0 as completed, 0 as declined
      from ${b.mocs} m
      where not m.is_deleted and m.created_at >= ${start(b)} and m.created_at < ${endOf(b.to)}
      group by 1
      union all
      select x.m_end, 0, -count(*), count(*) filter (where not x.declined), count(*) filter (where x.declined)
      from ended x where x.in_period group by 1
      union all
      select greatest(x.m_created, ${firstMonth}), 0, count(*), 0, 0 from ended x group by 1
    )
    select mo.month, coalesce(sum(f.opened), 0)::int as opened,
      coalesce(sum(f.completed), 0)::int as completed, coalesce(sum(f.declined), 0)::int as declined,
      ((select count(*) from ${b.mocs} m
        where not m.is_deleted and ${mocOpenSql()} and m.created_at < ${start(b)})
        + sum(coalesce(sum(f.open_delta), 0)) over (order by mo.m))::int as open_at_end
    from months mo left join flows f on f.m = mo.m
    group by mo.m, mo.month order by mo.m`);
  return [...rows].map((r) => ({
    month: r.month,
    opened: r.opened,
    completed: r.completed,
    declined: r.declined,
    openAtEnd: r.open_at_end,
  }));
}

/**
 * Days spent in each step, for the stays that ended in the period: from the audit entry that
 * moved the MOC into a step to the next one that moved it on (a decline, a return and the closing
 * verification end a stay too). Status b entered from implementation is the deviation/extension
 * decision, not the implementer's assessment. Each MOC moved in the period has its moves read once
 * in order (moc_logs_moves_moc_idx) and paired with the one before by a window, rather than a
 * look-up of the previous entry for every entry.
 */
async function stepTimes(
  db: Executor,
  b: Bounds,
  cap: number | null = null,
): Promise<{ steps: InsightsFigures["steps"]; longest: InsightMocLists["steps"] }> {
  const rows = await db.execute<{ step: InsightStep; longest: string[] | null } & Spread>(sql`
    select s.step, ${spread(sql`s.days`)},
      ${cap === null ? sql`null` : sql`(array_agg(s.moc_id::text order by s.days desc, s.moc_id))[1:${cap}]`} as longest
    from (
      select lag(case when l.to_status = 'b' and l.from_status = 'e' then 'deviation' else l.to_status end) over w as step,
        ${days(sql`l.at - lag(l.at) over w`)} as days, l.at, l.moc_id
      from moc_logs l
      where ${MOVES("l")} and l.at < ${endOf(b.to)}
        and l.moc_id in (
          select m.id from ${b.mocs} m
          where not m.is_deleted and m.id in (
            select p.moc_id from moc_logs p where ${MOVES("p")} and p.at >= ${start(b)} and p.at < ${endOf(b.to)}))
      window w as (partition by l.moc_id order by l.at, l.seq)
    ) s
    where s.at >= ${start(b)} and s.step is not null
    group by s.step`);
  const byStep = new Map([...rows].map((r) => [r.step, r]));
  const steps = INSIGHT_STEPS.map((step) => {
    const row = byStep.get(step);
    return {
      step,
      label: INSIGHT_STEP_LABELS[step],
      count: row?.count ?? 0,
      median: row?.median ?? null,
      p90: row?.p90 ?? null,
    };
  });
  return { steps, longest: INSIGHT_STEPS.map((step) => ({ step, ids: byStep.get(step)?.longest ?? [] })) };
}

/**
 * The figures that count MOCs, in one pass over them (issue 43): per department, the MOCs completed
 * in the period and how many on or before their target date (which approved extensions have moved),
 * the MOCs open on the as-of day (the period's end, or today) by how their target date stands then,
 * in the reminders' urgency bands, and their open plan items past due; the MOCs raised in the
 * period by risk level; and by vessel (docs/decisions/036-vessels-and-crew-access.md), one row per
 * vessel or scope the counted MOCs name: opened and completed in the period, open on the as-of day
 * and, of those, past their target date then, and their overdue plan items.
 *
 * Each MOC's department, vessel, risk level and standing on the as-of day are worked out once
 * (`counted`, materialized); the closing entries of the period and the overdue plan items are read
 * once each, and every figure is an aggregate over these sets, returned as JSON in one row.
 */
async function mocFigures(db: Executor, b: Bounds, department: string | null, cap: number | null = null) {
  // Who each MOC-counting figure counts, over a row `c` of `counted`: one predicate per figure, read
  // by the figure's count and by its list of MOCs (the review pack's), never written twice.
  const overdueOnAsOf = sql`c.in_scope and c.open_on_as_of and c.target_date < ${b.asOf}::date`;
  const withOverdueActions = sql`c.in_departments and c.overdue_items is not null`;
  const temporaryInEffect = sql`c.in_scope and c.temporary_in_effect`;
  const temporaryExpired = sql`c.in_scope and c.temporary_expired`;
  const raised = sql`(${b.inScope}) and m.created_at >= ${start(b)} and m.created_at < ${endOf(b.to)}`;
  const vesselLabel = sql`(select ${VESSEL_LABEL_OR_NOT_RECORDED_SQL}
    from (select jsonb_build_object('vessel', jsonb_build_object('value', c.vessel_value)) as data) f)`;
  const [row] = await db.execute<{
    states: { state: string; mocs: number }[];
    types: { type: string; mocs: number }[];
    standing: NonNullable<InsightsFigures["standing"]>;
    lists: { figure: InsightMocFigure; key: string; ids: string[] }[] | null;
    closed: { department: string; completed: number; on_time: number }[];
    bands: { department: string; band: OverdueBand; n: number }[];
    overdue_actions: { department: string; overdue: number; owners: number }[];
    risk: { level: (typeof RISK_ORDER)[number]; raised: number; open: number; completed: number; declined: number }[];
    vessels: {
      vessel: string;
      opened: number;
      completed: number;
      open: number;
      overdue: number;
      overdueActions: number;
    }[];
  }>(sql`
    with items as (
      -- the open MOCs' plan items past due on the as-of day, per MOC: how many, and their owners
      select m.id, count(*)::int as n, array_agg(e.item->>'owner') as owners
      from mocs m
      cross join lateral (values (m.action->'items'), (m.manual_plan->'items')) p(items)
      cross join lateral jsonb_array_elements(p.items) e(item)
      where not m.is_deleted and ${mocOpenSql()} and ${b.among} and ${overdueItem(b.asOf)}
      group by m.id
    ),
    counted as materialized (
      select m.id, m.created_at, m.target_date, coalesce(m.risk_level, 'none') as level,
        ${mocOpenSql()} as open_now, m.completed, m.status = 'decline' as declined,
        ${DEPARTMENT_OF_F_U} as department,
        f.data->'vessel'->'value' as vessel_value,
        ${b.inScope} as in_scope, ${b.inDepartments} as in_departments,
        -- raised in the period: the MOCs the figures by state, type, risk and vessel count
        ${raised} as raised,
        -- the stage only where a figure reads it (the MOCs raised): its approval rounds are two
        -- probes of moc_logs per MOC at d
        case when ${raised} then ${MOC_STAGE_SQL} end as stage,
        coalesce(nullif(f.data->'change-type'->>'value', ''), 'permanent') as change_type,
        coalesce(${temporaryFilterSql("in-effect", sql`${b.asOf}::date`)}, false) as temporary_in_effect,
        coalesce(${temporaryFilterSql("expired", sql`${b.asOf}::date`)}, false) as temporary_expired,
        -- open on the as-of day: created by then and not ended before its end
        m.created_at < ${endOf(b.asOf)} and not exists (select 1 from moc_logs l
          where ${ENDS("l")} and l.at < ${endOf(b.asOf)} and l.moc_id = m.id) as open_on_as_of,
        -- the bands count the MOCs open now, or ended after the as-of day, created by then
        case when m.created_at < ${endOf(b.asOf)} and m.target_date <= ${b.asOf}::date + 30
            and (${mocOpenSql()} or exists (select 1 from moc_logs l
              where ${ENDS("l")} and l.at >= ${endOf(b.asOf)} and l.moc_id = m.id))
          then case when m.target_date < ${b.asOf}::date - 14 then 'OVERDUE_LONG' ${urgencyCases(b.asOf)} end
        end as band,
        i.n as overdue_items, i.owners as overdue_owners
      from mocs m
      join users u on u.id = m.originator_id
      left join moc_forms f on f.moc_id = m.id and f.kind = 'originator'
      left join items i on i.id = m.id
      where not m.is_deleted and ${b.among}
    ),
    closed as materialized (
      select l.moc_id, l.at from moc_logs l
      where l.at >= ${start(b)} and l.at < ${endOf(b.to)} and ${ENDS("l")} and l.action = ${CLOSED}
    )
    select
      (select coalesce(json_agg(x order by x.department), '[]') from (
        select c.department, count(*)::int as completed,
          (count(*) filter (where (l.at at time zone 'UTC')::date <= c.target_date))::int as on_time
        from closed l join counted c on c.id = l.moc_id
        where c.in_departments group by c.department) x) as closed,
      (select coalesce(json_agg(x order by x.department, x.band), '[]') from (
        select c.department, c.band, count(*)::int as n
        from counted c where c.in_departments and c.band is not null
        group by c.department, c.band) x) as bands,
      (select coalesce(json_agg(x order by x.department), '[]') from (
        -- a row per overdue item (its owner, or null)
        select c.department, count(*)::int as overdue, count(distinct o.owner)::int as owners
        from counted c cross join lateral unnest(c.overdue_owners) o(owner)
        where c.in_departments group by c.department) x) as overdue_actions,
      (select coalesce(json_agg(x), '[]') from (
        select c.level, count(*)::int as raised,
          (count(*) filter (where c.open_now))::int as open,
          (count(*) filter (where c.completed))::int as completed,
          (count(*) filter (where c.declined))::int as declined
        from counted c
        where c.raised
        group by c.level) x) as risk,
      (select coalesce(json_agg(x order by x.mocs desc, x.state), '[]') from (
        select c.stage as state, count(*)::int as mocs from counted c where c.raised group by c.stage) x) as states,
      (select coalesce(json_agg(x order by x.type), '[]') from (
        select c.change_type as type, count(*)::int as mocs from counted c where c.raised group by c.change_type) x) as types,
      (select json_build_object(
          'overdue', count(*) filter (where ${overdueOnAsOf}),
          'withOverdueActions', count(*) filter (where ${withOverdueActions}),
          'temporaryInEffect', count(*) filter (where ${temporaryInEffect}),
          'temporaryExpired', count(*) filter (where ${temporaryExpired}))
        from counted c) as standing,
      ${
        cap === null
          ? sql`null`
          : sql`(select coalesce(json_agg(x order by x.figure, x.key), '[]') from (
        select k.figure, k.key, (array_agg(c.id::text order by c.created_at desc, c.id))[1:${cap}] as ids
        from counted c cross join lateral (values
          ('state', c.stage, c.raised), ('type', c.change_type, c.raised), ('risk', c.level, c.raised),
          ('vessel', case when c.raised then ${vesselLabel} end, c.raised),
          ('overdue', '', ${overdueOnAsOf}), ('overdueActions', '', ${withOverdueActions}),
          ('temporaryInEffect', '', ${temporaryInEffect}), ('temporaryExpired', '', ${temporaryExpired})
        ) k(figure, key, member)
        where k.member
        group by k.figure, k.key) x)`
      } as lists,
      (select coalesce(json_agg(x order by x.vessel = ${NOT_RECORDED}, x.vessel), '[]') from (
        select v.vessel, sum(v.opened)::int as opened, sum(v.completed)::int as completed, sum(v.open)::int as open,
          sum(v.overdue)::int as overdue, sum(v.overdue_actions)::int as "overdueActions"
        from (
          -- counted by Part A's recorded value, then named: the label is worked out once per value
          select (select ${VESSEL_LABEL_OR_NOT_RECORDED_SQL}
              from (select jsonb_build_object('vessel', jsonb_build_object('value', c.vessel_value)) as data) f) as vessel,
            count(*) filter (where c.raised) as opened,
            count(*) filter (where c.id in (select l.moc_id from closed l)) as completed,
            count(*) filter (where c.open_on_as_of) as open,
            count(*) filter (where ${overdueOnAsOf}) as overdue,
            coalesce(sum(c.overdue_items), 0) as overdue_actions,
            count(*) filter (where c.created_at < ${endOf(b.to)}) as counted_in_period
          from counted c
          where c.in_scope
          group by c.vessel_value
        ) v
        group by v.vessel
        having sum(v.counted_in_period) > 0) x) as vessels`);
  const { closed, bands, risk, vessels, states, types, standing, lists } = row!;
  const departments = department ? [department] : [...DEPARTMENTS];
  for (const r of [...closed, ...bands]) if (!departments.includes(r.department)) departments.push(r.department);
  const byLevel = new Map(risk.map((r) => [r.level, r]));
  return {
    departments: departments.map((name) => {
      const c = closed.find((r) => r.department === name);
      const overdue = Object.fromEntries(OVERDUE_BANDS.map((band) => [band, 0])) as Record<OverdueBand, number>;
      for (const r of bands) if (r.department === name) overdue[r.band] = r.n;
      return {
        department: name,
        completed: c?.completed ?? 0,
        onTime: c?.on_time ?? 0,
        onTimeRate: percent(c?.on_time ?? 0, c?.completed ?? 0),
        overdue,
      };
    }),
    overdueActions: row!.overdue_actions,
    risk: RISK_ORDER.map((level) => byLevel.get(level) ?? { level, raised: 0, open: 0, completed: 0, declined: 0 }),
    vessels,
    states,
    types,
    standing,
    lists,
  };
}

/**
 * Deviations and extensions requested in the period (the implementation entry that moved the MOC
 * from e back to b), with their decisions as recorded on the MOC, and the days approved extensions
 * added (new target date minus the one it replaced).
 */
async function deviationFigures(db: Executor, b: Bounds): Promise<InsightsFigures["deviations"]> {
  const rows = await db.execute<{
    type: "deviation" | "extension";
    requested: number;
    approved: number;
    rejected: number;
    days_added: number | null;
    days_unknown: number;
  }>(sql`
    select t.type,
      count(*)::int as requested,
      (count(*) filter (where t.item->>'approved' = 'yes'))::int as approved,
      (count(*) filter (where t.item->>'approved' = 'no'))::int as rejected,
      sum(((t.item->>'new_date')::date - (t.item->>'previous_date')::date))
        filter (where t.item->>'approved' = 'yes' and t.item->>'previous_date' is not null)::int as days_added,
      (count(*) filter (where t.item->>'approved' = 'yes' and t.item->>'previous_date' is null))::int as days_unknown
    from moc_logs l
    join ${b.mocs} m on m.id = l.moc_id
    cross join lateral (values ('deviation', m.deviations->'deviation'), ('extension', m.deviations->'extension')) t(type, item)
    where l.at >= ${start(b)} and l.at < ${endOf(b.to)} and ${MOVES("l")} and l.from_status = 'e' and l.to_status = 'b'
      and not m.is_deleted and jsonb_typeof(t.item) = 'object' and (t.item->>'requested')::boolean
    group by t.type`);
  return (["deviation", "extension"] as const).map((type) => {
    const r = [...rows].find((row) => row.type === type);
    const requested = r?.requested ?? 0;
    const approved = r?.approved ?? 0;
    const rejected = r?.rejected ?? 0;
    return {
      type,
      requested,
      approved,
      rejected,
      waiting: requested - approved - rejected,
      approvalRate: percent(approved, approved + rejected),
      daysAdded: type === "extension" ? (r?.days_added ?? 0) : null,
      daysAddedUnknown: r?.days_unknown ?? 0,
    };
  });
}

/**
 * PCRs (by their originator's department: a PCR records none of its own): created and finished
 * in the period, days from creation to finished, and for each chain role the days its holder
 * took, from the previous slot's signature (the PCR's creation for the first) to their own, for
 * the signatures given in the period; affected parties wait from the PCR's creation.
 */
async function pcrFigures(db: Executor, b: Bounds, department: string | null): Promise<InsightsFigures["pcrs"]> {
  const dept = department
    ? sql`and (select u.department from users u where u.id = p.originator_id) = ${department}`
    : sql``;
  const [counts] = await db.execute<{ created: number; finished: number } & Spread>(sql`
    select
      (select count(*) from pcrs p where p.created_at >= ${start(b)} and p.created_at < ${endOf(b.to)} ${dept})::int as created,
      s.*
    from (
      select ${spread(days(sql`p.finished_at - p.created_at`))}
      from pcrs p where p.finished_at >= ${start(b)} and p.finished_at < ${endOf(b.to)} ${dept}
    ) s`);
  const roles = await db.execute<{ role: string } & Spread>(sql`
    with p as (
      select p.id, p.created_at, p.signatures, p.affected_parties from pcrs p
      where p.created_at < ${endOf(b.to)} and p.updated_at >= ${start(b)} ${dept}
    ),
    signed as (
      select s.value->>'Name' as role, (s.value->>'signatureDate')::timestamptz as at,
        coalesce(lag((s.value->>'signatureDate')::timestamptz) over (partition by p.id order by s.ord), p.created_at) as since
      from p cross join lateral jsonb_array_elements(p.signatures) with ordinality s(value, ord)
      union all
      select 'Affected party', (a.value->>'signatureDate')::timestamptz, p.created_at
      from p cross join lateral jsonb_array_elements(p.affected_parties) a(value)
    )
    select role, ${spread(days(sql`at - since`))}
    from signed
    where at >= ${start(b)} and at < ${endOf(b.to)}
    group by role`);
  const byRole = new Map([...roles].map((r) => [r.role, r]));
  return {
    created: counts?.created ?? 0,
    finished: counts?.count ?? 0,
    daysToFinish: { count: counts?.count ?? 0, median: counts?.median ?? null, p90: counts?.p90 ?? null },
    roles: [...PCR_ROLES, "Affected party"].map((role) => ({
      role,
      count: byRole.get(role)?.count ?? 0,
      median: byRole.get(role)?.median ?? null,
      p90: byRole.get(role)?.p90 ?? null,
    })),
  };
}

/** Reminders per UTC day of the period: MOCs reminded and emails sent (days without any left out). */
async function reminderFigures(db: Executor, b: Bounds): Promise<InsightsFigures["reminders"]> {
  const rows = await db.execute<{ day: string; mocs: number; emails: number }>(sql`
    select r.day::text as day, count(*)::int as mocs, sum(r.emails_sent)::int as emails
    from moc_reminders r join ${b.mocs} m on m.id = r.moc_id
    where r.day >= ${b.from}::date and r.day <= ${b.to}::date and not m.is_deleted
    group by r.day order by r.day`);
  const days = [...rows].map((r) => ({ day: r.day, mocs: r.mocs, emails: r.emails }));
  return {
    total: { mocs: days.reduce((n, d) => n + d.mocs, 0), emails: days.reduce((n, d) => n + d.emails, 0) },
    days,
  };
}

/** How a recipient reached through an office department (no vessel) is named in the compliance figures. */
export const OFFICE_RECIPIENTS = "Office (by department)";

/**
 * Acknowledgement compliance by vessel (issue 41, docs/decisions/055-circulations.md): the
 * circulation recipients whose due date falls in the period, per vessel that brought them (office
 * departments together), each in its state as the tracking page shows it now (`recipientStateSql`):
 * acknowledged (and of those, on or before their due date, UTC), overdue, left the vessel.
 * Compliance is acknowledged on time in percent of those whose answer was due (acknowledged or
 * overdue: neither those still waiting nor those who left count). The vessel filter is the
 * recipient's vessel ("office": reached through a department; "fleet": through any vessel; "none":
 * nobody), the department filter the circulated record's (a MOC's as everywhere here, a PCR's
 * originator's as for PCRs). One statement over the period's recipients.
 */
async function acknowledgementFigures(
  db: Executor,
  b: Bounds,
  department: string | null,
  vessel: string | null,
): Promise<NonNullable<InsightsFigures["acknowledgementCompliance"]>> {
  const byVessel =
    vessel === null
      ? sql`true`
      : vessel === "office"
        ? sql`r.vessel_id is null`
        : vessel === "fleet"
          ? sql`r.vessel_id is not null`
          : vessel === "none"
            ? sql`false`
            : sql`r.vessel_id = ${vessel}::uuid`;
  const byDepartment = department
    ? sql`(case when c.moc_id is not null
        then (select ${DEPARTMENT_OF_F_U} from mocs m join users u on u.id = m.originator_id
          left join moc_forms f on f.moc_id = m.id and f.kind = 'originator' where m.id = c.moc_id)
        else (select u.department::text from pcrs p join users u on u.id = p.originator_id where p.id = c.pcr_id)
      end) = ${department}`
    : sql`true`;
  const rows = await db.execute<{
    vessel: string | null;
    recipients: number;
    acknowledged: number;
    on_time: number;
    overdue: number;
    left: number;
  }>(sql`
    -- Each recipient's state worked out once (materialized): inlined, every count below evaluated
    -- it again, 3-4 times slower over 48,000 recipients.
    with s as materialized (
      select r.vessel_id, r.due, (a.at at time zone 'UTC')::date as acknowledged_on, ${recipientStateSql("r", "a")} as state
      from circulation_recipients r
        join circulations c on c.id = r.circulation_id
        left join acknowledgements a on a.circulation_id = r.circulation_id and a.user_id = r.user_id
      where r.due >= ${b.from}::date and r.due <= ${b.to}::date and ${byVessel} and ${byDepartment}
    )
    select v.name as vessel, count(*)::int as recipients,
      (count(*) filter (where s.state = 'acknowledged'))::int as acknowledged,
      (count(*) filter (where s.state = 'acknowledged' and s.acknowledged_on <= s.due))::int as on_time,
      (count(*) filter (where s.state = 'overdue'))::int as overdue,
      (count(*) filter (where s.state = 'left'))::int as left
    from s left join vessels v on v.id = s.vessel_id
    group by s.vessel_id, v.name
    order by v.name is null, v.name, s.vessel_id`);
  return [...rows].map((r) => ({
    vessel: r.vessel ?? OFFICE_RECIPIENTS,
    recipients: r.recipients,
    acknowledged: r.acknowledged,
    onTime: r.on_time,
    overdue: r.overdue,
    left: r.left,
    compliance: percent(r.on_time, r.acknowledged + r.overdue),
  }));
}
