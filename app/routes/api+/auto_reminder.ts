import { sendDueReminders } from "~/models/moc/reminder.server";
import { requireReminderRunner } from "~/web/cron.server";
import { apiJson, apiRoute } from "~/utils/http.server";
import { logger } from "~/utils/logger.server";
import { countReminderRun } from "~/utils/metrics.server";

const route = apiRoute({
  async GET({ request }) {
    const { via } = await requireReminderRunner(request);
    const { temporaryReminders, ...run } = await sendDueReminders();
    const emailsSent = run.results.reduce((sum, r) => sum + r.emailsSent, 0);
    countReminderRun("ran", { reminders: run.totalReminders, emails: emailsSent });
    logger().info(
      { via, totalReminders: run.totalReminders, emailsSent, temporaryReminders: temporaryReminders.length },
      "reminder run by request",
    );
    return apiJson(run);
  },
});

export const loader = route.loader;
export const action = route.action;
