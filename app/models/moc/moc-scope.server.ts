/**
 * Part A's title and scope in SQL (docs/decisions/036-vessels-and-crew-access.md), for the lists,
 * their CSV, the dashboard, the vessel page and Insight: over the originator form `f` of `mocs m`.
 */
import { sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { NOT_RECORDED } from "./moc-names";
import { SCOPE_LABELS } from "../fleet/vessel.schema";

/** Part A's title, or null. */
export const TITLE_SQL = sql<string | null>`nullif(f.data->'title'->>'value', '')`;

/** Part A's scope as it reads: the vessel's name, "Office / shore", "Fleet-wide", or null when not recorded. */
export const VESSEL_LABEL_SQL = sql<string | null>`case
  when jsonb_typeof(f.data->'vessel'->'value') = 'object' then f.data->'vessel'->'value'->>'name'
  when f.data->'vessel'->>'value' = 'office' then ${SCOPE_LABELS.office}::text
  when f.data->'vessel'->>'value' = 'fleet' then ${SCOPE_LABELS.fleet}::text end`;

/**
 * Columns `title` and `vessel` (null when not recorded) of the MOC `m`, for the emails that name it
 * (`mocEmailName`, app/models/moc/moc-names.ts).
 */
export const TITLE_AND_VESSEL_OF_M = sql`(select ${TITLE_SQL} from moc_forms f where f.moc_id = m.id and f.kind = 'originator') as title,
  (select ${VESSEL_LABEL_SQL} from moc_forms f where f.moc_id = m.id and f.kind = 'originator') as vessel`;

/** The same, "Not recorded" in place of null (CSV, Insight). */
export const VESSEL_LABEL_OR_NOT_RECORDED_SQL = sql<string>`coalesce(${VESSEL_LABEL_SQL}, ${NOT_RECORDED}::text)`;

/** The lists' `vessel` filter: a vessel's id, "office", "fleet" or "none" (not recorded). */
export const vesselFilterSchema = z
  .union([z.uuid(), z.enum(["office", "fleet", "none"])])
  .optional()
  .catch(undefined);
export type VesselFilter = z.infer<typeof vesselFilterSchema>;

/** The filter as a condition on `mocs m` (its own look-up of Part A, so any query can add it). */
export function vesselFilterSql(vessel: NonNullable<VesselFilter>): SQL {
  const partA = sql`select 1 from moc_forms vf where vf.moc_id = m.id and vf.kind = 'originator'`;
  if (vessel === "none") {
    return sql`not exists (${partA} and vf.data->'vessel'->'value' is not null and vf.data->'vessel'->'value' <> 'null'::jsonb)`;
  }
  if (vessel === "office" || vessel === "fleet")
    return sql`exists (${partA} and vf.data->'vessel'->>'value' = ${vessel})`;
  return sql`exists (${partA} and (vf.data->'vessel'->'value')->>'_id' = ${vessel})`;
}
