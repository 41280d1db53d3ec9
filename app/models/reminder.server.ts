/**
 * Target-date reminders (clarifications section 8). The daily pg-boss job and GET
 * /api/auto_reminder both call `sendDueReminders`. One statement finds the due MOCs, works out
 * their urgency, claims them for the day in `moc_reminders` and returns their recipients; a MOC
 * already claimed that day (by another instance, another call) is skipped by the primary key. The
 * emails are queued in the same transaction, so a failed run claims nothing. The statement count
 * is fixed and the scan is the partial index on the target date: the cost follows the number of
 * MOCs due, not the number of MOCs.
 */
import { sql } from "drizzle-orm";
import type { ReminderUrgency } from "#db/schema";
import { getDb, type Executor } from "~/utils/db.server";
import { Invalid } from "~/utils/errors";
import { queueEmails, type QueuedEmail } from "./email.server";
import { OWNER, PENDING_RESOLUTION } from "./moc-list.server";
import { mocStatusLabel } from "./moc-status";
import { mocLabel } from "./moc-store.server";

export type ReminderResult = { moc_id: string; serial_num: string; urgency: ReminderUrgency; emailsSent: number };
export type ReminderRun = { message: string; totalReminders: number; results: ReminderResult[] };

/** Days before the target date (negative: overdue) per urgency; MEDIUM and LOW need an old MOC. */
export const URGENCY_WINDOWS: { urgency: ReminderUrgency; from: number; to: number; olderThanDays?: number }[] = [
  { urgency: "CRITICAL", from: -14, to: -1 },
  { urgency: "URGENT", from: 0, to: 1 },
  { urgency: "HIGH", from: 2, to: 7 },
  { urgency: "MEDIUM", from: 8, to: 14, olderThanDays: 30 },
  { urgency: "LOW", from: 15, to: 30, olderThanDays: 30 },
];
const EARLIEST = Math.min(...URGENCY_WINDOWS.map((w) => w.from));
const LATEST = Math.max(...URGENCY_WINDOWS.map((w) => w.to));

// Reminder runs take turns (a transaction-scoped advisory lock): a second run waits for the
// first to commit and then finds every MOC claimed, instead of racing it row by row.
const REMINDER_LOCK = 727_008;

export const utcDay = (now: Date) => now.toISOString().slice(0, 10);

function parseDay(today: string | Date | undefined): string {
  const day = today instanceof Date ? utcDay(today) : (today ?? utcDay(new Date()));
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) {
    throw new Invalid("today must be a date (YYYY-MM-DD)", [{ path: "today", message: "Expected YYYY-MM-DD" }]);
  }
  return day;
}

/**
 * The due MOCs of `day` with their urgency and days left, as SQL: a range scan of
 * `mocs_target_date_idx` (whose predicate the where clause repeats), then the urgency table.
 */
export function dueMocsQuery(day: string) {
  const d = sql`(m.target_date - ${day}::date)`;
  const ageDays = sql`(${day}::date - (m.created_at at time zone 'UTC')::date)`;
  const cases = URGENCY_WINDOWS.map(
    (w) =>
      sql`when ${d} between ${sql.raw(String(w.from))} and ${sql.raw(String(w.to))}${
        w.olderThanDays === undefined ? sql`` : sql` and ${ageDays} > ${sql.raw(String(w.olderThanDays))}`
      } then ${w.urgency}::text`,
  );
  return sql`
    select m.id as moc_id, ${d} as days_left, case ${sql.join(cases, sql` `)} end as urgency
    from mocs m
    where not m.is_deleted and not m.completed
      and m.target_date between ${day}::date + ${sql.raw(String(EARLIEST))} and ${day}::date + ${sql.raw(String(LATEST))}
      and m.status <> 'decline'`;
}

type ClaimedRow = {
  mocId: string;
  serialNum: string;
  urgency: ReminderUrgency;
  daysLeft: number;
  targetDate: string;
  status: string;
  pendingResolution: boolean;
  owner: string | null;
  recipients: { id: string; name: string; email: string }[];
};

/** Claims the due MOCs of `day` not yet reminded that day, with everything the emails need. */
async function claimDueMocs(tx: Executor, day: string): Promise<ClaimedRow[]> {
  const rows = await tx.execute<ClaimedRow>(sql`
    with due as (${dueMocsQuery(day)}),
    claimed as (
      insert into moc_reminders (moc_id, day, urgency, days_left)
      select moc_id, ${day}::date, urgency, days_left from due where urgency is not null order by moc_id
      on conflict do nothing
      returning moc_id, urgency, days_left
    )
    select c.moc_id as "mocId", m.serial_num as "serialNum", c.urgency, c.days_left as "daysLeft",
      m.target_date::text as "targetDate", m.status, ${PENDING_RESOLUTION} as "pendingResolution",
      ${OWNER} as owner,
      coalesce((
        select json_agg(json_build_object('id', u.id, 'name', u.name, 'email', u.email) order by u.email)
        from moc_users mu join users u on u.id = mu.user_id
        where mu.moc_id = c.moc_id and u.active
      ), '[]'::json) as recipients
    from claimed c join mocs m on m.id = c.moc_id
    order by c.days_left, m.serial_year, m.serial_count`);
  return [...rows];
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** "is 3 days overdue", "is due today", "is due tomorrow", "is due in 5 days". */
export function dueText(daysLeft: number): string {
  if (daysLeft < 0) return `is ${plural(-daysLeft, "day")} overdue`;
  if (daysLeft === 0) return "is due today";
  if (daysLeft === 1) return "is due tomorrow";
  return `is due in ${plural(daysLeft, "day")}`;
}

function reminderContent(row: ClaimedRow): QueuedEmail["content"] {
  const step = row.pendingResolution ? "Deviation/extension resolution" : mocStatusLabel(row.status);
  const due = dueText(row.daysLeft);
  const label = mocLabel(row.serialNum);
  return {
    record: { label, url: `/mocs/${row.mocId}` },
    subject: `${row.urgency} reminder: ${label} ${due}`,
    event: `${row.urgency}: ${label} ${due} (target date ${row.targetDate}).`,
    expectation: row.owner
      ? `It is waiting for ${step}, owned by ${row.owner}. Finish the open work before the target date, or ask for an extension.`
      : `It is waiting for ${step}. Finish the open work before the target date, or ask for an extension.`,
    details: [
      ["Urgency", row.urgency],
      ["Target date", row.targetDate],
      row.daysLeft < 0 ? ["Days overdue", String(-row.daysLeft)] : ["Days left", String(row.daysLeft)],
      ["Current step", step],
      ["Step owner", row.owner ?? "Not assigned"],
    ],
  };
}

/**
 * Sends today's reminders: each due MOC at most once per UTC day, one email per active MOC user.
 * `today` (a UTC date) defaults to now; `tx` runs it inside the caller's transaction.
 */
export async function sendDueReminders(options: { today?: string | Date; tx?: Executor } = {}): Promise<ReminderRun> {
  const day = parseDay(options.today);
  const run = async (tx: Executor): Promise<ReminderRun> => {
    await tx.execute(sql`select pg_advisory_xact_lock(${REMINDER_LOCK})`);
    const claimed = await claimDueMocs(tx, day);
    const emails: QueuedEmail[] = claimed.flatMap((row) => {
      const content = reminderContent(row);
      return row.recipients.map((to) => ({ to, content, record: { type: "moc" as const, id: row.mocId } }));
    });
    await queueEmails(tx, emails);
    const counts = claimed.map((row) => ({ moc_id: row.mocId, n: row.recipients.length }));
    if (counts.some((c) => c.n > 0)) {
      await tx.execute(sql`
        update moc_reminders r set emails_sent = c.n
        from jsonb_to_recordset(${JSON.stringify(counts)}::jsonb) as c(moc_id uuid, n int)
        where r.moc_id = c.moc_id and r.day = ${day}::date`);
    }
    const results = claimed.map((row) => ({
      moc_id: row.mocId,
      serial_num: row.serialNum,
      urgency: row.urgency,
      emailsSent: row.recipients.length,
    }));
    const emailCount = emails.length;
    return {
      message: results.length
        ? `Sent ${plural(emailCount, "reminder email")} about ${plural(results.length, "MOC")} for ${day}`
        : `No reminders due for ${day} (nothing due, or already reminded today)`,
      totalReminders: results.length,
      results,
    };
  };
  return options.tx ? run(options.tx) : getDb().transaction(run);
}
