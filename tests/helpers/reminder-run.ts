/**
 * A day's reminder run as GET /api/auto_reminder answers it (app/routes/api+/auto_reminder.ts):
 * every kind's reminders (`runDailyReminders`, app/models/ops/daily-reminders.server.ts), read as
 * the run's message and the MOCs reminded (`reminderRunAnswer`), with the temporary changes seen to.
 */
import { reminderRunAnswer, type ReminderRunOutcome } from "~/models/moc/reminder.server";
import { runDailyReminders } from "~/models/ops/daily-reminders.server";
import type { Executor } from "~/utils/db.server";

export async function sendDueReminders(
  options: { today?: string | Date; tx?: Executor } = {},
): Promise<ReminderRunOutcome> {
  return reminderRunAnswer(await runDailyReminders(options));
}
