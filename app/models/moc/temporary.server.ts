/**
 * Temporary changes over time (docs/decisions/023-temporary-changes-and-delegation.md): the state
 * on a day as SQL (the twin of `temporaryStateOn`), and the daily run's part — recording the
 * expired ones, reminding 7 and 1 days before the end, and emailing the HSEQ department every day
 * about each expired one until it is resolved. Called by `remindMocs` in the daily run's
 * transaction, so it has the same once-a-day guarantee: `temporary_reminders`' primary key claims a
 * MOC for a day.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "~/utils/db.server";
import { queueEmails, type QueuedEmail } from "../messages/email.server";
import { appendLog } from "./moc-store.server";
import { mocEmailName } from "./moc-names";
import { TITLE_AND_VESSEL_OF_M } from "./moc-scope.server";
import { ENDING_SOON_DAYS, type TemporaryFilter } from "./moc-status";

/** `temporaryStateOn(m.temporary, day)` as SQL over `m` (`day` a date parameter or expression). */
export const temporaryStateSql = (day: SQL): SQL => sql`(case
  when m.temporary is null then null
  when m.temporary->>'state' = 'in-effect' and (m.temporary->>'until')::date < ${day} then 'expired'
  else m.temporary->>'state' end)`;

/** Today in UTC as SQL. */
export const TODAY_SQL = sql`(now() at time zone 'UTC')::date`;

export function temporaryFilterSql(filter: TemporaryFilter, day: SQL = TODAY_SQL): SQL {
  const state = temporaryStateSql(day);
  const live = sql`not m.is_deleted and ${state} in ('in-effect', 'extension-requested')`;
  if (filter === "in-effect") return live;
  if (filter === "ending-soon") {
    return sql`${live} and (m.temporary->>'until')::date <= ${day} + ${sql.raw(String(ENDING_SOON_DAYS))}`;
  }
  return sql`not m.is_deleted and ${state} = 'expired'`;
}

/** The counts the dashboard shows, over the MOCs of `scope`. */
export const temporaryCountsSql = (scope: SQL, day: SQL = TODAY_SQL): SQL => sql`
  select count(*) filter (where ${temporaryFilterSql("in-effect", day)})::int as "inEffect",
    count(*) filter (where ${temporaryFilterSql("ending-soon", day)})::int as "endingSoon",
    count(*) filter (where ${temporaryFilterSql("expired", day)})::int as expired
  from mocs m where m.temporary is not null and ${scope}`;

export type TemporaryReminder = {
  moc_id: string;
  serial_num: string;
  kind: "ending" | "expired";
  days_left: number;
  emailsSent: number;
};

type Claimed = {
  mocId: string;
  serialNum: string;
  title: string | null;
  vessel: string | null;
  kind: "ending" | "expired";
  daysLeft: number;
  until: string;
  recipients: { id: string; name: string; email: string }[];
};

/** Days before the end when the originator, implementer and HSEQ user are reminded. */
export const TEMPORARY_REMINDER_DAYS = [7, 1];

/**
 * The daily run's temporary changes for `day`: records as expired those past their end with
 * nothing recorded (with an audit entry), then claims and emails the day's reminders.
 */
export async function sendTemporaryReminders(
  tx: Executor,
  day: string,
): Promise<{
  emails: number;
  results: TemporaryReminder[];
}> {
  const expired = await tx.execute<{ id: string; status: string; until: string }>(sql`
    update mocs m set temporary = m.temporary || jsonb_build_object('state', 'expired', 'expired_since', ${day}::text),
      updated_at = now()
    where m.temporary is not null and m.completed and not m.is_deleted
      and m.temporary->>'state' = 'in-effect' and (m.temporary->>'until')::date < ${day}::date
    returning m.id, m.status, m.temporary->>'until' as until`);
  // Each keyed by the application (docs/decisions/025-keyed-audit-chain.md), in id order.
  for (const moc of [...expired].sort((a, b) => a.id.localeCompare(b.id))) {
    await appendLog(tx, {
      mocId: moc.id,
      userId: null,
      action: "Temporary change expired, not restored",
      from: moc.status,
      to: moc.status,
      comment: `The end date ${moc.until} passed with no restoration, extension or permanent change recorded`,
    });
  }
  const rows = await tx.execute<Claimed>(sql`
    with due as (
      select m.id as moc_id, ((m.temporary->>'until')::date - ${day}::date) as days_left,
        case when m.temporary->>'state' = 'expired' then 'expired' else 'ending' end as kind
      from mocs m
      where m.temporary is not null and m.completed and not m.is_deleted
        and (m.temporary->>'state' = 'expired'
          or (m.temporary->>'state' in ('in-effect', 'extension-requested')
            and (m.temporary->>'until')::date - ${day}::date in (${sql.join(
              TEMPORARY_REMINDER_DAYS.map((d) => sql.raw(String(d))),
              sql`, `,
            )})))
    ),
    claimed as (
      insert into temporary_reminders (moc_id, day, kind, days_left)
      select moc_id, ${day}::date, kind, days_left from due order by moc_id
      on conflict do nothing
      returning moc_id, kind, days_left
    )
    select c.moc_id as "mocId", m.serial_num as "serialNum", ${TITLE_AND_VESSEL_OF_M}, c.kind, c.days_left as "daysLeft",
      m.temporary->>'until' as until,
      coalesce((
        select json_agg(json_build_object('id', u.id, 'name', u.name, 'email', u.email) order by u.email)
        from users u
        where u.active and case when c.kind = 'expired' then u.department = 'hseq'
          else u.id in (m.originator_id, m.implementer_id, m.hseq_id) end
      ), '[]'::json) as recipients
    from claimed c join mocs m on m.id = c.moc_id
    order by c.kind, c.days_left, m.serial_year, m.serial_count`);
  const emails: QueuedEmail[] = rows.flatMap((row) =>
    row.recipients.map((to) => ({
      to,
      content: content(row),
      record: { type: "moc" as const, id: row.mocId },
      kind: "reminder" as const,
    })),
  );
  await queueEmails(tx, emails);
  const counts = rows.map((row) => ({ moc_id: row.mocId, n: row.recipients.length }));
  if (counts.some((c) => c.n > 0)) {
    await tx.execute(sql`
      update temporary_reminders r set emails_sent = c.n
      from jsonb_to_recordset(${JSON.stringify(counts)}::jsonb) as c(moc_id uuid, n int)
      where r.moc_id = c.moc_id and r.day = ${day}::date`);
  }
  return {
    emails: emails.length,
    results: rows.map((row) => ({
      moc_id: row.mocId,
      serial_num: row.serialNum,
      kind: row.kind,
      days_left: row.daysLeft,
      emailsSent: row.recipients.length,
    })),
  };
}

function content(row: Claimed): QueuedEmail["content"] {
  const label = mocEmailName(row.serialNum, row.title, row.vessel);
  if (row.kind === "expired") {
    const days = -row.daysLeft;
    return {
      record: { label, url: `/mocs/${row.mocId}` },
      subject: `Expired, not restored: the temporary change ${label} ended ${days} day${days === 1 ? "" : "s"} ago`,
      event: `The temporary change ${label} had to end on ${row.until} and nothing has been recorded: the original condition is not confirmed restored.`,
      expectation:
        "The implementer restores the original condition and reports it (HSEQ confirms), or asks the approver for an extension, or makes the change permanent with a new MOC. This email comes every day until then.",
      details: [
        ["End date", row.until],
        ["Days past the end", String(days)],
      ],
    };
  }
  const when = row.daysLeft === 1 ? "tomorrow" : `in ${row.daysLeft} days`;
  return {
    record: { label, url: `/mocs/${row.mocId}` },
    subject: `The temporary change ${label} ends ${when} (${row.until})`,
    event: `The temporary change ${label} must end on ${row.until}, ${when}.`,
    expectation:
      "Before then the implementer restores the original condition and reports it (HSEQ confirms), asks the approver for an extension, or makes the change permanent with a new MOC.",
    details: [
      ["End date", row.until],
      ["Days left", String(row.daysLeft)],
    ],
  };
}
