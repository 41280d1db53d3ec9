/**
 * The daily reminder run (08:00 UTC): the same `runDailyReminders` as GET /api/auto_reminder (every
 * kind's reminders, app/models/ops/daily-reminders.server.ts), then the daily digests of optional
 * notices (`sendNoticeDigests`).
 * pg-boss fires each cron tick once across instances; besides, the run claims its UTC day in
 * `job_runs` inside the reminders' own transaction, so a repeated job (a retry after a crash that
 * came after the commit, a manual send) is a no-op, while a run that failed claims nothing and
 * its retry does the work. Per MOC, `moc_reminders`' primary key is the guarantee either way.
 */
import { sql } from "drizzle-orm";
import { getDb } from "#db/client";
import { sendNoticeDigests } from "~/models/messages/notice-digest.server";
import { reminderRunAnswer } from "~/models/moc/reminder.server";
import { runDailyReminders, utcDay } from "~/models/ops/daily-reminders.server";
import { logger } from "~/utils/logger.server";
import { countReminderRun } from "~/utils/metrics.server";
import { REMINDER_QUEUE } from "./queues";

export { utcDay };

export type DailyReminderOutcome = {
  ran: boolean;
  day: string;
  totalReminders: number;
  emailsSent: number;
  /** Daily digests of optional notices queued (notice-digest.server.ts). */
  digests: number;
};

export async function runDailyReminder(now = new Date()): Promise<DailyReminderOutcome> {
  try {
    return await dailyReminder(now);
  } catch (error) {
    countReminderRun("failed");
    throw error;
  }
}

async function dailyReminder(now: Date): Promise<DailyReminderOutcome> {
  const day = utcDay(now);
  const outcome = await getDb().transaction(async (tx) => {
    // A concurrent run of the same day waits here until the first commits, then finds the key.
    const claimed = await tx.execute(sql`
      insert into job_runs (queue, key) values (${REMINDER_QUEUE}, ${day})
      on conflict do nothing returning key`);
    if (claimed.length === 0) return { ran: false, day, totalReminders: 0, emailsSent: 0, digests: 0 };
    const run = await runDailyReminders({ today: day, tx });
    const { totalReminders } = reminderRunAnswer(run);
    // The digests of the notices people chose to read once a day, in the same claimed transaction.
    const digests = await sendNoticeDigests(tx, now);
    return { ran: true, day, totalReminders, emailsSent: run.emails, digests };
  });
  countReminderRun(outcome.ran ? "ran" : "already-ran", {
    reminders: outcome.totalReminders,
    emails: outcome.emailsSent,
  });
  // Counts only: recipients' addresses stay out of the logs.
  if (outcome.ran) logger().info(outcome, "daily reminder run");
  else logger().info({ day }, "daily reminder already ran today");
  return outcome;
}
