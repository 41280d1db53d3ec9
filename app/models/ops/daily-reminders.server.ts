/**
 * The daily reminder run (docs/decisions/008-reminders.md, docs/decisions/060-record-kinds.md): the
 * part of every registered kind that declares `reminders` (the MOC's target dates, plan items,
 * acknowledgements, temporary changes and effectiveness reviews: app/models/moc/reminder.server.ts),
 * one after the other in one transaction, so a failed run claims nothing of any kind. The daily
 * pg-boss job (jobs/reminder.ts) and GET /api/auto_reminder both run it; a kind added later is
 * reminded through its registry entry alone. Each kind claims what it reminds per day, so a second
 * run of the same day sends nothing.
 */
import { sql } from "drizzle-orm";
import { ADVISORY_LOCKS } from "#db/advisory-locks";
import { getDb, type Executor } from "~/utils/db.server";
import { Invalid } from "~/utils/errors";
import { kindsWith, type ReminderOutcome } from "../record-kind/record-kind";

// Reminder runs take turns (a transaction-scoped advisory lock): a second run waits for the
// first to commit and then finds everything claimed, instead of racing it row by row.
const REMINDER_LOCK = ADVISORY_LOCKS.reminders;

export const utcDay = (now: Date) => now.toISOString().slice(0, 10);

function parseDay(today: string | Date | undefined): string {
  const day = today instanceof Date ? utcDay(today) : (today ?? utcDay(new Date()));
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) {
    throw new Invalid("today must be a date (YYYY-MM-DD)", [{ path: "today", message: "Expected YYYY-MM-DD" }]);
  }
  return day;
}

/** One day's run: what it says, the emails the kinds counted, and each kind's own outcome. */
export type DailyReminderRun = {
  day: string;
  /** The kinds' summaries joined, or that nothing was due. */
  message: string;
  emails: number;
  /** In the registry's order, one per kind that declares `reminders`. */
  outcomes: { kind: string; outcome: ReminderOutcome }[];
};

/**
 * Runs the reminders of `today` (a UTC date; now by default) of every kind that declares them,
 * inside `tx` when given (the job's claimed transaction), else in a transaction of its own.
 */
export async function runDailyReminders(
  options: { today?: string | Date; tx?: Executor } = {},
): Promise<DailyReminderRun> {
  const day = parseDay(options.today);
  const run = async (tx: Executor): Promise<DailyReminderRun> => {
    await tx.execute(sql`select pg_advisory_xact_lock(${REMINDER_LOCK})`);
    const outcomes: DailyReminderRun["outcomes"] = [];
    // One kind after the other: they share the transaction's one connection.
    for (const kind of kindsWith("reminders"))
      outcomes.push({ kind: kind.name, outcome: await kind.reminders(tx, day) });
    const summaries = outcomes.flatMap(({ outcome }) => (outcome.summary === null ? [] : [outcome.summary]));
    return {
      day,
      message: summaries.length
        ? summaries.join("; ")
        : `No reminders due for ${day} (nothing due, or already reminded today)`,
      emails: outcomes.reduce((sum, { outcome }) => sum + outcome.emails, 0),
      outcomes,
    };
  };
  return options.tx ? run(options.tx) : getDb().transaction(run);
}
