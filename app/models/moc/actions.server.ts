/**
 * The caller's pending work, derived from MOC state: `[ { type, moc } ]`
 * with `moc` populated with its originator form and originator, oldest wait first. GET /api/user
 * returns all of it; the dashboard ("waiting on me") the longest-waiting few and the total; the
 * MOC list can filter on it (`pendingMocIds`).
 */
import { sql, type SQL } from "drizzle-orm";
import { getDb } from "~/utils/db.server";
import { MOC_SUMMARY_JSON, iso } from "#db/moc-document";
import type { Actor } from "../authz/authz.server";
import type { MocDocument } from "./moc-document";
import {
  actingIndependentSql,
  mayActSql,
  ownedStepSql,
  pendingStepSql,
  STAGE_LABEL_SQL,
  TEMPORARY_EXPIRED_SQL,
  type MocStep,
} from "./moc-steps.server";

export type PendingAction = {
  type: MocStep;
  moc: Pick<
    MocDocument,
    "_id" | "serial_num" | "status" | "completed" | "target_date" | "createdAt" | "originator_form" | "originator_id"
  >;
  /** When the MOC reached the step that now waits on the caller. */
  waitingSince: string;
  /** How the MOC reads while it waits ("Returned by HSEQ", "Expired, not restored"), or null. */
  stage: string | null;
  /** The caller may submit the step (else it waits on them to see it done: an expired temporary change). */
  mayAct: boolean;
};

/**
 * The steps waiting on the actor, as rows `(moc_id, type, waiting_since, serial_year, serial_count)`.
 * The `case` is built from the step definitions (moc-steps.server.ts); tests/integration/authz.test.ts
 * checks the result against them for every MOC and actor. Only the actor's own MOCs (all_users) are
 * looked at, plus every MOC at `c` for HSEQ users: whoever holds a role on a MOC past its draft is in its all_users (every
 * assignment adds them; the MOC test files check it after all their tests), so this reads the
 * actor's MOCs by key instead of every open one.
 */
function pendingSteps(actor: Actor, delegate?: Actor): SQL {
  const isHseq = actor.department === "hseq";
  return sql`
    select m.id as moc_id, a.type, m.serial_year, m.serial_count,
      coalesce((select max(l.at) from moc_logs l where l.moc_id = m.id), m.created_at) as waiting_since
    from mocs m
    cross join lateral (select ${pendingStepSql(actor)} as type) a
    where a.type is not null
      ${delegate ? sql`and ${actingIndependentSql(sql`a.type`, delegate)} and ${ownedStepSql(sql`a.type`, actor)}` : sql``}
      and (m.id = any(array(select mu.moc_id from moc_users mu where mu.user_id = (select ${actor._id}::uuid)))
           ${isHseq ? sql`or m.status = 'c' or ${TEMPORARY_EXPIRED_SQL}` : sql``})`;
}

/** The ids of the MOCs with a step waiting on the actor, as a subquery (the MOC list's filter). */
export const pendingMocIds = (actor: Actor): SQL => sql`(select p.moc_id from (${pendingSteps(actor)}) p)`;

/**
 * The steps waiting on the actor, oldest wait first, at most `limit` of them (all without one),
 * with how many there are in all. Only the returned ones are populated.
 */
export async function pendingActions(
  actor: Actor,
  options: {
    limit?: number;
    /** The delegate who would act for `actor`: steps four eyes refuses them are left out. */
    delegate?: Actor;
  } = {},
): Promise<{ actions: PendingAction[]; total: number }> {
  const rows = await getDb().execute<PendingAction & { total: number }>(sql`
    select p.type, ${sql.raw(MOC_SUMMARY_JSON)} as moc,
      ${sql.raw(iso("p.waiting_since"))} as "waitingSince",
      ${STAGE_LABEL_SQL} as stage, ${mayActSql(sql`p.type`, actor)} as "mayAct", p.total
    from (
      select s.*, count(*) over ()::int as total from (${pendingSteps(actor, options.delegate)}) s
      order by s.waiting_since, s.serial_year, s.serial_count
      limit ${options.limit ?? null}
    ) p
    join mocs m on m.id = p.moc_id
    order by p.waiting_since, p.serial_year, p.serial_count`);
  return { actions: rows.map(({ total: _total, ...action }) => action), total: rows[0]?.total ?? 0 };
}
