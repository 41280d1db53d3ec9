/**
 * The process's one pg-boss instance. Web code only sends jobs (inside its own transaction, through
 * `sendInTransaction`); handlers live beside this file and run where `startWorkers` is called.
 */
import { randomUUID } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import { PgBoss, type Db, type SendOptions } from "pg-boss";
import postgres from "postgres";
import { ADVISORY_LOCKS } from "#db/advisory-locks";
import type { Executor } from "#db/client";
import { env } from "~/utils/env.server";
import { logger } from "~/utils/logger.server";
import { currentRequestId } from "~/utils/request-context.server";
import { carryOverLegacyJobs, parkLegacySchema } from "./legacy-boss";
import { AUDIT_SEAL_QUEUE, HOUSEKEEPING_CRON, HOUSEKEEPING_QUEUE, queueDefinitions, REMINDER_QUEUE } from "./queues";

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
      // How soon a job whose worker died (expired) is found and retried: pg-boss 12's monitor,
      // run by its supervisor, does what pg-boss 10's maintenance did.
      superviseIntervalSeconds: config.JOBS_MAINTENANCE_INTERVAL_SECONDS,
      monitorIntervalSeconds: config.JOBS_MAINTENANCE_INTERVAL_SECONDS,
      // One listening connection: a job sent on a `notify` queue (email) wakes the workers at the
      // sender's commit instead of at their next poll (docs/decisions/020-batched-email.md).
      useListenNotify: true,
    });
    boss.on("error", (error) => logger().error({ err: error }, "pg-boss error"));
    const started = withSetupLock(async (lock) => {
      // A database last run by pg-boss 10 keeps its queue in a schema pg-boss 12 cannot migrate.
      await parkLegacySchema(lock, BOSS_SCHEMA);
      await boss.start();
      const definitions = queueDefinitions(config);
      for (const { name, options } of definitions) {
        await boss.createQueue(name, options);
        // createQueue leaves an existing queue alone; bring its settings up to date. Settings
        // live in the database, so every process must run with the same configuration.
        const { policy: _policy, ...settings } = options;
        await boss.updateQueue(name, settings);
      }
      await carryOverLegacyJobs(boss, lock, new Set(definitions.map((d) => d.name)));
      // pg-boss keeps one schedule per queue and fires each tick once across all instances.
      await boss.schedule(REMINDER_QUEUE, config.REMINDER_CRON, {}, { tz: "UTC" });
      await boss.schedule(AUDIT_SEAL_QUEUE, config.AUDIT_SEAL_CRON, {}, { tz: "UTC" });
      await boss.schedule(HOUSEKEEPING_QUEUE, HOUSEKEEPING_CRON, {}, { tz: "UTC" });
    });
    holder.__cmBoss = { boss, started };
  }
  const { boss, started } = holder.__cmBoss;
  return started.then(() => boss);
}

const SETUP_LOCK = ADVISORY_LOCKS.jobsSetup;

/**
 * Processes starting together would deadlock creating the same queues (seen with two workers):
 * they take turns on an advisory lock held on a connection of its own.
 */
export async function withSetupLock(fn: (lock: postgres.Sql) => Promise<void>): Promise<void> {
  const lock = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  try {
    await lock`select pg_advisory_lock(${SETUP_LOCK})`;
    await fn(lock);
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
  await current.boss.stop({ graceful: true, timeout: 20_000 });
}

/**
 * pg-boss's `db` option over a Drizzle transaction, so a job is inserted in the caller's
 * transaction: rolled back with it, committed with it. Parameters are mapped as postgres.js under
 * Drizzle needs them: undefined -> null, plain objects -> JSON text.
 */
export function transactionDb(tx: Executor): Db {
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

/** A job's data with the id of the request that queues it, so its worker's log lines name it. */
function withRequest(data: object): object {
  const requestId = currentRequestId();
  return requestId ? { ...data, requestId } : data;
}

/** The request id a job was queued under (see withRequest), if any. */
export function jobRequestId(data: unknown): string | undefined {
  const id = (data as { requestId?: unknown } | null)?.requestId;
  return typeof id === "string" ? id : undefined;
}

/** Sends a job inside the caller's transaction. Throws if pg-boss did not create it. */
export async function sendInTransaction(
  tx: Executor,
  queue: string,
  data: object,
  options: SendOptions = {},
): Promise<string> {
  const boss = await startBoss();
  const id = await boss.send(queue, withRequest(data), { ...options, db: transactionDb(tx) });
  if (!id) throw new Error(`pg-boss did not create a job on queue "${queue}" (does the queue exist?)`);
  return id;
}

/**
 * Sends many jobs of one queue inside the caller's transaction in one statement (pg-boss's
 * `insert`), for fan-outs such as the daily reminders. Throws unless pg-boss created every one.
 */
export async function sendManyInTransaction(tx: Executor, queue: string, data: object[]): Promise<string[]> {
  if (data.length === 0) return [];
  const boss = await startBoss();
  const jobs = data.map((item) => ({ id: randomUUID(), data: withRequest(item) }));
  const ids = (await boss.insert(queue, jobs, { db: transactionDb(tx), returnId: true })) ?? [];
  if (ids.length !== jobs.length) {
    throw new Error(`pg-boss created ${ids.length} of ${jobs.length} jobs on queue "${queue}" (does the queue exist?)`);
  }
  return ids;
}
