/**
 * The email rows of `npm run bench` (docs/performance.md, docs/decisions/020-batched-email.md):
 * a real worker process (`jobs/worker.ts`) delivering through the real Resend SDK to the local
 * fake, which answers in 50 ms and allows 2 requests a second; and the daily reminder over
 * 100,000 MOCs. Runs on the bench database once the web server is stopped (its workers would
 * otherwise take the jobs too).
 */
import "../../app/models/kinds/record-kinds.server";
import { performance } from "node:perf_hooks";
import type postgres from "postgres";
import { queueEmails, type QueuedEmail } from "../../app/models/messages/email.server";
import { remindMocs } from "../../app/models/moc/reminder.server";
import { closeDb } from "../../app/utils/db.server";
import { resetEnv } from "../../app/utils/env.server";
import { getDb } from "../../db/client";
import { stopBoss } from "../../jobs/boss";
import { startFakeResend, type FakeResend } from "../helpers/fake-resend";
import { startWorkerProcess } from "../helpers/processes";
import { insertMocs } from "./data";

export type EmailRow = {
  scenario: string;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  target: string;
  pass?: boolean;
  note?: string;
};

const BURST = 5_000;
const STEPS = 15;
const STEP_EMAILS = 5;
const REMINDER_MOCS = 100_000;
const log = (message: string) => console.log(`[bench] ${message}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
};

async function queue(owner: string, n: number, tag: string): Promise<{ ids: string[]; committed: number }> {
  const emails: QueuedEmail[] = Array.from({ length: n }, (_, i) => ({
    to: { id: owner, name: `Person ${i}`, email: `${tag}-${i}@bench.test` },
    content: { record: { label: "MOC 1-2026", url: "/mocs/x" }, event: `Bench ${tag}.`, expectation: null },
    kind: "moc_decision" as const,
  }));
  const rows = await getDb().transaction((tx) => queueEmails(tx, emails));
  return { ids: rows.map((r) => r.id), committed: Date.now() };
}

/** Waits until the fake holds every id; returns when the last arrived (or throws after `timeoutMs`). */
async function received(fake: FakeResend, ids: string[], timeoutMs: number): Promise<number> {
  const wanted = new Set(ids);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = fake.deliveries.filter((d) => d.messageId && wanted.has(d.messageId));
    const distinct = new Set(got.map((d) => d.messageId));
    if (distinct.size === wanted.size) return Math.max(...got.map((d) => d.at));
    if (Date.now() > deadline) throw new Error(`only ${distinct.size} of ${wanted.size} emails arrived`);
    await sleep(50);
  }
}

/** Waits until no message is waiting to go out (the worker delivers them to the fake). */
async function drained(client: postgres.Sql, fake: FakeResend): Promise<void> {
  const started = Date.now();
  const before = fake.requests.length;
  const waiting = async () =>
    (
      await client<{ n: number }[]>`select count(*)::int as n from email_messages where status in ('queued', 'sending')`
    )[0]!.n;
  const backlog = await waiting();
  while ((await waiting()) > 0) {
    if (Date.now() - started > 600_000)
      throw new Error("the emails queued before the bursts did not go out in 10 minutes");
    await sleep(200);
  }
  if (backlog) {
    log(
      `${backlog} emails left by the pipeline step went out first: ${((Date.now() - started) / 1000).toFixed(1)} s, ` +
        `${fake.requests.length - before} requests`,
    );
  }
}

async function burst(fake: FakeResend, owner: string, label: string, target: string): Promise<EmailRow> {
  const before = fake.requests.length;
  const { ids, committed } = await queue(owner, BURST, `burst-${label.replace(/\W+/g, "-")}-${Date.now()}`);
  const last = await received(fake, ids, 300_000);
  const seconds = (last - committed) / 1000;
  const idSet = new Set(ids);
  const duplicates = fake.duplicates().filter((id) => idSet.has(id)).length;
  const requests = fake.requests.slice(before);
  const count = (status: number) => requests.filter((r) => r.status === status).length;
  const note = `${requests.length} requests (${count(200)} ok, ${count(429)} 429, ${count(500)} 500), ${duplicates} duplicates, max ${fake.maxPerSecond(committed)} req/s answered`;
  log(`email burst ${label}: ${BURST} in ${seconds.toFixed(1)} s; ${note}`);
  return {
    scenario: `email: ${BURST}-email burst, ${label}: seconds until the fake has all (${note})`,
    connections: 1,
    rps: BURST / seconds,
    p50: seconds * 1000,
    p99: seconds * 1000,
    target,
    pass: seconds <= 60 && duplicates === 0,
  };
}

export async function emailBench(databaseUrl: string, client: postgres.Sql): Promise<EmailRow[]> {
  const rows: EmailRow[] = [];
  const shared = {
    DATABASE_URL: databaseUrl,
    SESSION_SECRET: "bench-session-secret-0123456789-0123456789",
    AUDIT_KEY: "bench-audit-key-0123456789-0123456789-abcdef",
    JOBS_POLLING_INTERVAL_SECONDS: "2",
    LOG_LEVEL: "warn",
  };
  Object.assign(process.env, shared);
  delete process.env.RESEND_API_KEY;
  resetEnv();
  await closeDb();
  const [owner] = await client<{ id: string }[]>`select id from users order by email limit 1`;

  const fake = await startFakeResend({ latencyMs: 50, requestsPerSecond: 2 });
  const worker = await startWorkerProcess({ ...shared, RESEND_API_KEY: "re_bench", RESEND_BASE_URL: fake.url });
  try {
    // The pipeline step's rounds leave emails the web server's worker had not sent when it
    // stopped: they go out first, so each burst below is measured alone.
    await drained(client, fake);
    rows.push(await burst(fake, owner!.id, "fake at 50 ms, 2 req/s", "<= 60 s (floor 25 s), 0 duplicates"));

    fake.configure({ rate429: 0.2, rate500: 0.05 });
    rows.push(await burst(fake, owner!.id, "20% 429 and 5% 500", "0 lost, 0 duplicates"));
    fake.configure({ rate429: 0, rate500: 0 });

    // One step's emails on an idle queue, from the commit to the fake's receipt.
    await sleep(3000);
    const all: number[] = [];
    const first: number[] = [];
    for (let step = 0; step < STEPS; step++) {
      const { ids, committed } = await queue(owner!.id, STEP_EMAILS, `step-${step}-${Date.now()}`);
      await received(fake, ids, 30_000);
      const idSet = new Set(ids);
      const times = fake.deliveries.filter((d) => d.messageId && idSet.has(d.messageId)).map((d) => d.at - committed);
      all.push(...times);
      first.push(Math.min(...times));
      await sleep(1500 + Math.random() * 1000);
    }
    const p95 = percentile(all, 95);
    log(
      `commit to receipt: p50 ${percentile(all, 50)} ms, p95 ${p95} ms (first email p95 ${percentile(first, 95)} ms)`,
    );
    rows.push({
      scenario: `email: commit to receipt, ${STEPS} steps of ${STEP_EMAILS} emails on an idle queue (first email p50 ${percentile(first, 50)} ms, p95 ${percentile(first, 95)} ms)`,
      connections: 1,
      rps: 0,
      p50: percentile(all, 50),
      p99: p95,
      target: "p95 <= 3000 ms (p99 column: p95)",
      pass: p95 <= 3000,
    });
  } finally {
    await worker.stop("SIGTERM");
    await fake.close();
  }

  // The daily reminder over 100,000 MOCs, 10% of them due on a day of their own.
  const [{ max }] = (await client`select coalesce(max(serial_count), 0)::int as max from mocs`) as unknown as [
    { max: number },
  ];
  // Far ahead of every seeded MOC's target date, so only the MOCs placed below are due.
  let t = performance.now();
  await insertMocs(client, { from: max + 1, to: max + REMINDER_MOCS, mode: "mix" });
  const day = "2045-06-01";
  const due = REMINDER_MOCS / 10;
  // Exactly `due` open MOCs get a target date 14 days overdue to 7 days ahead (no age condition).
  await client`
    update mocs m set target_date = ${day}::date - 14 + (x.rn % 22)::int
    from (select id, row_number() over (order by id) as rn from mocs
          where not completed and status <> 'decline' and not is_deleted order by id limit ${due}) x
    where m.id = x.id`;
  log(`added ${REMINDER_MOCS} MOCs, ${due} of them due on ${day}, in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  t = performance.now();
  const timings: { claimMs?: number; queueMs?: number } = {};
  // The MOC's part of the daily run, the whole of its cost (app/models/ops/daily-reminders.server.ts).
  const run = await getDb().transaction((tx) => remindMocs(tx, day, timings));
  const ms = performance.now() - t;
  const claimMs = Math.round(timings.claimMs ?? 0);
  const queueMs = Math.round(timings.queueMs ?? 0);
  const emails = run.results.reduce((sum, r) => sum + r.emailsSent, 0);
  const [{ jobs }] = (await client`
    select count(*)::int as jobs from pgboss.job where name = 'email' and state = 'created'`) as unknown as [
    { jobs: number },
  ];
  log(
    `daily reminder: ${run.results.length} MOCs found and claimed in ${claimMs} ms, ${emails} emails` +
      ` (${jobs} jobs) queued in ${queueMs} ms; ${Math.round(ms)} ms in all`,
  );
  rows.push({
    scenario: `email: daily reminder over ${REMINDER_MOCS} MOCs, ${due} due: find and claim ${run.results.length} MOCs`,
    connections: 1,
    rps: 1000 / Math.max(1, claimMs),
    p50: claimMs,
    p99: claimMs,
    target: "< 5000 ms",
    pass: claimMs < 5000,
  });
  rows.push({
    scenario: `email: the same run, queueing its ${emails} emails (rows and jobs in 2 statements); whole run ${Math.round(ms)} ms`,
    connections: 1,
    rps: 1000 / Math.max(1, queueMs),
    p50: queueMs,
    p99: queueMs,
    target: "report",
  });
  await stopBoss();
  await closeDb();
  return rows;
}
