/**
 * `npm run bench:backup`: the backup and restore rows of docs/performance.md. Seeds the bench
 * database (10,000 MOCs with their forms, users, logs and the insight extras, as `npm run bench`
 * does), then times `writeBackup` of it and `restoreBackup` into a new database, and prints their
 * times, the file's size and the rows carried. Uses DATABASE_URL's server, else an embedded
 * PostgreSQL under .data/bench (tests/bench/server.ts).
 */
import { statSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import { auditKeyId } from "../../app/models/audit/audit-chain.server";
import { countRows, restoreBackup, writeBackup } from "../../db/backup";
import { migrateDatabase } from "../../db/migrate";
import { adminQuery, dropDatabase } from "../helpers/databases";
import { insertInsightExtras, insertMocs, insertUsers } from "./data";
import { openDatabase } from "./server";

const MOCS = 10_000;
const AUDIT_KEY = "bench-audit-key-0123456789-0123456789-abcdef";
const key = { id: auditKeyId(AUDIT_KEY), secret: AUDIT_KEY };
const log = (message: string) => console.log(`[bench:backup] ${message}`);

const database = await openDatabase();
const dir = mkdtempSync(path.join(tmpdir(), "cm-bench-backup-"));
const restoredName = `${new URL(database.url).pathname.slice(1)}_restored`;
const serverUrl = database.url.replace(/\/[^/]*$/, "/postgres");
try {
  log(`seeding ${MOCS} MOCs in ${database.where}`);
  await migrateDatabase(database.url);
  const client = postgres(database.url, { max: 1, onnotice: () => {} });
  await insertUsers(client);
  await insertMocs(client, { from: 1, to: MOCS, mode: "mix" });
  await insertInsightExtras(client, MOCS / 10);
  const [size] = await client<{ size: string }[]>`select pg_size_pretty(pg_database_size(current_database())) as size`;
  await client.end();

  const file = path.join(dir, "bench.cmbackup");
  const backup = await writeBackup(database.url, file, key);
  await adminQuery(serverUrl, async (sql) => {
    await sql.unsafe(`drop database if exists ${restoredName} with (force)`);
    await sql.unsafe(`create database ${restoredName}`);
  });
  const restoredUrl = database.url.replace(/\/[^/]*$/, `/${restoredName}`);
  const restore = await restoreBackup(restoredUrl, file, { keys: [key] });
  const same = JSON.stringify(await countRows(restoredUrl)) === JSON.stringify(await countRows(database.url));
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  console.log("");
  console.log(`| database (${MOCS} MOCs, ${size?.size} on disk) | rows | time | file |`);
  console.log("|---|---|---|---|");
  console.log(
    `| npm run backup | ${backup.rows} in ${backup.tables} tables | ${(backup.ms / 1000).toFixed(1)} s | ${mb(statSync(file).size)} |`,
  );
  console.log(`| npm run restore (schema, load, checks) | ${restore.rows} | ${(restore.ms / 1000).toFixed(1)} s | |`);
  console.log(`\nrow counts of every table equal after the restore: ${same}`);
  await dropDatabase(serverUrl, restoredName);
} finally {
  rmSync(dir, { recursive: true, force: true });
  await database.close();
}
