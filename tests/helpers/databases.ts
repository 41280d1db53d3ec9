/**
 * Test databases: one migrated template per run, one copy per test file. With DATABASE_URL set
 * they live on that server; without it, on an embedded PostgreSQL under .data/test.
 */
import { randomBytes } from "node:crypto";
import postgres from "postgres";
// Relative, not `#db/`: Playwright's global setup and the browser tests' server import this file too.
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../../db/embedded";
import { migrateDatabase } from "../../db/migrate";

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function adminQuery<T>(serverUrl: string, fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(withDatabase(serverUrl, "postgres"), { max: 1, onnotice: () => {} });
  try {
    return await fn(sql);
  } finally {
    await sql.end();
  }
}

/**
 * The role a production server under test connects as: no superuser, like a real deployment (the
 * app refuses a superuser in production, docs/security.md). Cluster-wide, made once.
 */
export const TEST_APP_ROLE = "cm_app";
const TEST_APP_PASSWORD = "cm-app-test-password";

/** `url` connecting as TEST_APP_ROLE instead. */
export function asAppRole(url: string): string {
  const u = new URL(url);
  u.username = TEST_APP_ROLE;
  u.password = TEST_APP_PASSWORD;
  return u.toString();
}

/** A fresh `database` owned by TEST_APP_ROLE (made if missing); returns the URL to reach it as that role. */
export async function createAppDatabase(serverUrl: string, database: string): Promise<string> {
  await adminQuery(serverUrl, async (sql) => {
    await sql.unsafe(`drop database if exists ${database} with (force)`);
    await sql.unsafe(`do $$ begin create role ${TEST_APP_ROLE} login password '${TEST_APP_PASSWORD}';
      exception when duplicate_object or unique_violation then null; end $$`);
    await sql.unsafe(`create database ${database} owner ${TEST_APP_ROLE}`);
  });
  return asAppRole(withDatabase(serverUrl, database));
}

export async function startTestServer(dataDir: string): Promise<{ serverUrl: string; embedded?: EmbeddedDatabase }> {
  if (process.env.DATABASE_URL) return { serverUrl: process.env.DATABASE_URL };
  const embedded = await startEmbeddedPostgres({ dataDir, database: "postgres", superuser: true });
  return { serverUrl: embedded.url, embedded };
}

export async function createTemplate(serverUrl: string): Promise<string> {
  const name = `cm_tpl_${randomBytes(4).toString("hex")}`;
  await adminQuery(serverUrl, (sql) => sql.unsafe(`create database "${name}"`));
  await migrateDatabase(withDatabase(serverUrl, name));
  await originalProcess(withDatabase(serverUrl, name));
  return name;
}

/**
 * The suite's tests are clients written to the original spec, which has no risk gate: they run
 * with "ranking required before HSEQ review" off, as such clients keep working with it off
 * (issue 38; docs/decisions/037). The gate's own tests switch it on (tests/integration/risk-gate.test.ts),
 * and a new database has it on (tests/integration/first-run.test.ts).
 */
export async function originalProcess(databaseUrl: string): Promise<void> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`update risk_settings set ranking_required = false where id = 1`;
  } finally {
    await sql.end();
  }
}

export async function cloneDatabase(serverUrl: string, template: string, prefix = "cm_t"): Promise<string> {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`;
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(serverUrl, (sql) => sql.unsafe(`create database "${name}" template "${template}"`));
      return name;
    } catch (error) {
      // Two workers copying the template at the same instant can collide; try again shortly.
      if (attempt >= 10 || !/being accessed by other users/.test(String(error))) throw error;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
}

export async function dropDatabase(serverUrl: string, name: string): Promise<void> {
  await adminQuery(serverUrl, (sql) => sql.unsafe(`drop database if exists "${name}" with (force)`));
}
