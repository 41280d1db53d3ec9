/**
 * The process's one pg-boss instance. Web code only sends jobs (inside its own transaction, through
 * `sendInTransaction`); handlers live beside this file and run where `startWorkers` is called.
 */
import { randomUUID } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import PgBoss from "pg-boss";
import postgres from "postgres";
import type { Executor } from "#db/client";
import { env } from "~/utils/env.server";
import { logger } from "~/utils/logger.server";
import { queueDefinitions, REMINDER_QUEUE } from "./queues";

const holder = globalThis as typeof globalThis & { __cmBoss?: { boss: PgBoss; started: Promise<void> } };

export const BOSS_SCHEMA = "pgboss";

/** Starts pg-boss (creating its schema), then every queue and the daily schedule. Idempotent. */
export function startBoss(): Promise<PgBoss> {
  if (!holder.__cmBoss) {
    const config = env();
    const boss = new PgBoss({
      connectionString: process.env.DATABASE_URL,
      schema: BOSS_SCHEMA,
      max: 4,
      application_name: "change-management-jobs",
      maintenanceIntervalSeconds: config.JOBS_MAINTENANCE_INTERVAL_SECONDS,
    });
    boss.on("error", (error) => logger().error({ err: error }, "pg-boss error"));
    const started = withSetupLock(async () => {
      await boss.start();
      for (const { name, options } of queueDefinitions(config)) {
        await boss.createQueue(name, { name, ...options });
        // createQueue leaves an existing queue alone; bring its settings up to date. Settings
        // live in the database, so every process must run with the same configuration.
        await boss.updateQueue(name, { name, ...options });
      }
      // pg-boss keeps one schedule per queue and fires each tick once across all instances.
      await boss.schedule(REMINDER_QUEUE, config.REMINDER_CRON, {}, { tz: "UTC" });
    });
    holder.__cmBoss = { boss, started };
  }
  const { boss, started } = holder.__cmBoss;
  return started.then(() => boss);
}

// Any constant works; it only has to be the same for every instance of the app.
const SETUP_LOCK = 727_002;

/**
 * Processes starting together would deadlock creating the same queues (seen with two workers):
 * they take turns on an advisory lock held on a connection of its own.
 */
async function withSetupLock(fn: () => Promise<void>): Promise<void> {
  const lock = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  try {
    await lock`select pg_advisory_lock(${SETUP_LOCK})`;
    await fn();
  } finally {
    await lock`select pg_advisory_unlock(${SETUP_LOCK})`.catch(() => {});
    await lock.end();
  }
}

export async function stopBoss(): Promise<void> {
  const current = holder.__cmBoss;
  if (!current) return;
  holder.__cmBoss = undefined;
  await current.started.catch(() => {});
  // Graceful: active handlers get up to 20 s to finish before the pool closes.
  await current.boss.stop({ graceful: true, wait: true, timeout: 20_000 });
}

/**
 * pg-boss's `db` option over a Drizzle transaction, so a job is inserted in the caller's
 * transaction: rolled back with it, committed with it. Parameters are mapped as postgres.js under
 * Drizzle needs them: undefined -> null, plain objects -> JSON text (stack.md pitfall 6).
 */
export function transactionDb(tx: Executor): PgBoss.Db {
  return {
    async executeSql(text: string, values: unknown[] = []) {
      const parts = text.split(/\$(\d+)/);
      const chunks: SQL[] = [];
      parts.forEach((part, index) => {
        if (index % 2 === 0) chunks.push(sql.raw(part));
        else chunks.push(sql`${toParameter(values[Number(part) - 1])}`);
      });
      const rows = await tx.execute(sql.join(chunks));
      return { rows: Array.from(rows as Iterable<unknown>) };
    },
  };
}

function toParameter(value: unknown): unknown {
  if (value === undefined) return null;
  if (value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date)) {
    return JSON.stringify(value);
  }
  return value;
}

/** Sends a job inside the caller's transaction. Throws if pg-boss did not create it. */
export async function sendInTransaction(
  tx: Executor,
  queue: string,
  data: object,
  options: PgBoss.SendOptions = {},
): Promise<string> {
  const boss = await startBoss();
  const id = await boss.send(queue, data, { ...options, db: transactionDb(tx) });
  if (!id) throw new Error(`pg-boss did not create a job on queue "${queue}" (does the queue exist?)`);
  return id;
}

/**
 * Sends many jobs of one queue inside the caller's transaction in one statement (pg-boss's
 * `insert`), for fan-outs such as the daily reminders. pg-boss 10's insert returns no ids, so the
 * ids are chosen here and counted back (one more statement) to fail loudly on a missing queue.
 */
export async function sendManyInTransaction(tx: Executor, queue: string, data: object[]): Promise<string[]> {
  if (data.length === 0) return [];
  const boss = await startBoss();
  const jobs = data.map((item) => ({ id: randomUUID(), name: queue, data: item }));
  await boss.insert(jobs, { db: transactionDb(tx) });
  const ids = jobs.map((job) => job.id);
  const [row] = await tx.execute<{ n: number }>(sql`
    select count(*)::int as n from ${sql.identifier(BOSS_SCHEMA)}.job
    where id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)`);
  if (row?.n !== ids.length) {
    throw new Error(`pg-boss created ${row?.n ?? 0} of ${ids.length} jobs on queue "${queue}" (does the queue exist?)`);
  }
  return ids;
}
