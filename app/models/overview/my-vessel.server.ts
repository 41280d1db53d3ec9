/**
 * "My vessel" on the dashboard (issue 41): for a person assigned to a vessel today
 * (`currentAssignmentSql`), that vessel's open MOCs and temporary changes in effect (the MOC list's
 * own conditions, `searchMocs`), who is on board with their ranks, and the MOCs of the vessel
 * completed in the last 90 days. PCRs name no vessel, so finished PCRs are not among them.
 *
 * Cost: one indexed query for everyone (their assignments of today, none for office staff ends
 * there), then four in parallel for the one vessel shown, whatever the number of MOCs or crew;
 * each list capped, with a link to the full one. Several vessels at once: the first (the latest
 * assignment) unless `?vessel=` names another of them, with a link to each.
 */
import { sql } from "drizzle-orm";
import { getDb } from "~/utils/db.server";
import { currentAssignmentSql, type Actor } from "../authz/authz.server";
import { mocListWhere, searchMocs, type MocListRow } from "../moc/moc-list.server";
import { MOC_CLOSED_ACTION } from "../moc/steps/implementation.server";
import { TITLE_SQL } from "../moc/moc-scope.server";
import { crewOnBoard, visibleCrew, type CrewList } from "./vessel-page.server";

/** How many of each list the dashboard shows before its "see all" link. */
export const MY_VESSEL_SHOWN = { mocs: 5, crew: 12 } as const;
/** "Recently finished": completed within this many days. */
export const RECENTLY_FINISHED_DAYS = 90;

/** A MOC as the section shows it: what the MOC list shows of it, no more (the page carries it). */
export type MyVesselMoc = Pick<
  MocListRow,
  | "id"
  | "serialNum"
  | "title"
  | "status"
  | "completed"
  | "stage"
  | "owner"
  | "targetDate"
  | "temporaryState"
  | "temporaryUntil"
>;

export type FinishedMoc = { id: string; serialNum: string; title: string | null; closedAt: string };

export type MyVessel = {
  /** Every vessel the person is on today, latest assignment first (a switch when more than one). */
  vessels: { id: string; name: string }[];
  vessel: { id: string; name: string; imo: string };
  open: { rows: MyVesselMoc[]; total: number };
  temporary: { rows: MyVesselMoc[]; total: number };
  crew: CrewList;
  finished: { rows: FinishedMoc[]; total: number };
};

const slim = (r: MocListRow): MyVesselMoc => ({
  id: r.id,
  serialNum: r.serialNum,
  title: r.title,
  status: r.status,
  completed: r.completed,
  stage: r.stage,
  owner: r.owner,
  targetDate: r.targetDate,
  temporaryState: r.temporaryState,
  temporaryUntil: r.temporaryUntil,
});

/** The section's data for `actor`, or null when they are on no vessel today. `chosen`: `?vessel=`. */
export async function myVessel(actor: Actor, chosen?: string | null): Promise<MyVessel | null> {
  const db = getDb();
  const vessels = [
    ...(await db.execute<{ id: string; name: string; imo: string }>(sql`
      select v.id, v.name, v.imo
      from vessel_assignments va join vessels v on v.id = va.vessel_id
      where va.user_id = ${actor._id}::uuid and ${currentAssignmentSql("va")}
      order by va.from_date desc, v.name, v.id`)),
  ];
  const vessel = vessels.find((v) => v.id === chosen) ?? vessels[0];
  if (!vessel) return null;
  const [open, temporary, crew, finished] = await Promise.all([
    searchMocs(actor, { vessel: vessel.id, state: "open", sort: "target", pageSize: MY_VESSEL_SHOWN.mocs }),
    searchMocs(actor, {
      vessel: vessel.id,
      temporary: "in-effect",
      sort: "temporary",
      pageSize: MY_VESSEL_SHOWN.mocs,
    }),
    crewOnBoard(vessel.id, actor._id, MY_VESSEL_SHOWN.crew),
    db.execute<FinishedMoc & { total: number }>(sql`
      select m.id, m.serial_num as "serialNum",
        (select ${TITLE_SQL} from moc_forms f where f.moc_id = m.id and f.kind = 'originator') as title,
        to_char(c.at at time zone 'UTC', 'YYYY-MM-DD') as "closedAt", count(*) over ()::int as total
      from mocs m
      cross join lateral (select max(l.at) as at from moc_logs l
        where l.moc_id = m.id and l.action = ${MOC_CLOSED_ACTION}) c
      where ${mocListWhere(actor, { vessel: vessel.id, state: "completed" })}
        and c.at >= now() - make_interval(days => ${RECENTLY_FINISHED_DAYS})
      order by c.at desc, m.id
      limit ${MY_VESSEL_SHOWN.mocs}`),
  ]);
  return {
    vessels: vessels.map(({ id, name }) => ({ id, name })),
    vessel,
    open: { rows: open.rows.map(slim), total: open.total },
    temporary: { rows: temporary.rows.map(slim), total: temporary.total },
    // Assigned to it today, so theirs to see (`canSeeCrewList`); an empty list only if that changed meanwhile.
    crew: visibleCrew(actor, crew) ?? { rows: [], total: 0 },
    finished: { rows: finished.map(({ total: _total, ...row }) => row), total: finished[0]?.total ?? 0 },
  };
}
