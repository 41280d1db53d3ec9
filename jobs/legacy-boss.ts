/**
 * Carrying a pg-boss 10 queue over to pg-boss 12 (docs/decisions/014-node-24-runtime.md).
 *
 * pg-boss 11 rewrote its schema and ships no migration from pg-boss 10's (schema version 24):
 * started on such a database, pg-boss 12 refuses ("Version 24 not found"). Its release notes ask
 * for the pending jobs to be moved by hand. This module does that on start, under the setup lock:
 *
 * 1. `parkLegacySchema`: before pg-boss starts, a schema at version < 25 is renamed
 *    `pgboss_v10`, so pg-boss 12 installs a fresh `pgboss` beside it.
 * 2. `carryOverLegacyJobs`: after the queues exist, the schedules are re-created (an upsert),
 *    then, in one transaction, every job still to run (created, retry, or active when the old
 *    process stopped) is inserted into the new schema with its id, data and settings, and the
 *    legacy schema is dropped. A crash anywhere leaves either the legacy schema (and the next
 *    start repeats the transaction) or nothing to do.
 *
 * Completed and failed jobs are history the app does not read (message rows keep delivery
 * history), so they go with the legacy schema.
 */
import type { JobInsert, PgBoss } from "pg-boss";
import type postgres from "postgres";
import { logger } from "~/utils/logger.server";

export const LEGACY_SCHEMA = "pgboss_v10";
/** The first schema version of pg-boss 11; anything older is pg-boss 10's (or earlier). */
const FIRST_CURRENT_VERSION = 25;

type LegacyJob = {
  id: string;
  name: string;
  priority: number;
  data: unknown;
  state: string;
  retry_limit: number;
  retry_count: number;
  retry_delay: number;
  retry_backoff: boolean;
  start_after: Date;
  singleton_key: string | null;
  expire_seconds: number;
};

type LegacySchedule = { name: string; cron: string; timezone: string | null; data: unknown; options: unknown };

async function schemaExists(sql: postgres.Sql, schema: string): Promise<boolean> {
  const [row] = await sql<{ found: boolean }[]>`
    select exists (select 1 from pg_namespace where nspname = ${schema}) as found`;
  return row!.found;
}

/** Renames a pg-boss 10 schema out of pg-boss 12's way. Returns true when it did. */
export async function parkLegacySchema(sql: postgres.Sql, schema: string): Promise<boolean> {
  if (!(await schemaExists(sql, schema))) return false;
  const [row] = await sql<{ version: number | null }[]>`
    select (select version from ${sql(schema)}.version limit 1)::int as version`.catch(() => [{ version: null }]);
  if (row?.version == null || row.version >= FIRST_CURRENT_VERSION) return false;
  if (await schemaExists(sql, LEGACY_SCHEMA)) {
    throw new Error(
      `pg-boss schema "${schema}" is at version ${row.version} and "${LEGACY_SCHEMA}" also exists: ` +
        `move or drop one of them by hand before starting`,
    );
  }
  await sql`alter schema ${sql(schema)} rename to ${sql(LEGACY_SCHEMA)}`;
  logger().info({ version: row.version }, `pg-boss ${row.version} schema parked as ${LEGACY_SCHEMA}`);
  return true;
}

/** pg-boss's `db` option over a raw postgres.js transaction (its JSON goes as text, cast by pg-boss). */
function postgresDb(tx: postgres.TransactionSql) {
  return {
    async executeSql(text: string, values: unknown[] = []) {
      const rows = await tx.unsafe(
        text,
        values.map((v) => (v === undefined ? null : v)) as postgres.ParameterOrJSON<never>[],
      );
      return { rows: Array.from(rows) };
    },
  };
}

/**
 * Moves the legacy schema's schedules and pending jobs into the running pg-boss, then drops the
 * legacy schema. `knownQueues` are the queues this version defines; jobs and schedules of other
 * queues are logged and left behind with the legacy schema.
 */
export async function carryOverLegacyJobs(
  boss: PgBoss,
  sql: postgres.Sql,
  knownQueues: ReadonlySet<string>,
): Promise<{ jobs: number; schedules: number } | null> {
  if (!(await schemaExists(sql, LEGACY_SCHEMA))) return null;
  const legacy = sql(LEGACY_SCHEMA);

  const schedules = await sql<LegacySchedule[]>`
    select name, cron, timezone, data, options from ${legacy}.schedule order by name`;
  let scheduled = 0;
  for (const s of schedules) {
    if (!knownQueues.has(s.name)) continue;
    await boss.schedule(s.name, s.cron, (s.data as object | null) ?? null, { tz: s.timezone ?? "UTC" });
    scheduled += 1;
  }

  const jobs = await sql<LegacyJob[]>`
    select id, name, priority, data, state, retry_limit, retry_count, retry_delay, retry_backoff,
           start_after, singleton_key, extract(epoch from expire_in)::int as expire_seconds
    from ${legacy}.job where state in ('created', 'retry', 'active') order by created_on`;
  const byQueue = new Map<string, JobInsert[]>();
  const left: string[] = [];
  for (const job of jobs) {
    if (!knownQueues.has(job.name)) {
      left.push(job.name);
      continue;
    }
    const list = byQueue.get(job.name) ?? [];
    list.push({
      id: job.id,
      data: (job.data as object | null) ?? {},
      priority: job.priority,
      // The attempts already spent still count against the limit.
      retryLimit: Math.max(0, job.retry_limit - job.retry_count),
      retryDelay: job.retry_delay,
      retryBackoff: job.retry_backoff,
      // An active job was cut off by the old process's stop: it runs again (handlers are idempotent).
      startAfter: job.state === "active" ? new Date() : job.start_after,
      singletonKey: job.singleton_key ?? undefined,
      expireInSeconds: Math.max(1, job.expire_seconds || 900),
    });
    byQueue.set(job.name, list);
  }

  let moved = 0;
  await sql.begin(async (tx) => {
    for (const [name, list] of byQueue) {
      await boss.insert(name, list, { db: postgresDb(tx) });
      moved += list.length;
    }
    await tx`drop schema ${tx(LEGACY_SCHEMA)} cascade`;
  });
  if (left.length > 0)
    logger().warn({ queues: [...new Set(left)] }, "legacy jobs of unknown queues were not carried over");
  logger().info({ jobs: moved, schedules: scheduled }, "pg-boss 10 jobs and schedules carried over");
  return { jobs: moved, schedules: scheduled };
}
