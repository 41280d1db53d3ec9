/**
 * In-app notifications: the messages the outbox already keeps for each user (email_messages,
 * one row per recipient), read back as a list with a read marker. Nothing new is written when
 * something happens; marking read is the only change, and only to one's own messages. A notice
 * about a record is labelled and linked by the record's kind (`notices` and `page` in its registry
 * entry, docs/decisions/060-record-kinds.md), so a kind added later is listed through its entry alone.
 */
import { sql, type SQL } from "drizzle-orm";
import { iso } from "#db/moc-document";
import { getDb } from "~/utils/db.server";
import { NotFound } from "~/utils/errors";
import type { Actor } from "../authz/authz.server";
import { findRecordKind, kindsWith } from "../record-kind/record-kind";

export type Notification = {
  id: string;
  subject: string;
  /** Where the reader acts: the step form waiting on them, or the record. */
  link: string | null;
  /** The record's kind (`email_messages.record_type`), or null for a notice about no record. */
  recordType: string | null;
  /** The record's label ("MOC 2026-001"), when it still exists. */
  recordLabel: string | null;
  createdAt: string;
  readAt: string | null;
};

export const NOTIFICATIONS_PAGE_SIZE = 25;

/**
 * Where a notice leads: its own link (the step form waiting on its reader), else its record's page
 * by the record's kind, for a kind that declares notices; null for a notice about no record.
 */
function noticeLink(row: { link: string | null; recordType: string | null; recordId: string | null }): string | null {
  if (row.link !== null || row.recordType === null || row.recordId === null) return row.link;
  const kind = findRecordKind(row.recordType);
  return kind?.notices && kind.page ? kind.page(row.recordId) : null;
}

/** Over the notice `p`: its record's label by its kind's `notices.labelSql`, null when the record is gone. */
function recordLabelSql(): SQL {
  const arms = kindsWith("notices").map(
    (kind) => sql`when ${kind.name} then ${kind.notices.labelSql(sql`p.record_id`)}`,
  );
  return arms.length ? sql`case p.record_type ${sql.join(arms, sql` `)} end` : sql`null::text`;
}

/** The actor's notifications, newest first, a page at a time, with the total and unread counts (one query). */
export async function listNotifications(
  actor: Actor,
  options: { unreadOnly?: boolean; page?: number } = {},
): Promise<{ notifications: Notification[]; total: number; unread: number }> {
  const offset = (Math.max(options.page ?? 1, 1) - 1) * NOTIFICATIONS_PAGE_SIZE;
  const rows = await getDb().execute<Notification & { recordId: string | null; total: number; unread: number }>(sql`
    with mine as (
      select e.* from email_messages e where e.to_user_id = ${actor._id}
    ), counts as (
      select count(*) filter (where ${options.unreadOnly ? sql`read_at is null` : sql`true`})::int as total,
        count(*) filter (where read_at is null)::int as unread
      from mine
    ), page as (
      select * from mine
      where ${options.unreadOnly ? sql`read_at is null` : sql`true`}
      order by created_at desc, id desc
      limit ${NOTIFICATIONS_PAGE_SIZE} offset ${offset}
    )
    select p.id, p.subject, p.link, p.record_type as "recordType", p.record_id as "recordId",
      ${recordLabelSql()} as "recordLabel",
      ${sql.raw(iso("p.created_at"))} as "createdAt",
      ${sql.raw(iso("p.read_at"))} as "readAt",
      c.total, c.unread
    from counts c left join page p on true
    order by p.created_at desc, p.id desc`);
  const first = rows[0];
  return {
    notifications: rows
      .filter((r) => r.id)
      .map(({ total: _t, unread: _u, recordId, ...n }) => ({ ...n, link: noticeLink({ ...n, recordId }) })),
    total: first?.total ?? 0,
    unread: first?.unread ?? 0,
  };
}

/** How many of the actor's notifications are unread (the header's count). */
export async function unreadNotificationCount(actor: Pick<Actor, "_id">): Promise<number> {
  const [row] = await getDb().execute<{ n: number }>(
    sql`select count(*)::int as n from email_messages where to_user_id = ${actor._id} and read_at is null`,
  );
  return row?.n ?? 0;
}

/**
 * Marks one of the actor's notifications read and returns where it leads. Someone else's (or an
 * unknown) id is 404 either way, so ids cannot be probed.
 */
export async function markNotificationRead(actor: Actor, id: string): Promise<{ link: string | null }> {
  const [row] = await getDb().execute<{ link: string | null; recordType: string | null; recordId: string | null }>(sql`
    update email_messages set read_at = coalesce(read_at, now())
    where id = ${id} and to_user_id = ${actor._id}
    returning link, record_type as "recordType", record_id as "recordId"`);
  if (!row) throw new NotFound("There is no such notification");
  return { link: noticeLink(row) };
}

/** Marks every unread notification of the actor read; returns how many changed. */
export async function markAllNotificationsRead(actor: Actor): Promise<number> {
  const rows = await getDb().execute<{ id: string }>(sql`
    update email_messages set read_at = now() where to_user_id = ${actor._id} and read_at is null returning id`);
  return rows.length;
}
