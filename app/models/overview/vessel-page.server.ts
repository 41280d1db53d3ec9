/**
 * A vessel's page (docs/decisions/036-vessels-and-crew-access.md): its open MOCs, its temporary
 * changes in effect and its overdue plan items, among the MOCs the viewer may see (the pages'
 * list rule, crew access included), and who is on board today with their ranks (`canSeeCrewList`).
 * Five queries whatever the number of MOCs or people.
 */
import { sql } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "~/utils/db.server";
import { NotFound } from "~/utils/errors";
import { canSeeCrewList, currentAssignmentSql, type Actor } from "../authz/authz.server";
import { openItemSql } from "../moc/moc-closure";
import { mocListWhere, searchMocs, type MocListRow } from "../moc/moc-list.server";
import { getVessel, type VesselJson } from "../fleet/vessel.server";

export type OverdueItem = {
  mocId: string;
  serialNum: string;
  title: string | null;
  plan: "action" | "manuals";
  description: string;
  owner: string | null;
  due: string;
};

export type VesselOverview = {
  vessel: VesselJson;
  open: { rows: MocListRow[]; total: number };
  temporary: { rows: MocListRow[]; total: number };
  overdue: OverdueItem[];
  /** Who is on board today, by rank; null when the viewer may not see it (`canSeeCrewList`). */
  crew: CrewList | null;
};

/** A person on board today: their name and rank (issue 41). */
export type CrewMember = { userId: string; name: string; rank: string | null };
export type CrewList = { rows: CrewMember[]; total: number };

const SHOWN = 50;
/** A crew is a few dozen people; more than this is a register to page through on /admin/vessels. */
const CREW_SHOWN = 100;

/**
 * The people assigned to the vessel today (active accounts), in the ranks' order (people without a
 * rank last), then by name: the first `limit`, how many in all, and whether `actorId` is one of
 * them, in one query.
 */
export async function crewOnBoard(
  vesselId: string,
  actorId: string,
  limit: number,
): Promise<CrewList & { actorOnBoard: boolean }> {
  const rows = await getDb().execute<CrewMember & { total: number; actorOnBoard: boolean }>(sql`
    select u.id as "userId", u.name, u.rank, count(*) over ()::int as total,
      bool_or(u.id = ${actorId}::uuid) over () as "actorOnBoard"
    from vessel_assignments va
    join users u on u.id = va.user_id and u.active
    left join ranks r on r.name = u.rank
    where va.vessel_id = ${vesselId}::uuid and ${currentAssignmentSql("va")}
    order by r.sort nulls last, u.name, u.id
    limit ${limit}`);
  return {
    rows: rows.map(({ userId, name, rank }) => ({ userId, name, rank })),
    total: rows[0]?.total ?? 0,
    actorOnBoard: rows[0]?.actorOnBoard ?? false,
  };
}

/** The crew list the actor may see, or null: the office that runs the fleet, or the vessel's own crew. */
export const visibleCrew = (actor: Actor, crew: CrewList & { actorOnBoard: boolean }): CrewList | null =>
  canSeeCrewList(actor, { crewIds: crew.actorOnBoard ? [actor._id] : [] })
    ? { rows: crew.rows, total: crew.total }
    : null;

export async function vesselOverview(actor: Actor, id: string): Promise<VesselOverview> {
  if (!z.uuid().safeParse(id).success) throw new NotFound("No vessel with this id");
  const vessel = await getVessel(id);
  const [open, temporary, overdue, crew] = await Promise.all([
    searchMocs(actor, { vessel: id, state: "open", sort: "target", pageSize: SHOWN }),
    searchMocs(actor, { vessel: id, temporary: "in-effect", sort: "temporary", pageSize: SHOWN }),
    getDb().execute<OverdueItem>(sql`
      select m.id as "mocId", m.serial_num as "serialNum", nullif(f.data->'title'->>'value', '') as title,
        i.plan, i.description, u.name as owner, i.due
      from mocs m
      left join moc_forms f on f.moc_id = m.id and f.kind = 'originator'
      cross join lateral (
        select 'action' as plan, x->>'description' as description, x->>'owner' as owner, x->>'due' as due,
          x as item
          from jsonb_array_elements(m.action->'items') x
        union all
        select 'manuals', concat_ws(': ', x->>'document', x->>'change'), x->>'owner', x->>'due', x
          from jsonb_array_elements(m.manual_plan->'items') x
      ) i
      left join users u on u.id::text = i.owner
      where ${mocListWhere(actor, { vessel: id, state: "open" })}
        and ${openItemSql(sql`i.item`)}
        and i.due is not null and i.due <> '' and i.due < to_char((now() at time zone 'UTC')::date, 'YYYY-MM-DD')
      order by i.due, m.serial_year, m.serial_count
      limit ${SHOWN}`),
    crewOnBoard(id, actor._id, CREW_SHOWN),
  ]);
  return { vessel, open, temporary, overdue: [...overdue], crew: visibleCrew(actor, crew) };
}
