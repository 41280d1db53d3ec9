import type { PgBoss } from "pg-boss";
import { env } from "~/utils/env.server";
import { logger } from "~/utils/logger.server";
import { requestIdFrom, withRequestId } from "~/utils/request-context.server";
import { jobRequestId, startBoss } from "./boss";
import { deliverBatch, markEmailFailed, MAX_BATCH } from "./email";
import {
  AUDIT_SEAL_QUEUE,
  EMAIL_DEAD_LETTER_QUEUE,
  EMAIL_QUEUE,
  emailJobSchema,
  HOUSEKEEPING_QUEUE,
  REMINDER_QUEUE,
} from "./queues";
import { runHousekeeping } from "./housekeeping";
import { runDailyReminder } from "./reminder";
import { runAuditSeal } from "./audit-seal";

/**
 * One email worker per process, taking up to 100 due jobs per fetch. The mail API's rate is the
 * limit (jobs/mail-rate.ts) and one worker keeps up with it: its fetch, claim and record take less
 * than the interval between two requests. A second worker would not send faster, and, woken by the
 * same notification, would split a step's emails into two requests (fetches skip locked rows).
 */
const EMAIL_CONCURRENCY = 1;

/**
 * Runs a handler as part of the request that queued its jobs: the log lines it writes carry that
 * request's id. A batch queued by several requests runs under a new id, and names theirs.
 */
function asRequestOf<T>(jobs: { data: unknown }[], fn: () => Promise<T>): Promise<T> {
  const ids = [...new Set(jobs.map((job) => jobRequestId(job.data)).filter((id) => id !== undefined))];
  if (ids.length === 1) return withRequestId(ids[0]!, fn);
  return withRequestId(requestIdFrom(undefined), () => {
    if (ids.length > 1) logger().info({ requestIds: ids }, "jobs of several requests handled together");
    return fn();
  });
}

/** Starts pg-boss and every queue's handler in this process. */
export async function startWorkers(): Promise<PgBoss> {
  const boss = await startBoss();
  const pollingIntervalSeconds = env().JOBS_POLLING_INTERVAL_SECONDS;
  await boss.work(
    EMAIL_QUEUE,
    {
      batchSize: MAX_BATCH,
      perJobResults: true,
      localConcurrency: EMAIL_CONCURRENCY,
      // A full batch means more are due: fetch again at once instead of waiting the poll.
      burstWhenBatchFull: true,
      pollingIntervalSeconds,
      // The queue notifies on insert, so a step's emails are fetched at its commit; the poll is
      // only the backstop if a notification is lost, and stays short for the 3 s target.
      notifyPollingIntervalSeconds: pollingIntervalSeconds,
    },
    async (jobs) =>
      asRequestOf(jobs, () =>
        deliverBatch(jobs, {
          async requeue(messageIds, startAfter) {
            await boss.insert(
              EMAIL_QUEUE,
              messageIds.map((messageId) => ({ data: { messageId }, startAfter })),
            );
          },
        }),
      ),
  );
  await boss.work(EMAIL_DEAD_LETTER_QUEUE, { batchSize: 1, pollingIntervalSeconds }, async ([job]) => {
    await asRequestOf([job!], () => markEmailFailed(emailJobSchema.parse(job!.data).messageId));
  });
  await boss.work(REMINDER_QUEUE, { batchSize: 1, pollingIntervalSeconds }, async () => runDailyReminder());
  await boss.work(AUDIT_SEAL_QUEUE, { batchSize: 1, pollingIntervalSeconds }, async () => runAuditSeal());
  await boss.work(HOUSEKEEPING_QUEUE, { batchSize: 1, pollingIntervalSeconds }, async () => {
    await runHousekeeping();
  });
  logger().info(
    { queues: [EMAIL_QUEUE, EMAIL_DEAD_LETTER_QUEUE, REMINDER_QUEUE, AUDIT_SEAL_QUEUE, HOUSEKEEPING_QUEUE] },
    "workers started",
  );
  return boss;
}
