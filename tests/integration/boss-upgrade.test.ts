/**
 * A database last run by the pg-boss 10 release of this app upgrades in place
 * (docs/decisions/014-node-24-runtime.md): the app's migrations apply, the pg-boss 10 schema is
 * carried over to pg-boss 12 with its schedule and every job still to run, and a real worker
 * process delivers those jobs, each once.
 *
 * The fixture (tests/fixtures/pgboss10-database.sql.gz, see tests/fixtures/README.md) is a dump of
 * a database made by that release's `npm run db:seed`: 141 queued emails and the daily-reminder
 * schedule, of which two jobs were active (cut off mid-delivery), one waiting for a retry and one
 * completed (its message sent).
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { adminQuery, dropDatabase, withDatabase } from "../helpers/databases";
import { eventually, startFakeResend, type FakeResend } from "../helpers/fake-resend";
import { startWorkerProcess, type Worker } from "../helpers/processes";

const serverUrl = inject("dbServerUrl");
const database = `cm_pgboss10_${process.pid}_${Date.now().toString(36)}`;
const url = withDatabase(serverUrl, database);
let sql: postgres.Sql;
let fake: FakeResend;
let worker: Worker | undefined;

type Before = { pending: string[]; activeOrRetry: string[]; completedMessage: string; sentBefore: number };
let before: Before;

beforeAll(async () => {
  await adminQuery(serverUrl, (admin) => admin.unsafe(`create database "${database}"`));
  sql = postgres(url, { max: 1, onnotice: () => {} });
  const dump = gunzipSync(readFileSync(new URL("../fixtures/pgboss10-database.sql.gz", import.meta.url))).toString();
  await sql.unsafe(dump).simple();
  // pg_dump empties the search path for the session; give this connection its default back.
  await sql`select pg_catalog.set_config('search_path', '"$user", public', false)`;

  const jobs = await sql<{ id: string; state: string; message: string }[]>`
    select id::text, state::text, data->>'messageId' as message from pgboss.job`;
  before = {
    pending: jobs.filter((j) => j.state !== "completed").map((j) => j.message),
    activeOrRetry: jobs.filter((j) => j.state === "active" || j.state === "retry").map((j) => j.id),
    completedMessage: jobs.find((j) => j.state === "completed")!.message,
    sentBefore: (await sql<{ n: number }[]>`select count(*)::int as n from email_messages where status = 'sent'`)[0]!.n,
  };
  fake = await startFakeResend();
});

afterAll(async () => {
  await worker?.stop("SIGTERM");
  await fake?.close();
  await sql?.end();
  await dropDatabase(serverUrl, database);
});

describe("upgrading a pg-boss 10 database", () => {
  it("the fixture is what the previous release left: pg-boss schema 24, jobs in every pending state, a schedule", async () => {
    const [version] = await sql<{ version: number }[]>`select version from pgboss.version`;
    expect(version!.version).toBe(24);
    expect(before.pending).toHaveLength(140);
    expect(before.activeOrRetry).toHaveLength(3);
    expect(before.sentBefore).toBe(1);
    const schedules = await sql`select name from pgboss.schedule`;
    expect(schedules.map((s) => s.name)).toEqual(["daily-reminder"]);
  });

  it("a worker of this release migrates it, keeps the schedule and the pending jobs, and delivers each once", async () => {
    worker = await startWorkerProcess({
      DATABASE_URL: url,
      RESEND_API_KEY: "re_test_key",
      RESEND_BASE_URL: fake.url,
      JOBS_POLLING_INTERVAL_SECONDS: "0.5",
    });

    // pg-boss 12's own schema, at its current version; the legacy one is gone.
    const [version] = await sql<{ version: number }[]>`select version from pgboss.version`;
    expect(version!.version).toBeGreaterThanOrEqual(25);
    const legacy = await sql`select 1 from pg_namespace where nspname = 'pgboss_v10'`;
    expect(legacy).toHaveLength(0);
    const schedules = await sql<{ name: string; cron: string; timezone: string }[]>`
      select name, cron, timezone from pgboss.schedule order by name`;
    // The reminder's schedule carried over; this release adds the audit seal's (docs/decisions/025-keyed-audit-chain.md)
    // and the hourly housekeeping's (docs/decisions/040-replays-apply-once.md).
    expect(schedules).toEqual([
      { name: "audit-seal", cron: "15 0 * * *", timezone: "UTC" },
      { name: "daily-reminder", cron: "0 8 * * *", timezone: "UTC" },
      { name: "housekeeping", cron: "17 * * * *", timezone: "UTC" },
    ]);
    // The jobs kept their ids: the active and retrying ones too.
    const carried = await sql<{ id: string }[]>`select id::text from pgboss.job where name = 'email'`;
    expect(carried.map((j) => j.id)).toEqual(expect.arrayContaining(before.activeOrRetry));

    await eventually(
      async () => {
        const [row] = await sql<{ n: number }[]>`select count(*)::int as n from email_messages where status = 'sent'`;
        expect(row!.n).toBe(141);
      },
      90_000,
      500,
    );
    // Every pending message reached the mail API once (in batches, each email tagged with its
    // message id); the one sent before the upgrade did not.
    const delivered = fake.deliveries.map((d) => d.messageId);
    expect(new Set(delivered).size).toBe(delivered.length);
    expect(delivered.sort()).toEqual([...before.pending].sort());
    expect(delivered).not.toContain(before.completedMessage);

    // The app's own migrations ran on it too: the journal lists every migration this release ships.
    const journal = JSON.parse(
      readFileSync(new URL("../../db/migrations/meta/_journal.json", import.meta.url), "utf8"),
    );
    const [applied] = await sql<{ n: number }[]>`select count(*)::int as n from drizzle.__drizzle_migrations`;
    expect(applied!.n).toBe(journal.entries.length);
  }, 120_000);
});
