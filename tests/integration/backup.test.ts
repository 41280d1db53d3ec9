/**
 * The restore drill (docs/decisions/030-backups.md): seed, back up, restore into a new database,
 * compare every table (row counts and content), run the audit verification; a changed, damaged or
 * cut-short backup is refused before anything is written, and so is a database that is not empty.
 * One run goes through the commands themselves, from the embedded PostgreSQL 18 to the test server,
 * and back into a new embedded database (refused while the app's embedded server runs).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { gunzipSync, gzipSync } from "node:zlib";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BackupError, countRows, restoreBackup, verifyBackupFile, writeBackup } from "#db/backup";
import { closeDb } from "#db/client";
import { startEmbeddedPostgres } from "#db/embedded";
import { migrateDatabase } from "#db/migrate";
import { startBoss, stopBoss } from "#jobs/boss";
import { storeAttachment } from "~/models/attachments.server";
import { verifyAuditTrail } from "~/models/audit.server";
import { resetEnv } from "~/utils/env.server";
import { adminQuery, dropDatabase, withDatabase } from "../helpers/databases";
import { makeUser } from "../helpers/factories";
import { makeCast, mocAt } from "../helpers/moc-flow";
import { createPcrOk, makeHolders } from "../helpers/pcr";

const run = promisify(execFile);
const sourceUrl = process.env.DATABASE_URL!;
const dir = mkdtempSync(path.join(tmpdir(), "cm-backup-"));
const made: string[] = [];

async function newDatabase(): Promise<string> {
  const name = `cm_restore_${Math.random().toString(16).slice(2, 10)}`;
  await adminQuery(sourceUrl, (sql) => sql.unsafe(`create database "${name}"`));
  made.push(name);
  return withDatabase(sourceUrl, name);
}

/** Every table's rows as one digest (order-independent), to compare content, not just counts. */
async function tableDigests(url: string): Promise<Record<string, string>> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const out: Record<string, string> = {};
    for (const key of Object.keys(await countRows(url))) {
      const [schema, name] = key.split(".") as [string, string];
      const [row] = await sql.unsafe<{ d: string | null }[]>(
        `select md5(string_agg(t::text, E'\\n' order by t::text)) as d from "${schema}"."${name}" t`,
      );
      out[key] = row?.d ?? "empty";
    }
    return out;
  } finally {
    await sql.end();
  }
}

async function withDatabaseUrl<T>(url: string, fn: () => Promise<T>): Promise<T> {
  const before = process.env.DATABASE_URL;
  await stopBoss();
  await closeDb();
  process.env.DATABASE_URL = url;
  resetEnv();
  try {
    return await fn();
  } finally {
    await stopBoss();
    await closeDb();
    process.env.DATABASE_URL = before;
    resetEnv();
  }
}

const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");
async function* once(buffer: Buffer) {
  yield new Uint8Array(buffer);
}

let file: string;

beforeAll(async () => {
  // A bit of everything: MOCs at several steps (their audit chains and emails), a PCR with its
  // signatures, attachments (bytes in the database), and pg-boss's queues with jobs in them.
  await startBoss();
  const cast = await makeCast();
  const open = await mocAt("b", cast);
  await mocAt("completed", cast);
  await storeAttachment(cast.originator, { mocId: open._id }, "file", {
    name: "Plan.pdf",
    data: once(Buffer.concat([PDF, Buffer.from("\n\\.\n\ttab and newline\r\n"), Buffer.alloc(70_000, 7)])),
  });
  await makeHolders("backup");
  await createPcrOk(await makeUser());
  // pg-boss stops (its jobs stay queued) so the source holds still for the comparison below; the
  // backup's snapshot under concurrent writes is tests/cluster's (it backs up under load).
  await stopBoss();
  file = path.join(dir, "drill.cmbackup");
  await writeBackup(sourceUrl, file);
});

afterAll(async () => {
  await stopBoss();
  for (const name of made) await dropDatabase(sourceUrl, name);
  rmSync(dir, { recursive: true, force: true });
});

describe("backup and restore", () => {
  it("restores into a new database every table, row for row, and the audit chains verify", async () => {
    const target = await newDatabase();
    const summary = await restoreBackup(target, file);
    const source = await countRows(sourceUrl);
    const restored = await countRows(target);
    expect(restored).toEqual(source);
    // Every table of the source is there, pg-boss's and drizzle's included, and holds something.
    expect(Object.keys(restored)).toEqual(
      expect.arrayContaining(["public.attachments", "pgboss.job", "drizzle.__drizzle_migrations"]),
    );
    expect(restored["public.attachments"]).toBeGreaterThan(0);
    expect(restored["pgboss.job"]).toBeGreaterThan(0);
    expect(summary.rows).toBe(Object.values(source).reduce((a, b) => a + b, 0));
    expect(await tableDigests(target)).toEqual(await tableDigests(sourceUrl));

    const audit = await withDatabaseUrl(target, () => verifyAuditTrail());
    expect(audit.entries).toBeGreaterThan(0);
    expect(audit.broken).toEqual([]);

    // The restored database takes new writes: sequences and chains go on from where they were.
    await withDatabaseUrl(target, async () => {
      await mocAt("c", await makeCast());
      expect((await verifyAuditTrail()).broken).toEqual([]);
    });
    // 22 s on a quiet machine (a restore builds the schema and re-checks every foreign key): the
    // default 30 s ran out at a load average of 15.
  }, 120_000);

  it("refuses a backup changed after it was written, before writing anything", async () => {
    const content = gunzipSync(readFileSync(file));
    // A byte of a row changed, and the file compressed again (a valid gzip): the digest catches it.
    const at = content.indexOf(Buffer.from("Plan.pdf"));
    expect(at).toBeGreaterThan(0);
    const changed = Buffer.from(content);
    changed[at] = "X".charCodeAt(0);
    const tampered = path.join(dir, "tampered.cmbackup");
    writeFileSync(tampered, gzipSync(changed));
    await expect(verifyBackupFile(tampered)).rejects.toThrow(/digest does not match/);
    const target = await newDatabase();
    await expect(restoreBackup(target, tampered)).rejects.toBeInstanceOf(BackupError);
    expect(await countRows(target)).toEqual({});

    // A flipped byte of the compressed file, a file cut short, a file that is not a backup.
    const raw = readFileSync(file);
    const flipped = Buffer.from(raw);
    flipped[Math.floor(raw.length / 2)]! ^= 0xff;
    writeFileSync(path.join(dir, "flipped.cmbackup"), flipped);
    await expect(verifyBackupFile(path.join(dir, "flipped.cmbackup"))).rejects.toBeInstanceOf(BackupError);
    writeFileSync(path.join(dir, "short.cmbackup"), gzipSync(content.subarray(0, content.length - 80)));
    await expect(verifyBackupFile(path.join(dir, "short.cmbackup"))).rejects.toThrow(/cut short|ends too early|digest/);
    writeFileSync(path.join(dir, "other.cmbackup"), gzipSync(Buffer.from("hello\n")));
    await expect(verifyBackupFile(path.join(dir, "other.cmbackup"))).rejects.toThrow(/not a Change Management backup/);
    expect(await countRows(target)).toEqual({});
  });

  it("refuses a database that is not empty and leaves it as it was", async () => {
    const target = await newDatabase();
    await migrateDatabase(target);
    const before = await tableDigests(target);
    await expect(restoreBackup(target, file)).rejects.toThrow(/not empty/);
    expect(await tableDigests(target)).toEqual(before);
  });

  it("npm run backup copies the running embedded PostgreSQL 18; npm run restore loads it into another server", async () => {
    const dataDir = path.join(dir, "data");
    const embedded = await startEmbeddedPostgres({ dataDir });
    const backupFile = path.join(dir, "embedded.cmbackup");
    try {
      await migrateDatabase(embedded.url);
      await withDatabaseUrl(embedded.url, async () => {
        await mocAt("d", await makeCast());
      });
      const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "" };
      const backup = await run("npm", ["run", "-s", "backup", "--", backupFile], { env });
      expect(backup.stdout).toMatch(/rows of \d+ tables written/);
      const target = await newDatabase();
      const restore = await run("npm", ["run", "-s", "restore", "--", backupFile], {
        env: { ...process.env, DATABASE_URL: target },
      });
      expect(restore.stdout).toMatch(/every row count matches/);
      // The command records its run once the backup is written, so the backup never holds its own record.
      const { "public.backup_runs": runs, ...source } = await countRows(embedded.url);
      const { "public.backup_runs": restoredRuns, ...restored } = await countRows(target);
      expect(restored).toEqual(source);
      expect(restoredRuns).toBe(runs! - 1);
      expect((await withDatabaseUrl(target, () => verifyAuditTrail())).broken).toEqual([]);

      // A restore into the embedded database needs the app stopped: refused while its server runs.
      const busy = await run("npm", ["run", "-s", "restore", "--", backupFile], { env }).then(
        () => null,
        (error: { code: number; stderr: string }) => error,
      );
      expect(busy?.code).toBe(1);
      expect(busy?.stderr).toMatch(/is in use .*stop the app first/);
    } finally {
      await embedded.stop();
    }

    // Into a new (empty) embedded database, with the app stopped: every row of the backup is there.
    const freshDir = path.join(dir, "fresh-data");
    const restore = await run("npm", ["run", "-s", "restore", "--", backupFile], {
      env: { ...process.env, DATA_DIR: freshDir, DATABASE_URL: "" },
    });
    expect(restore.stdout).toMatch(/every row count matches/);
    const again = await startEmbeddedPostgres({ dataDir });
    const fresh = await startEmbeddedPostgres({ dataDir: freshDir });
    try {
      const { "public.backup_runs": runs, ...source } = await countRows(again.url);
      const { "public.backup_runs": restoredRuns, ...restored } = await countRows(fresh.url);
      expect(restored).toEqual(source);
      expect(restoredRuns).toBe(runs! - 1);
      expect((await withDatabaseUrl(fresh.url, () => verifyAuditTrail())).broken).toEqual([]);
    } finally {
      await fresh.stop();
      await again.stop();
    }
  }, 240_000);
});
