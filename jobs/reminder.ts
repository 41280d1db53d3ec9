/**
 * The daily reminder run (08:00 UTC). pg-boss fires each cron tick once across instances; the
 * key per UTC day below makes a repeated job (a retry, a manual send) a no-op all the same.
 */
import { sql } from "drizzle-orm";
import { getDb } from "#db/client";
import { logger } from "~/utils/logger.server";
import { REMINDER_QUEUE } from "./queues";

export const utcDay = (now: Date) => now.toISOString().slice(0, 10);

/** Claims today's run; false when another run of the same UTC day already claimed it. */
export async function claimDailyRun(now = new Date()): Promise<boolean> {
  const rows = await getDb().execute(sql`
    insert into job_runs (queue, key) values (${REMINDER_QUEUE}, ${utcDay(now)})
    on conflict do nothing returning key`);
  return rows.length === 1;
}

export async function runDailyReminder(now = new Date()): Promise<{ ran: boolean; day: string }> {
  const day = utcDay(now);
  if (!(await claimDailyRun(now))) {
    logger().info({ day }, "daily reminder already ran today");
    return { ran: false, day };
  }
  logger().info({ day }, "daily reminder run");
  return { ran: true, day };
}
