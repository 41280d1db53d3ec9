/**
 * `npm run backup -- FILE` and `npm run restore -- FILE [--accept-unkeyed]`
 * (docs/decisions/030-backups.md).
 *
 * Both use DATABASE_URL; without it, the embedded PostgreSQL under DATA_DIR (default `.data`).
 * A backup of the embedded database is taken while the app runs (from its running server) or
 * while it is stopped; a restore into it needs the app stopped and its database empty (a new
 * DATA_DIR). A restore into DATABASE_URL needs that database empty.
 *
 * Both need AUDIT_KEY as the app has it (without it, the development key in DATA_DIR/audit-key):
 * a backup's digest is an HMAC with its first key, and a restore checks it with any of them.
 * `--accept-unkeyed` restores a file written before backups were keyed, with a warning.
 */
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import postgres from "postgres";
import { relocatedRoot, runningEmbeddedServer, startEmbeddedPostgres, type EmbeddedDatabase } from "#db/embedded";
import { BackupError, restoreBackup, writeBackup } from "#db/backup";
import { auditKeys, signingKey } from "~/models/audit/audit-chain.server";
import { loadDevelopmentSecrets } from "~/server/secrets";
import { env as readEnv, EnvError } from "~/utils/env.server";

/** The URL of the embedded server running on DATA_DIR right now (its port and password), or null. */
export async function runningEmbeddedUrl(dataDir: string, database = "app"): Promise<string | null> {
  if (!(await runningEmbeddedServer(dataDir))) return null;
  for (const root of [path.resolve(dataDir), relocatedRoot(dataDir)]) {
    const lockFile = path.join(root, "pg", "postmaster.pid");
    if (!existsSync(lockFile)) continue;
    // postmaster.pid: pid, data directory, start time, port, socket directory, listen address, ...
    const port = Number((await fs.readFile(lockFile, "utf8")).split("\n")[3]);
    const password = (await fs.readFile(path.join(root, "pg-password"), "utf8")).trim();
    return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  }
  return null;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const acceptUnkeyed = rest.includes("--accept-unkeyed");
  const files = rest.filter((arg) => arg !== "--accept-unkeyed");
  const file = files[0];
  if ((command !== "backup" && command !== "restore") || !file || files.length > 1 || file.startsWith("--")) {
    console.error("usage: npm run backup -- FILE | npm run restore -- FILE [--accept-unkeyed]");
    process.exitCode = 2;
    return;
  }
  const target = path.resolve(file);
  let dataDir: string;
  try {
    dataDir = readEnv().DATA_DIR;
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    console.error(error.message);
    process.exitCode = 1;
    return;
  }
  if ((await loadDevelopmentSecrets(dataDir, { create: false, names: ["AUDIT_KEY"] })).length) {
    console.error(
      `${command}: needs AUDIT_KEY, the app's audit key list (a backup's digest is keyed with it; ` +
        "in development, copy DATA_DIR/audit-key of the app that wrote the backup)",
    );
    process.exitCode = 1;
    return;
  }
  let url = process.env.DATABASE_URL;
  let embedded: EmbeddedDatabase | undefined;
  if (!url && command === "backup") url = (await runningEmbeddedUrl(dataDir)) ?? undefined;
  if (!url) {
    const pid = await runningEmbeddedServer(dataDir);
    if (pid) {
      console.error(
        `restore: the embedded database in ${dataDir}/ is in use (PostgreSQL pid ${pid}); stop the app first.`,
      );
      process.exitCode = 1;
      return;
    }
    embedded = await startEmbeddedPostgres({ dataDir });
    url = embedded.url;
  }
  try {
    if (command === "backup") {
      if (existsSync(target)) {
        console.error(`backup: ${target} exists; name a new file`);
        process.exitCode = 1;
        return;
      }
      await fs.mkdir(path.dirname(target), { recursive: true });
      const startedAt = new Date();
      const done = await writeBackup(url, target, signingKey());
      // Recorded (after the backup, which so never holds its own record) for /admin to show.
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      await sql`insert into backup_runs (trigger, status, started_at, file, bytes, sha256)
        values ('command', 'ok', ${startedAt}, ${target}, ${done.bytes}, ${done.sha256})`
        .catch(() => {})
        .finally(() => sql.end());
      console.log(
        `backup: ${done.rows} rows of ${done.tables} tables written to ${target} (${mb(done.bytes)}, ${(done.ms / 1000).toFixed(1)} s)\n` +
          `sha256 of its content: ${done.sha256} (its digest keyed with audit key ${done.keyId})`,
      );
    } else {
      if (!existsSync(target)) {
        console.error(`restore: ${target} does not exist`);
        process.exitCode = 1;
        return;
      }
      const done = await restoreBackup(url, target, { keys: auditKeys(), acceptUnkeyed });
      if (done.unkeyed) {
        console.error(
          "restore: WARNING: this backup was written before backups were keyed (--accept-unkeyed): nothing proves " +
            "it was not changed. Run `npm run audit:verify` now and treat any broken chain as tampering.",
        );
      }
      console.log(
        `restore: ${done.rows} rows of ${done.tables} tables restored from ${target} (${(done.ms / 1000).toFixed(1)} s); ` +
          "every row count matches the backup. Sessions and sign-in counters are not restored: everyone signs in again. " +
          "Check the audit chains with `npm run audit:verify`.",
      );
    }
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    console.error(`${command}: ${error.message}`);
    process.exitCode = 1;
  } finally {
    await embedded?.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  });
}
