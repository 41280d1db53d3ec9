/**
 * cm_emails_total (docs/architecture.md, "Operations"): each outcome of a delivery moves its series,
 * through this process's real email workers (jobs/workers.ts) and the Resend SDK against the local
 * fake: sent; failed for good (a message the mail API rejects goes to the dead-letter queue, whose
 * worker marks it failed); deferred (the mail API's 429 asks for longer than the job may wait).
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "#db/client";
import { stopBoss } from "#jobs/boss";
import { EMAIL_DEAD_LETTER_QUEUE } from "#jobs/queues";
import { startWorkers } from "#jobs/workers";
import { queueEmails } from "~/models/messages/email.server";
import { resetEnv } from "~/utils/env.server";
import { metrics } from "~/utils/metrics.server";
import { eventually, startFakeResend, type FakeResend } from "../helpers/fake-resend";
import { makeUser } from "../helpers/factories";

let fake: FakeResend;
const content = { record: { label: "MOC 5-2026", url: "/mocs/x" }, event: "Metrics test.", expectation: null };

beforeAll(async () => {
  fake = await startFakeResend({ requestsPerSecond: 0 });
  Object.assign(process.env, {
    RESEND_API_KEY: "re_test_key",
    RESEND_BASE_URL: fake.url,
    // A 429 asking for more than half of this is handed back to the queue (deferred), not waited out.
    EMAIL_JOB_TIMEOUT_SECONDS: "4",
    JOBS_POLLING_INTERVAL_SECONDS: "0.5",
    JOBS_MAINTENANCE_INTERVAL_SECONDS: "1",
  });
  resetEnv();
  await startWorkers();
});

afterAll(async () => {
  await stopBoss();
  await fake.close();
});

async function emails(outcome: string): Promise<number> {
  const metric = await metrics().emails.get();
  return metric.values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

/** One email to `address`, queued (its row and its job) as a step queues its notices. */
async function queue(address: string): Promise<string> {
  const owner = await makeUser();
  const [row] = await getDb().transaction((tx) =>
    queueEmails(tx, [{ to: { id: owner._id, name: "Someone", email: address }, kind: "moc_decision", content }]),
  );
  return row!.id;
}

async function status(id: string): Promise<string> {
  const [row] = await getDb().execute<{ status: string }>(sql`select status from email_messages where id = ${id}`);
  return row!.status;
}

describe("cm_emails_total", () => {
  it("counts a delivered message as sent, and one the mail API rejects as failed, once", async () => {
    const sent = await emails("sent");
    const ok = await queue("someone@example.com");
    await eventually(async () => expect(await status(ok)).toBe("sent"), 30_000);
    expect(await emails("sent")).toBe(sent + 1);

    const failed = await emails("failed");
    fake.rejectWhen((to) => to === "nobody@example.com");
    const rejected = await queue("nobody@example.com");
    await eventually(async () => expect(await emails("failed")).toBe(failed + 1), 30_000);
    fake.rejectWhen(null);
    expect(await status(rejected)).toBe("failed");
    // The rejection and the dead letter's settling are one failure, not two: counted again once
    // the dead-letter worker has marked the message failed.
    await eventually(async () => {
      const [job] = await getDb().execute<{ state: string }>(
        sql`select state from pgboss.job where name = ${EMAIL_DEAD_LETTER_QUEUE} and data->>'messageId' = ${rejected}`,
      );
      expect(job?.state).toBe("completed");
    }, 30_000);
    expect(await emails("failed")).toBe(failed + 1);
  });

  it("counts a message the mail API's 429 sends back to the queue as deferred", async () => {
    const deferred = await emails("deferred");
    fake.rateLimitNext(1, 60);
    const id = await queue("later@example.com");
    await eventually(async () => expect(await emails("deferred")).toBe(deferred + 1), 30_000);
    expect(await status(id)).toBe("queued");
  });
});
