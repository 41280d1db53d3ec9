import { reminderRunAnswer } from "~/models/moc/reminder.server";
import { runDailyReminders } from "~/models/ops/daily-reminders.server";
import { requireReminderRunner } from "~/web/cron.server";
import { apiJson, apiRoute } from "~/utils/http.server";
import { logger } from "~/utils/logger.server";
import { countReminderRun } from "~/utils/metrics.server";

const route = apiRoute({
  async GET({ request }) {
    const { via } = await requireReminderRunner(request);
    const run = await runDailyReminders();
    const { temporaryReminders, ...answer } = reminderRunAnswer(run);
    countReminderRun("ran", { reminders: answer.totalReminders, emails: run.emails });
    logger().info(
      {
        via,
        totalReminders: answer.totalReminders,
        emailsSent: run.emails,
        temporaryReminders: temporaryReminders.length,
      },
      "reminder run by request",
    );
    return apiJson(answer);
  },
});

export const loader = route.loader;
export const action = route.action;
