/**
 * A vessel's page (docs/decisions/036-vessels-and-crew-access.md): its open MOCs, its temporary
 * changes in effect and its overdue plan items, among the MOCs the viewer may see (the pages'
 * list rule, crew access included). Four queries whatever the number of MOCs.
 */
import { sql } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "~/utils/db.server";
import { NotFound } from "~/utils/errors";
import type { Actor } from "./authz.server";
import { openItemSql } from "./moc-closure";
import { mocListWhere, searchMocs, type MocListRow } from "./moc-list.server";
import { getVessel, type VesselJson } from "./vessel.server";

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
};

const SHOWN = 50;

export async function vesselOverview(actor: Actor, id: string): Promise<VesselOverview> {
  if (!z.uuid().safeParse(id).success) throw new NotFound("No vessel with this id");
  const vessel = await getVessel(id);
  const [open, temporary, overdue] = await Promise.all([
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
  ]);
  return { vessel, open, temporary, overdue: [...overdue] };
}
