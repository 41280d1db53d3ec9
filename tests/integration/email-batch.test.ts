/**
 * Batched delivery with real worker processes (`jobs/worker.ts`), real PostgreSQL and the real
 * Resend SDK against the local fake (docs/decisions/020-batched-email.md): a message the provider
 * rejects fails alone, a 429 is a wait (in the handler, or a requeue when it is long) and never an
 * attempt, a worker killed mid-batch leaves every message delivered once, two worker processes
 * share the mail API's rate, and the outbox page shows each message's batch result.
 */
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "#db/client";
import { notify, queueEmails, type QueuedEmail } from "~/models/messages/email.server";
import * as outboxPage from "~/routes/admin+/outbox";
import { resetEnv } from "~/utils/env.server";
import { eventually, startFakeResend, type FakeResend } from "../helpers/fake-resend";
import { makeAdmin, makeUser, tokenFor } from "../helpers/factories";
import { emailWorkers } from "../helpers/processes";
import { buildRequest } from "../helpers/request";

let fake: FakeResend;

const content = { record: { label: "MOC 3-2026", url: "/mocs/x" }, event: "Batch test.", expectation: null };

// Queue settings live in the database: this process (which sends) and the workers share them.
const SHARED = {
  EMAIL_RETRY_LIMIT: "3",
  EMAIL_RETRY_DELAY_SECONDS: "1",
  EMAIL_JOB_TIMEOUT_SECONDS: "6",
  JOBS_MAINTENANCE_INTERVAL_SECONDS: "1",
  JOBS_POLLING_INTERVAL_SECONDS: "1",
};

const workers = emailWorkers(SHARED, () => fake.url);
const worker = (extra: Record<string, string> = {}) => workers.start(extra);

type Row = {
  id: string;
  toEmail: string;
  status: string;
  attempts: number;
  lastError: string | null;
  batchKey: string | null;
  batchSize: number | null;
  batchOpen: boolean;
  providerId: string | null;
};

async function rows(emails: string[]): Promise<Row[]> {
  const result = await getDb().execute<Row>(sql`
    select id, to_email as "toEmail", status, attempts, last_error as "lastError", batch_key as "batchKey",
      batch_size as "batchSize", batch_open as "batchOpen", provider_id as "providerId"
    from email_messages where to_email in (select jsonb_array_elements_text(${JSON.stringify(emails)}::jsonb))
    order by to_email`);
  return [...result];
}

async function settled(emails: string[], timeoutMs = 30_000): Promise<Row[]> {
  return eventually(async () => {
    const found = await rows(emails);
    expect(found).toHaveLength(emails.length);
    expect(found.filter((r) => r.status === "queued" || r.status === "sending")).toEqual([]);
    return found;
  }, timeoutMs);
}

/** `n` emails to made-up addresses of one real user (the fan-out path the reminders use). */
async function queueMany(n: number, tag: string): Promise<string[]> {
  const owner = await makeUser();
  const emails: QueuedEmail[] = Array.from({ length: n }, (_, i) => ({
    to: { id: owner._id, name: `Person ${i}`, email: `${tag}-${i}@example.com` },
    kind: "moc_decision" as const,
    content,
  }));
  await getDb().transaction((tx) => queueEmails(tx, emails));
  return emails.map((e) => e.to.email);
}

async function deadLetterJobs(ids: string[]): Promise<number> {
  const result = await getDb().execute<{ n: number }>(sql`
    select count(*)::int as n from pgboss.job where name = 'email-dead-letter'
      and data->>'messageId' in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`);
  return result[0]!.n;
}

beforeAll(async () => {
  fake = await startFakeResend();
  Object.assign(process.env, SHARED);
  resetEnv();
});

afterEach(async () => {
  await workers.stopAll();
  fake.hangWhen(null);
  fake.rejectWhen(null);
  fake.rateLimitNext(0, 1);
});

afterAll(async () => {
  await fake.close();
});

describe("batched delivery", () => {
  it("one request for a step's emails; the address the provider rejects fails alone, the rest go out", async () => {
    await worker();
    const people = await Promise.all(Array.from({ length: 6 }, () => makeUser()));
    const bad = people[2]!;
    fake.rejectWhen((to) => to === bad.email);
    const before = fake.requests.length;
    await getDb().transaction((tx) => notify(tx, { to: { userIds: people.map((p) => p._id) }, content }));
    const found = await settled(people.map((p) => p.email));

    const requests = fake.requests.slice(before);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.path).toBe("/emails/batch");
    expect(requests[0]!.emails).toBe(6);
    const rejected = found.find((r) => r.toEmail === bad.email)!;
    expect(rejected).toMatchObject({ status: "failed", attempts: 1, batchOpen: false, providerId: null });
    expect(rejected.lastError).toContain("rejected by the mail API: Invalid `to` field");
    const sent = found.filter((r) => r.toEmail !== bad.email);
    expect(sent.map((r) => r.status)).toEqual(Array(5).fill("sent"));
    expect(new Set(found.map((r) => r.batchKey))).toEqual(new Set([requests[0]!.idempotencyKey]));
    expect(found.every((r) => r.batchSize === 6)).toBe(true);
    for (const row of sent) {
      expect(fake.deliveries.filter((d) => d.messageId === row.id).map((d) => d.id)).toEqual([row.providerId]);
    }
    expect(fake.deliveries.some((d) => d.to.includes(bad.email))).toBe(false);
    // Straight to the dead letter queue: a bad address is not retried.
    await eventually(async () => expect(await deadLetterJobs([rejected.id])).toBe(1));
    expect(await deadLetterJobs(sent.map((r) => r.id))).toBe(0);

    // The outbox page shows the batch's result per message, and filters by batch.
    const admin = await makeAdmin();
    const page = await outboxPage.loader({
      request: await buildRequest({
        path: `/admin/outbox?batch=${encodeURIComponent(rejected.batchKey!)}`,
        token: await tokenFor(admin),
        cookie: true,
      }),
      params: {},
      context: {},
    });
    expect(page.messages).toHaveLength(6);
    const shown = new Map(page.messages.map((m) => [m.to, m]));
    expect(shown.get(bad.email)).toMatchObject({ status: "failed", batchKey: rejected.batchKey, batchSize: 6 });
    expect(shown.get(bad.email)!.lastError).toContain("rejected by the mail API");
    for (const row of sent) {
      expect(shown.get(row.toEmail)).toMatchObject({ status: "sent", providerId: row.providerId, batchSize: 6 });
    }
  }, 60_000);

  it("a 429 is a wait until its retry-after, not an attempt; a long one hands the jobs back for later", async () => {
    await worker();
    // Short: waited out in the handler, the same batch sent again under the same key.
    fake.rateLimitNext(1, 2);
    const before = fake.requests.length;
    const short = await queueMany(3, "short-429");
    const shortRows = await settled(short);
    const requests = fake.requests.slice(before);
    expect(requests.map((r) => r.status)).toEqual([429, 200]);
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(2000);
    expect(requests[1]!.idempotencyKey).toBe(requests[0]!.idempotencyKey);
    expect(shortRows.map((r) => [r.status, r.attempts, r.lastError])).toEqual(Array(3).fill(["sent", 1, null]));

    // Longer than the jobs may be held (half their 6 s expiry): completed, queued again for then.
    fake.rateLimitNext(1, 4);
    const mark = fake.requests.length;
    const long = await queueMany(2, "long-429");
    const longRows = await settled(long);
    const later = fake.requests.slice(mark);
    expect(later.map((r) => r.status)).toEqual([429, 200]);
    expect(later[1]!.at - later[0]!.at).toBeGreaterThanOrEqual(4000);
    expect(later[1]!.idempotencyKey).toBe(later[0]!.idempotencyKey);
    // A second claim, but no error and no retry spent: the jobs completed and new ones were queued.
    expect(longRows.map((r) => [r.status, r.lastError])).toEqual(Array(2).fill(["sent", null]));
    // The rows are marked sent inside the handler; pg-boss completes its job just after it returns.
    await eventually(async () => {
      const jobs = await getDb().execute<{ state: string; retry: number }>(sql`
        select state, retry_count as retry from pgboss.job where name = 'email'
          and data->>'messageId' in (select jsonb_array_elements_text(${JSON.stringify(longRows.map((r) => r.id))}::jsonb))`);
      expect(jobs.map((j) => [j.state, j.retry])).toEqual(Array(4).fill(["completed", 0]));
    });
    expect(await deadLetterJobs([...shortRows, ...longRows].map((r) => r.id))).toBe(0);
    expect(fake.duplicates()).toEqual([]);
  }, 60_000);

  it("a worker killed with SIGKILL mid-batch: after restart every message is delivered once", async () => {
    const first = await worker();
    const tag = `kill-${Date.now()}`;
    // The API takes the batch but its answer never reaches the worker.
    fake.hangWhen(({ to }) => to.some((t) => t.startsWith(tag)));
    const emails = await queueMany(20, tag);
    await eventually(() => expect(fake.deliveries.filter((d) => d.to[0]!.startsWith(tag))).toHaveLength(20));
    await workers.kill(first, "SIGKILL");
    fake.hangWhen(null);
    // More mail arrives while no worker runs; it must not change the interrupted batch.
    const more = await queueMany(5, `${tag}-more`);

    await worker();
    const found = await settled([...emails, ...more], 45_000);
    expect(found.every((r) => r.status === "sent")).toBe(true);
    const interrupted = found.filter((r) => emails.includes(r.toEmail));
    const key = interrupted[0]!.batchKey!;
    // Still in the one batch. The expired jobs may come back in several fetches: the first one
    // resends the whole batch, and a message whose own job comes later finds it sent (attempt 1).
    expect(interrupted.map((r) => r.batchKey === key && r.attempts >= 1 && r.attempts <= 2)).toEqual(
      Array(20).fill(true),
    );
    // The batch was sent again under its key, and the provider delivered nothing new.
    expect(fake.requests.filter((r) => r.idempotencyKey === key).length).toBeGreaterThanOrEqual(2);
    for (const row of found) expect(fake.deliveries.filter((d) => d.messageId === row.id)).toHaveLength(1);
    expect(fake.duplicates()).toEqual([]);
  }, 90_000);

  it("two worker processes share the mail API's rate: the provider never sees more than 2 a second", async () => {
    fake.configure({ latencyMs: 50 });
    await Promise.all([worker(), worker()]);
    const since = Date.now();
    const before = fake.requests.length;
    const emails = await queueMany(800, `shared-${since}`);
    const found = await settled(emails, 60_000);
    fake.configure({ latencyMs: 0 });
    expect(found.every((r) => r.status === "sent")).toBe(true);
    const requests = fake.requests.slice(before);
    // 800 emails in batches of at most 100: at least 8 requests, and they were spread out.
    expect(requests.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(8);
    expect(fake.maxPerSecond(since)).toBeLessThanOrEqual(2);
    // Both processes draw on one budget, so 429s are rare: spaced slots leave room for jitter.
    // (Each process on its own budget would send about 4 a second, and half would be refused.)
    expect(requests.filter((r) => r.status === 429).length).toBeLessThanOrEqual(2);
    expect(fake.duplicates()).toEqual([]);
    expect(new Set(found.map((r) => r.batchKey)).size).toBeGreaterThanOrEqual(8);
  }, 90_000);
});
