/**
 * The caller's pending work, derived from MOC state (clarifications section 3), in one query:
 * `[ { type, moc } ]` with `moc` populated with its originator form and originator. The dashboard
 * shows the same list ("waiting on me").
 */
import { sql } from "drizzle-orm";
import { getDb } from "~/utils/db.server";
import { MOC_SUMMARY_JSON } from "#db/moc-document";
import type { PublicUser } from "./user.server";

export type PendingAction = {
  type: "implementer" | "hseq" | "approver" | "implementation" | "verifier" | "deviation-extension";
  moc: Record<string, unknown> & { _id: string; serial_num: string; target_date: string | null };
  /** When the MOC reached the step that now waits on the caller. */
  waitingSince: string;
};

/**
 * Mirrors `mayActOnStep` in authz.server.ts for each status; tests hold the two together.
 * Only the caller's own MOCs (all_users) are looked at, plus every MOC at `c` for HSEQ users:
 * whoever holds a role on a MOC is in its all_users (every assignment adds them; the MOC tests
 * check it after every run), so the query reads the caller's MOCs by key instead of every open one.
 */
export async function pendingActions(user: PublicUser): Promise<PendingAction[]> {
  const isHseq = user.department === "hseq";
  const outstanding = sql`(m.deviations is not null and (
      (m.deviations->'deviation' is not null and m.deviations->'deviation' <> 'null'::jsonb and not (m.deviations->'deviation'->>'resolved')::boolean)
   or (m.deviations->'extension' is not null and m.deviations->'extension' <> 'null'::jsonb and not (m.deviations->'extension'->>'resolved')::boolean)))`;
  const rows = await getDb().execute<PendingAction>(sql`
    select a.type, ${sql.raw(MOC_SUMMARY_JSON)} as moc,
      to_char(coalesce((select max(l.at) from moc_logs l where l.moc_id = m.id), m.created_at) at time zone 'UTC',
              'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "waitingSince"
    from mocs m
    cross join lateral (
      select case
        when m.status = 'b' and ${outstanding} and (m.approver_id = ${user._id} or m.hseq_id = ${user._id}) then 'deviation-extension'
        when m.status = 'b' and not ${outstanding} and m.implementer_id = ${user._id} then 'implementer'
        when m.status = 'c' and ${isHseq ? sql`true` : sql`false`} then 'hseq'
        when m.status = 'd' and m.approver_id = ${user._id} then 'approver'
        when m.status = 'e' and m.implementer_id = ${user._id} then 'implementation'
        when m.status = 'f' and (m.verifier_id = ${user._id} or (m.verifier_id is null and m.hseq_id = ${user._id})) then 'verifier'
      end as type
    ) a
    where not m.is_deleted and not m.completed and m.status <> 'decline' and a.type is not null
      and (m.id = any(array(select mu.moc_id from moc_users mu where mu.user_id = (select ${user._id}::uuid)))
           ${isHseq ? sql`or m.status = 'c'` : sql``})
    order by "waitingSince" asc, m.serial_year, m.serial_count`);
  return [...rows];
}
