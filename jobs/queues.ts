/**
 * Every queue the app uses, with its retry, backoff, expiry and dead-letter settings. Queues are
 * created (and their settings refreshed) when pg-boss starts, before anything is sent or worked:
 * a `send` to a missing queue would otherwise return null silently.
 */
import type { Queue } from "pg-boss";
import { z } from "zod";
import type { Env } from "~/utils/env.server";

export const EMAIL_QUEUE = "email";
export const EMAIL_DEAD_LETTER_QUEUE = "email-dead-letter";
export const REMINDER_QUEUE = "daily-reminder";
/** The daily seal of the audit trail (app/models/audit/audit-seal.server.ts). */
export const AUDIT_SEAL_QUEUE = "audit-seal";
/** The hourly clean-up (jobs/housekeeping.ts): idempotency keys and uploads past a day. */
export const HOUSEKEEPING_QUEUE = "housekeeping";
/** Every hour at :17 (UTC). */
export const HOUSEKEEPING_CRON = "17 * * * *";

export const emailJobSchema = z.object({ messageId: z.uuid() });
export type EmailJob = z.infer<typeof emailJobSchema>;

export type QueueDefinition = { name: string; options: Omit<Queue, "name"> };

export function queueDefinitions(env: Env): QueueDefinition[] {
  return [
    // Failures past the retries land here; its worker marks the message failed for admins to see.
    {
      name: EMAIL_DEAD_LETTER_QUEUE,
      options: { policy: "standard", retryLimit: 3, retryDelay: 5, expireInSeconds: 60 },
    },
    {
      name: EMAIL_QUEUE,
      options: {
        policy: "standard",
        retryLimit: env.EMAIL_RETRY_LIMIT,
        retryDelay: env.EMAIL_RETRY_DELAY_SECONDS,
        retryBackoff: true,
        // A delivery that has not finished by then (a crashed worker) is retried.
        expireInSeconds: env.EMAIL_JOB_TIMEOUT_SECONDS,
        // A message not picked up within a week is dropped from the queue (its row stays queued).
        retentionSeconds: 7 * 24 * 60 * 60,
        deadLetter: EMAIL_DEAD_LETTER_QUEUE,
        // Inserting a job emits a NOTIFY (at the sender's commit) that wakes the workers.
        notify: true,
      },
    },
    {
      name: REMINDER_QUEUE,
      // One reminder run queued at a time; its handler keeps a key per UTC day besides.
      options: { policy: "singleton", retryLimit: 3, retryDelay: 60, retryBackoff: true, expireInSeconds: 15 * 60 },
    },
    {
      name: AUDIT_SEAL_QUEUE,
      // Like the reminder: one queued at a time, and the day claimed in job_runs besides.
      options: { policy: "singleton", retryLimit: 3, retryDelay: 60, retryBackoff: true, expireInSeconds: 15 * 60 },
    },
    {
      name: HOUSEKEEPING_QUEUE,
      // Each run removes all that is due, so a missed or failed one is made up by the next.
      options: { policy: "singleton", retryLimit: 1, retryDelay: 60, expireInSeconds: 15 * 60 },
    },
  ];
}
