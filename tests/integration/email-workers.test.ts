/**
 * Real worker processes (`jobs/worker.ts`) on one database: each message delivered once, a worker
 * killed mid-delivery recovered by another, and the daily schedule firing once across instances.
 */
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "#db/client";
import { notify } from "~/models/messages/email.server";
import { resetEnv } from "~/utils/env.server";
import { eventually, startFakeResend, type FakeResend } from "../helpers/fake-resend";
import { makeUser } from "../helpers/factories";
import { emailWorkers } from "../helpers/processes";

let fake: FakeResend;

const content = { record: { label: "MOC 1-2026", url: "/mocs/x" }, event: "Something happened.", expectation: null };

// Queue settings live in the database, so this process (which sends the jobs) and the workers
// must run with the same configuration, as the instances of a deployment do.
const SHARED = {
  EMAIL_RETRY_DELAY_SECONDS: "1",
  EMAIL_JOB_TIMEOUT_SECONDS: "3",
  JOBS_MAINTENANCE_INTERVAL_SECONDS: "1",
  JOBS_POLLING_INTERVAL_SECONDS: "0.5",
};

const workers = emailWorkers(SHARED, () => fake.url);
const worker = (extra: Record<string, string> = {}) => workers.start(extra);

async function statuses(): Promise<Record<string, number>> {
  const rows = await getDb().execute<{ status: string; n: number }>(
    sql`select status, count(*)::int as n from email_messages group by status`,
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

beforeAll(async () => {
  fake = await startFakeResend();
  Object.assign(process.env, SHARED);
  resetEnv();
});

afterEach(() => workers.stopAll());

afterAll(async () => {
  await fake.close();
});

describe("worker processes", () => {
  it("two workers on one database deliver each message exactly once", async () => {
    await Promise.all([worker(), worker()]);
    const people = await Promise.all(Array.from({ length: 12 }, () => makeUser()));
    const requestsBefore = fake.requests.length;
    await getDb().transaction((tx) => notify(tx, { to: { userIds: people.map((p) => p._id) }, content }));
    await eventually(async () => expect((await statuses()).sent).toBe(12), 30_000);
    const delivered = fake.deliveries.filter((d) => people.some((p) => d.to.includes(p.email)));
    expect(delivered).toHaveLength(12);
    expect(new Set(delivered.map((d) => d.to[0])).size).toBe(12);
    expect(fake.duplicates()).toEqual([]);
    // One batch request (two if both workers' fetches split the jobs), not one request per message,
    // and nobody sent a batch twice, not even a repeat that Resend would have absorbed.
    const sent = fake.requests.slice(requestsBefore);
    expect(sent.length).toBeLessThanOrEqual(2);
    expect(new Set(sent.map((r) => r.idempotencyKey)).size).toBe(sent.length);
  }, 60_000);

  it("a worker killed with SIGKILL in the middle of a delivery: after restart it is delivered once", async () => {
    const first = await worker();
    const person = await makeUser();
    // The API accepts the message but the answer never reaches the worker.
    fake.hangWhen(({ to }) => to.includes(person.email));
    await getDb().transaction((tx) => notify(tx, { to: { userIds: [person._id] }, content }));
    await eventually(() => expect(fake.deliveries.some((d) => d.to.includes(person.email))).toBe(true), 20_000);
    await workers.kill(first, "SIGKILL");
    fake.hangWhen(null);

    await worker();
    const message = await eventually(async () => {
      const [row] = await getDb().execute<{ status: string; attempts: number }>(
        sql`select status, attempts from email_messages where to_email = ${person.email}`,
      );
      expect(row?.status).toBe("sent");
      return row!;
    }, 45_000);
    expect(message.attempts).toBe(2);
    // The retry reached the API with the same idempotency key: still one email in the inbox.
    expect(fake.deliveries.filter((d) => d.to.includes(person.email))).toHaveLength(1);
    const keys = fake.requests.filter(
      (r) => r.idempotencyKey === fake.deliveries.find((d) => d.to.includes(person.email))!.idempotencyKey,
    );
    expect(keys.length).toBe(2);
  }, 90_000);

  it("the daily schedule fires once across two instances", async () => {
    // Every minute instead of 08:00, so the test sees a tick; the mechanism is the same.
    const env = { REMINDER_CRON: "* * * * *" };
    await Promise.all([worker(env), worker(env)]);
    await eventually(
      async () => {
        const rows = await getDb().execute<{ n: number }>(
          sql`select count(*)::int as n from job_runs where queue = 'daily-reminder'`,
        );
        expect(rows[0]!.n).toBe(1);
      },
      110_000,
      1000,
    );
    // Give the other instance's clock a chance to fire too, then count the reminder jobs per minute.
    await new Promise((r) => setTimeout(r, 5_000));
    const perMinute = await getDb().execute<{ minute: string; n: number }>(sql`
      select date_trunc('minute', created_on)::text as minute, count(*)::int as n
      from pgboss.job where name = 'daily-reminder' group by 1`);
    expect(perMinute.length).toBeGreaterThanOrEqual(1);
    for (const row of perMinute) expect(row.n).toBe(1);
    const runs = await getDb().execute<{ n: number }>(
      sql`select count(*)::int as n from job_runs where queue = 'daily-reminder'`,
    );
    expect(runs[0]!.n).toBe(1);
  }, 150_000);
});
