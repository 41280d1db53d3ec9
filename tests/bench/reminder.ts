/**
 * `npm run bench:reminder`: the daily reminder alone (docs/performance.md, "Email at production
 * volume (decision 020)", the row "daily reminder, 100,000 MOCs, 10% due: find and claim"),
 * without the server or the worker. Seeds BENCH_MOCS MOCs (default 100,000) as the email bench
 * does, 10% of them open and due on one day, into BENCH_DATABASE (default cm_bench_reminder),
 * then runs the MOC's part of the daily run (`remindMocs`, the whole of the run's cost) for that day
 * BENCH_RUNS times (default 7), each in a transaction rolled back at its end (so every run claims
 * the same MOCs), timing the find and claim, and the whole part. BENCH_EXPLAIN=1 also prints
 * EXPLAIN (ANALYZE, BUFFERS) of the claiming statement.
 *
 * Seeding 100,000 MOCs takes minutes: BENCH_KEEP_DB=1 keeps the database at the end and reuses it
 * on the next start when it holds the same seed (pending migrations are applied to it).
 * DATABASE_URL names the server; unset, an embedded PostgreSQL under .data/bench.
 */
import "../../app/models/kinds/record-kinds.server";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import postgres from "postgres";
import { claimDueMocsSql, remindMocs } from "../../app/models/moc/reminder.server";
import { closeDb } from "../../app/utils/db.server";
import { resetEnv } from "../../app/utils/env.server";
import { preparing } from "../../db/client";
import { runningEmbeddedServer, startEmbeddedPostgres } from "../../db/embedded";
import { migrateDatabase } from "../../db/migrate";
import * as schema from "../../db/schema";
import { stopBoss } from "../../jobs/boss";
import { adminQuery, asAppRole, createAppDatabase, dropDatabase, withDatabase } from "../helpers/databases";
import { insertMocs, insertUsers } from "./data";

const DATABASE = process.env.BENCH_DATABASE ?? "cm_bench_reminder";
if (!/^[a-z_][a-z0-9_]{0,62}$/.test(DATABASE)) throw new Error("BENCH_DATABASE must be a plain lower-case name");
const MOCS = Number(process.env.BENCH_MOCS ?? 100_000);
const DUE = Math.round(MOCS / 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
/** Runs of the claiming statement alone (the same statement `remindMocs` times as `claimMs`). */
const CLAIM_RUNS = Number(process.env.BENCH_CLAIM_RUNS ?? 9);
const KEEP = process.env.BENCH_KEEP_DB === "1";
const EXPLAIN = process.env.BENCH_EXPLAIN === "1";
const EMBEDDED_DIR = ".data/bench";
// Far ahead of every seeded MOC's own target date, so only the MOCs placed below are due (as in email.ts).
const DAY = "2045-06-01";
const SEED = `${MOCS} MOCs, ${DUE} due on ${DAY}`;

const log = (message: string) => console.log(`[bench:reminder] ${message}`);
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const ms = (n: number) => `${Math.round(n)} ms`;
const summary = (values: number[]) =>
  `median ${ms(median(values))}, range ${ms(Math.min(...values))}-${ms(Math.max(...values))} (${values.length} runs)`;

class Rollback extends Error {}

/**
 * CPU time (user and system) the server process `pid` has used, when the server runs on this
 * machine (null otherwise): on a machine shared with other work it moves far less than the wall time.
 */
function backendCpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 10 ms
  } catch {
    return null;
  }
}

/** The server (DATABASE_URL's, or an embedded one) and whether the database already holds this seed. */
async function open(): Promise<{ url: string; seeded: boolean; close: () => Promise<void> }> {
  let serverUrl = process.env.DATABASE_URL;
  let stop = async () => {};
  if (!serverUrl) {
    const pid = await runningEmbeddedServer(EMBEDDED_DIR);
    if (pid) throw new Error(`${EMBEDDED_DIR} is in use (PostgreSQL pid ${pid}): is another benchmark running?`);
    const embedded = await startEmbeddedPostgres({ dataDir: EMBEDDED_DIR, database: "postgres", superuser: true });
    serverUrl = embedded.url;
    stop = embedded.stop;
  }
  const server = serverUrl;
  try {
    let seeded = false;
    if (KEEP) {
      const comment = await adminQuery(
        server,
        (admin) =>
          admin<{ seed: string | null }[]>`
          select shobj_description(oid, 'pg_database') as seed from pg_database where datname = ${DATABASE}`,
      );
      seeded = comment[0]?.seed === SEED;
    }
    const url = seeded ? asAppRole(withDatabase(server, DATABASE)) : await createAppDatabase(server, DATABASE);
    return {
      url,
      seeded,
      async close() {
        if (KEEP) await adminQuery(server, (admin) => admin.unsafe(`comment on database ${DATABASE} is '${SEED}'`));
        else await dropDatabase(server, DATABASE).catch(() => {});
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Turns the triggers that keep `moc_documents` and the search entries up to date off or on. */
async function documentTriggers(action: "enable" | "disable") {
  const triggers = await client<{ table: string; name: string }[]>`
    select tgrelid::regclass::text as table, tgname as name from pg_trigger
    where not tgisinternal and (tgname like 'moc\_documents\_%' or tgname like 'search\_entries\_%')`;
  for (const { table, name } of triggers) await client.unsafe(`alter table ${table} ${action} trigger "${name}"`);
}

const database = await open();
// Without JIT, as the app's own connections (db/client.ts).
const client = postgres(database.url, { max: 2, onnotice: () => {}, connection: { jit: "off" } });
try {
  Object.assign(process.env, {
    DATABASE_URL: database.url,
    SESSION_SECRET: "bench-session-secret-0123456789-0123456789",
    AUDIT_KEY: "bench-audit-key-0123456789-0123456789-abcdef",
    LOG_LEVEL: "warn",
  });
  resetEnv();
  await migrateDatabase(database.url);
  if (database.seeded) {
    log(`reusing ${DATABASE} (${SEED})`);
    await client`vacuum (analyze)`;
  } else {
    const t = performance.now();
    await insertUsers(client);
    // The stored documents' deferred triggers (db/derived.ts) rebuild each new MOC's document at
    // the commit, which made seeding 100,000 MOCs take most of an hour on the shared machine. The
    // reminder reads no document, so they are off while seeding: these MOCs have none.
    await documentTriggers("disable");
    await insertMocs(client, { from: 1, to: MOCS, mode: "mix" });
    // Exactly DUE open MOCs get a target date 14 days overdue to 7 days ahead (no age condition).
    await client`
      update mocs m set target_date = ${DAY}::date - 14 + (x.rn % 22)::int
      from (select id, row_number() over (order by id) as rn from mocs
            where not completed and status <> 'decline' and not is_deleted order by id limit ${DUE}) x
      where m.id = x.id`;
    await documentTriggers("enable");
    await client`vacuum (analyze)`;
    log(`seeded ${SEED} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }

  // Through the same prepared-statement client the server uses (db/client.ts).
  const db = drizzle(preparing(client), { schema });

  // Rolled back, as each run below: the next one finds the same MOCs unclaimed.
  const rolledBack = (fn: (tx: Parameters<Parameters<typeof db.transaction>[0]>[0]) => Promise<void>) =>
    db
      .transaction(async (tx) => {
        await fn(tx);
        throw new Rollback();
      })
      .catch((error: unknown) => {
        if (!(error instanceof Rollback)) throw error;
      });
  // The rolled-back rows leave dead index entries the next claim would step over.
  // pg-boss's tables exist once the queue has started on this database (not on a fresh seed).
  const vacuum = async () => {
    const [{ queued }] = (await client`select to_regclass('pgboss.job') is not null as queued`) as unknown as [
      { queued: boolean },
    ];
    await client.unsafe(
      `vacuum (analyze) moc_reminders, email_messages, action_reminders${queued ? ", pgboss.job" : ""}`,
    );
  };

  if (EXPLAIN) {
    // Rolled back too, and vacuumed after.
    await rolledBack(async (tx) => {
      const plan = await tx.execute<{ "QUERY PLAN": string }>(sql`explain (analyze, buffers) ${claimDueMocsSql(DAY)}`);
      console.log(plan.map((row) => row["QUERY PLAN"]).join("\n"));
    });
    await vacuum();
  }

  const alone: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < CLAIM_RUNS; i++) {
    await rolledBack(async (tx) => {
      const [{ pid }] = (await tx.execute<{ pid: number }>(sql`select pg_backend_pid() as pid`)) as unknown as [
        { pid: number },
      ];
      const c0 = backendCpuMs(pid);
      const t = performance.now();
      const rows = await tx.execute(claimDueMocsSql(DAY));
      alone.push(performance.now() - t);
      const c1 = backendCpuMs(pid);
      if (c0 !== null && c1 !== null) cpu.push(c1 - c0);
      if (rows.length !== DUE) throw new Error(`claimed ${rows.length} MOCs, expected ${DUE}`);
    });
    await vacuum();
  }
  if (CLAIM_RUNS) log(`find and claim, the statement alone: ${summary(alone)} [${alone.map(ms).join(", ")}]`);
  if (cpu.length) log(`the same, CPU time of the server process: ${summary(cpu)}`);

  const claims: number[] = [];
  const wholes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const timings: { claimMs?: number; queueMs?: number } = {};
    let line = "";
    await rolledBack(async (tx) => {
      const t = performance.now();
      const run = await remindMocs(tx, DAY, timings);
      const whole = performance.now() - t;
      const emails = run.results.reduce((sum, r) => sum + r.emailsSent, 0);
      if (run.results.length !== DUE) throw new Error(`claimed ${run.results.length} MOCs, expected ${DUE}`);
      claims.push(timings.claimMs!);
      wholes.push(whole);
      line =
        `run ${i + 1}: ${run.results.length} MOCs found and claimed in ${ms(timings.claimMs!)}, ` +
        `${emails} emails queued in ${ms(timings.queueMs!)}; ${ms(whole)} in all`;
    });
    log(line);
    await vacuum();
  }
  if (RUNS) {
    log(`find and claim in remindMocs: ${summary(claims)}`);
    log(`whole run (in its transaction, before the commit): ${summary(wholes)}`);
  }
} finally {
  // Queueing the emails started pg-boss (jobs/boss.ts) on this database.
  await stopBoss();
  await closeDb();
  await client.end({ timeout: 5 });
  await database.close();
}
