import type PgBoss from "pg-boss";
import { env } from "~/utils/env.server";
import { logger } from "~/utils/logger.server";
import { startBoss } from "./boss";
import { deliverEmail, markEmailFailed } from "./email";
import { EMAIL_DEAD_LETTER_QUEUE, EMAIL_QUEUE, emailJobSchema, REMINDER_QUEUE } from "./queues";
import { runDailyReminder } from "./reminder";

/** Email workers per process: deliveries are I/O bound, so a few run side by side. */
const EMAIL_CONCURRENCY = 3;

/** Starts pg-boss and every queue's handler in this process. */
export async function startWorkers(): Promise<PgBoss> {
  const boss = await startBoss();
  const pollingIntervalSeconds = env().JOBS_POLLING_INTERVAL_SECONDS;
  for (let i = 0; i < EMAIL_CONCURRENCY; i++) {
    await boss.work(EMAIL_QUEUE, { batchSize: 1, pollingIntervalSeconds }, async ([job]) => {
      const { messageId } = emailJobSchema.parse(job!.data);
      return { result: await deliverEmail(messageId) };
    });
  }
  await boss.work(EMAIL_DEAD_LETTER_QUEUE, { batchSize: 1, pollingIntervalSeconds }, async ([job]) => {
    await markEmailFailed(emailJobSchema.parse(job!.data).messageId);
  });
  await boss.work(REMINDER_QUEUE, { batchSize: 1, pollingIntervalSeconds }, async () => runDailyReminder());
  logger().info({ queues: [EMAIL_QUEUE, EMAIL_DEAD_LETTER_QUEUE, REMINDER_QUEUE] }, "workers started");
  return boss;
}
