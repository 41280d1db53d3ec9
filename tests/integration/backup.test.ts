/**
 * The restore drill (docs/decisions/030-backups.md): seed, back up, restore into a new database,
 * compare every table (row counts and content), run the audit verification; sessions, sign-in
 * links and sign-in counters are not carried over. A backup's digest is an HMAC with AUDIT_KEY: a
 * changed file whose digest was recomputed without the key, a damaged or cut-short file, and a
 * file written before backups were keyed are refused before anything is written, and so is a
 * database that is not empty. One run goes through the commands themselves, from the embedded
 * PostgreSQL 18 to the test server (an unkeyed file, accepted with its flag: the role changed in
 * it is found by the verification), and back into a new embedded database (refused while the
 * app's embedded server runs).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createHash, createHmac } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  BackupError,
  countRows,
  restoreBackup,
  verifyBackupFile,
  writeBackup,
  type BackupKey,
  type BackupManifest,
} from "#db/backup";
import { closeDb } from "#db/client";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "#db/embedded";
import { runningEmbeddedUrl } from "../../scripts/backup-cli";
import { migrateDatabase } from "#db/migrate";
import { startBoss, stopBoss } from "#jobs/boss";
import { storeAttachment } from "~/models/records/attachments.server";
import { auditKeyId, auditKeys, signingKey } from "~/models/audit/audit-chain.server";
import { verifyAuditTrail } from "~/models/audit/audit.server";
import type { PublicUser } from "~/models/people/user.server";
import { startPasswordAttempt } from "~/models/people/password-attempts.server";
import { requestSignInLink } from "~/models/sign-in/sign-in-link.server";
import { resetEnv } from "~/utils/env.server";
import { adminQuery, cloneDatabase, dropDatabase, withDatabase } from "../helpers/databases";
import { makeUser, tokenFor } from "../helpers/factories";
import { makeCast, mocAt } from "../helpers/moc-flow";
import { createPcrOk, makeHolders } from "../helpers/pcr";

const run = promisify(execFile);
const trust = () => ({ keys: auditKeys() });
const sourceUrl = process.env.DATABASE_URL!;
const dir = mkdtempSync(path.join(tmpdir(), "cm-backup-"));
const made: string[] = [];

async function newDatabase(): Promise<string> {
  const name = `cm_restore_${Math.random().toString(16).slice(2, 10)}`;
  await adminQuery(sourceUrl, (sql) => sql.unsafe(`create database "${name}"`));
  made.push(name);
  return withDatabase(sourceUrl, name);
}

/** Who is signed in, and the sign-in counters and lockouts: a restore carries none of it. */
const SIGN_IN_STATE = ["public.sessions", "public.sign_in_links", "public.rate_limits"];

/** What a restore leaves of the source's counts: the sign-in state is empty. */
const withoutCarriedOver = (counts: Record<string, number>) => ({
  ...counts,
  ...Object.fromEntries(SIGN_IN_STATE.map((table) => [table, 0])),
});

/** A backup file's content, taken apart: its key line, manifest, each table's COPY text, sequences. */
type Unpacked = { manifest: BackupManifest; tables: Buffer[]; sequences: Buffer };

function unpack(content: Buffer): Unpacked {
  let at = 0;
  const line = () => {
    const end = content.indexOf(10, at);
    const text = content.subarray(at, end).toString("utf8");
    at = end + 1;
    return text;
  };
  const bytes = (frame: string) => {
    const n = Number(frame.split(" ")[1]);
    at += n;
    return content.subarray(at - n, at);
  };
  expect(line()).toBe("CM-BACKUP 2");
  expect(line()).toMatch(/^K [0-9a-f]{16}$/);
  const manifest = JSON.parse(bytes(line()).toString("utf8")) as BackupManifest;
  const tables = manifest.tables.map(() => {
    line();
    const parts: Buffer[] = [];
    for (let frame = line(); frame.startsWith("D "); frame = line()) parts.push(bytes(frame));
    return Buffer.concat(parts);
  });
  return { manifest, tables, sequences: bytes(line()) };
}

/**
 * A backup file's content put back together: keyed with `key` as the app writes it, or closed by a
 * plain SHA-256 as whoever lacks the key can (`keyLine` kept, the format-2 file of someone who
 * recomputed the digest; null, a format-1 file).
 */
function pack(parts: Unpacked, close: { key: BackupKey } | { keyLine: string | null }): Buffer {
  const rows = (data: Buffer) => data.toString("utf8").split("\n").length - 1;
  const frame = (tag: string, body: Buffer) => [Buffer.from(`${tag} ${body.length}\n`), body];
  const keyLine = "key" in close ? `K ${close.key.id}\n` : close.keyLine;
  const body = Buffer.concat([
    Buffer.from(keyLine === null ? "CM-BACKUP 1\n" : `CM-BACKUP 2\n${keyLine}`),
    ...frame("M", Buffer.from(JSON.stringify(parts.manifest))),
    ...parts.tables.flatMap((data, index) => [
      Buffer.from(`T ${index}\n`),
      ...(data.length ? frame("D", data) : []),
      Buffer.from(`E ${rows(data)}\n`),
    ]),
    ...frame("S", parts.sequences),
  ]);
  const digest =
    "key" in close
      ? createHmac("sha256", close.key.secret).update(body).digest("hex")
      : createHash("sha256").update(body).digest("hex");
  return gzipSync(Buffer.concat([body, Buffer.from(`Z ${digest}\n`)]));
}

const tableAt = (parts: Unpacked, key: string) =>
  parts.manifest.tables.findIndex((t) => `${t.schema}.${t.name}` === key);

/** The file's COPY text of public.users with one person's column set to `value`. */
function setUserColumn(parts: Unpacked, userId: string, column: string, value: string): void {
  const index = tableAt(parts, "public.users");
  const columns = parts.manifest.tables[index]!.columns;
  let found = 0;
  const rows = parts.tables[index]!.toString("utf8")
    .split("\n")
    .map((row) => {
      const fields = row.split("\t");
      if (fields[columns.indexOf("id")] !== userId) return row;
      found += 1;
      fields[columns.indexOf(column)] = value;
      return fields.join("\t");
    });
  expect(found).toBe(1);
  parts.tables[index] = Buffer.from(rows.join("\n"), "utf8");
}

/** A table's rows as COPY text, read from a live database (what an older file carried of it). */
async function copyText(url: string, table: string, columns: string[]): Promise<Buffer> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const fields = columns.map((c) => `coalesce("${c}"::text, '\\N')`).join(", ");
    const [row] = await sql.unsafe<{ text: string | null }[]>(
      `select string_agg(concat_ws(E'\\t', ${fields}), E'\\n') || E'\\n' as text from ${table}`,
    );
    return Buffer.from(row?.text ?? "", "utf8");
  } finally {
    await sql.end();
  }
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
let clerk: { _id: string };
/** The embedded PostgreSQL 18 of the commands' run (last test), its schema built while the source is seeded. */
const embeddedDataDir = path.join(dir, "data");
let embeddedSource: Promise<EmbeddedDatabase> | undefined;

beforeAll(async () => {
  // A new cluster's initdb waits mostly on the disk, and the migrations use their own connection:
  // both go on beside the seeding below instead of before the commands' run.
  embeddedSource = startEmbeddedPostgres({ dataDir: embeddedDataDir }).then(async (embedded) => {
    await migrateDatabase(embedded.url);
    return embedded;
  });
  // Its failure is the last test's to report, when it awaits the promise.
  embeddedSource.catch(() => {});
  // A bit of everything: MOCs at several steps (their audit chains and emails), a PCR with its
  // signatures, attachments (bytes in the database), pg-boss's queues with jobs in them, and who is
  // signed in: a session, a sign-in link, failed sign-ins counted.
  await startBoss();
  const cast = await makeCast();
  clerk = cast.originator;
  await tokenFor(cast.originator);
  await requestSignInLink(cast.approver.email, "203.0.113.7");
  await startPasswordAttempt(cast.hseq.email, "203.0.113.9");
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
  await writeBackup(sourceUrl, file, signingKey());
});

afterAll(async () => {
  await stopBoss();
  await (await embeddedSource?.catch(() => undefined))?.stop();
  for (const name of made) await dropDatabase(sourceUrl, name);
  rmSync(dir, { recursive: true, force: true });
});

describe("backup and restore", () => {
  it("restores into a new database every table, row for row, and the audit chains verify", async () => {
    const target = await newDatabase();
    const summary = await restoreBackup(target, file, trust());
    const source = await countRows(sourceUrl);
    const restored = await countRows(target);
    // Sessions, sign-in links and sign-in counters stay behind: everyone signs in again.
    for (const table of SIGN_IN_STATE) expect(source[table]).toBeGreaterThan(0);
    expect(restored).toEqual(withoutCarriedOver(source));
    // Every table of the source is there, pg-boss's and drizzle's included, and holds something.
    expect(Object.keys(restored)).toEqual(
      expect.arrayContaining(["public.attachments", "pgboss.job", "drizzle.__drizzle_migrations"]),
    );
    expect(restored["public.attachments"]).toBeGreaterThan(0);
    expect(restored["pgboss.job"]).toBeGreaterThan(0);
    expect(summary.rows).toBe(Object.values(restored).reduce((a, b) => a + b, 0));
    expect(summary.unkeyed).toBe(false);
    const [restoredDigests, sourceDigests] = await Promise.all([tableDigests(target), tableDigests(sourceUrl)]);
    expect(restoredDigests).toEqual({
      ...sourceDigests,
      ...Object.fromEntries(SIGN_IN_STATE.map((table) => [table, "empty"])),
    });

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

  it("refuses a backup changed and its digest recomputed without the key, before writing anything", async () => {
    const content = gunzipSync(readFileSync(file));
    // A byte of a row changed, and the file compressed again (a valid gzip): the digest catches it.
    const at = content.indexOf(Buffer.from("Plan.pdf"));
    expect(at).toBeGreaterThan(0);
    const changed = Buffer.from(content);
    changed[at] = "X".charCodeAt(0);
    const tampered = path.join(dir, "tampered.cmbackup");
    writeFileSync(tampered, gzipSync(changed));
    await expect(verifyBackupFile(tampered, trust())).rejects.toThrow(/digest does not match/);
    const target = await newDatabase();
    await expect(restoreBackup(target, tampered, trust())).rejects.toBeInstanceOf(BackupError);
    expect(await countRows(target)).toEqual({});

    // A person made an admin in the file, and its digest recomputed as SHA-256 (all one can do
    // without AUDIT_KEY): refused, with the keyed digest named, and the database stays empty.
    const parts = unpack(content);
    const keyLine = `K ${signingKey().id}\n`;
    setUserColumn(parts, clerk._id, "role", "admin");
    const forged = path.join(dir, "forged.cmbackup");
    writeFileSync(forged, pack(parts, { keyLine }));
    await expect(restoreBackup(target, forged, trust())).rejects.toThrow(
      "the backup file's keyed digest does not match its content: it was changed (or damaged) after it was written",
    );
    expect(await countRows(target)).toEqual({});
    // The same file as format 1 (no key line, a plain SHA-256, as before backups were keyed):
    // refused unless the caller accepts unkeyed files (the commands' --accept-unkeyed, below).
    const downgraded = path.join(dir, "downgraded.cmbackup");
    writeFileSync(downgraded, pack(parts, { keyLine: null }));
    await expect(restoreBackup(target, downgraded, trust())).rejects.toThrow(/written before backups were keyed/);
    expect(await countRows(target)).toEqual({});
    // Whoever holds the key can write a file that verifies (so the helper above is faithful, and
    // what was refused was the digest); a key AUDIT_KEY does not hold is refused, one still in its
    // rotation list is not.
    const other = "another-audit-key-0123456789-0123456789-abcdef";
    const rekeyed = path.join(dir, "rekeyed.cmbackup");
    writeFileSync(rekeyed, pack(parts, { key: { id: auditKeyId(other), secret: other } }));
    await expect(verifyBackupFile(rekeyed, trust())).rejects.toThrow(
      `the backup file was written with audit key ${auditKeyId(other)}, which AUDIT_KEY does not hold`,
    );
    const rotated = await verifyBackupFile(rekeyed, {
      keys: [...auditKeys(), { id: auditKeyId(other), secret: other }],
    });
    expect(rotated.keyId).toBe(auditKeyId(other));

    // A flipped byte of the compressed file, a file cut short, a file that is not a backup.
    const raw = readFileSync(file);
    const flipped = Buffer.from(raw);
    flipped[Math.floor(raw.length / 2)]! ^= 0xff;
    writeFileSync(path.join(dir, "flipped.cmbackup"), flipped);
    await expect(verifyBackupFile(path.join(dir, "flipped.cmbackup"), trust())).rejects.toBeInstanceOf(BackupError);
    writeFileSync(path.join(dir, "short.cmbackup"), gzipSync(content.subarray(0, content.length - 80)));
    await expect(verifyBackupFile(path.join(dir, "short.cmbackup"), trust())).rejects.toThrow(
      /cut short|ends too early|digest/,
    );
    writeFileSync(path.join(dir, "other.cmbackup"), gzipSync(Buffer.from("hello\n")));
    await expect(verifyBackupFile(path.join(dir, "other.cmbackup"), trust())).rejects.toThrow(
      /not a Change Management backup/,
    );
    expect(await countRows(target)).toEqual({});
  });

  it("refuses a database that is not empty and leaves it as it was", async () => {
    // A copy of the suite's migrated template: the app's whole schema and its first rows, as a
    // database the app has run on holds them, without applying every migration again.
    const name = await cloneDatabase(inject("dbServerUrl"), inject("dbTemplate"), "cm_restore");
    made.push(name);
    const target = withDatabase(sourceUrl, name);
    const before = await tableDigests(target);
    await expect(restoreBackup(target, file, trust())).rejects.toThrow(/not empty/);
    expect(await tableDigests(target)).toEqual(before);
  });

  it("npm run backup copies the running embedded PostgreSQL 18; npm run restore loads it into another server", async () => {
    const dataDir = embeddedDataDir;
    const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "" };
    const embedded = await embeddedSource!;
    const backupFile = path.join(dir, "embedded.cmbackup");
    let source: Record<string, number>;
    let runs: number | undefined;
    let sessions: Buffer;
    let parts: Unpacked;
    let person: PublicUser;
    try {
      await withDatabaseUrl(embedded.url, async () => {
        const cast = await makeCast();
        await mocAt("b", cast);
        person = cast.originator;
        await tokenFor(person);
      });
      // A restore into the embedded database needs the app stopped: refused while its server runs.
      // (The same entry as `npm run restore`, without npm's start-up: npm runs it below.) It is
      // refused before it reads the file or the database, so it runs beside the backup.
      const [backup, busy] = await Promise.all([
        run("npm", ["run", "-s", "backup", "--", backupFile], { env }),
        run(process.execPath, ["--import", "tsx", "scripts/backup-cli.ts", "restore", backupFile], { env }).then(
          () => null,
          (error: { code: number; stderr: string }) => error,
        ),
      ]);
      expect(backup.stdout).toMatch(/rows of \d+ tables written/);
      expect(backup.stdout).toContain(`keyed with audit key ${signingKey().id}`);
      expect(busy?.code).toBe(1);
      expect(busy?.stderr).toMatch(/is in use .*stop the app first/);
      // The command records its run once the backup is written, so the backup never holds its own record.
      ({ "public.backup_runs": runs, ...source } = await countRows(embedded.url));
      parts = unpack(gunzipSync(readFileSync(backupFile)));
      const columns = parts.manifest.tables[tableAt(parts, "public.sessions")]!.columns;
      sessions = await copyText(embedded.url, "public.sessions", columns);
      expect(sessions.length).toBeGreaterThan(0);

      // Its database dropped, the stopped cluster's next start makes a new, empty one (as a new
      // DATA_DIR would, without a second initdb).
      await adminQuery((await runningEmbeddedUrl(dataDir, "postgres"))!, (sql) =>
        sql.unsafe(`drop database app with (force)`),
      );
    } finally {
      await embedded.stop();
    }

    // A file as written before backups were keyed, with a session in it (as such files carried) and
    // a person made an admin, into the test server (another PostgreSQL version): restored only with
    // --accept-unkeyed, with a warning; the session stays behind, and the verification finds the
    // role the trail does not account for.
    parts!.tables[tableAt(parts!, "public.sessions")] = sessions!;
    setUserColumn(parts!, person!._id, "role", "admin");
    const unkeyedFile = path.join(dir, "unkeyed.cmbackup");
    writeFileSync(unkeyedFile, pack(parts!, { keyLine: null }));
    const target = await newDatabase();

    // Both restores at once, on two servers that share nothing: the keyed file into the new (empty)
    // embedded database with the app stopped, and the unkeyed one into the test server.
    const [intoEmbedded, unkeyed] = await Promise.all([
      run("npm", ["run", "-s", "restore", "--", backupFile], { env }),
      run(process.execPath, ["--import", "tsx", "scripts/backup-cli.ts", "restore", unkeyedFile, "--accept-unkeyed"], {
        env: { ...process.env, DATABASE_URL: target },
      }),
    ]);

    // Into the embedded database: every row of the backup is there.
    expect(intoEmbedded.stdout).toMatch(/every row count matches/);
    expect(intoEmbedded.stdout).toMatch(/Sessions and sign-in counters are not restored: everyone signs in again/);
    expect(intoEmbedded.stderr).not.toMatch(/WARNING/);
    const again = await startEmbeddedPostgres({ dataDir });
    try {
      const { "public.backup_runs": restoredRuns, ...restored } = await countRows(again.url);
      expect(restored).toEqual(withoutCarriedOver(source!));
      expect(restoredRuns).toBe(runs! - 1);
      expect((await withDatabaseUrl(again.url, () => verifyAuditTrail())).broken).toEqual([]);
    } finally {
      await again.stop();
    }

    // Into the test server, unkeyed.
    expect(unkeyed.stdout).toMatch(/every row count matches/);
    expect(unkeyed.stderr).toMatch(/WARNING: this backup was written before backups were keyed/);
    const { "public.backup_runs": targetRuns, ...inTarget } = await countRows(target);
    expect(inTarget).toEqual(withoutCarriedOver(source!));
    expect(targetRuns).toBe(runs! - 1);
    const audit = await withDatabaseUrl(target, () => verifyAuditTrail());
    expect(audit.broken).toEqual([
      expect.objectContaining({
        kind: "user",
        recordId: person!._id,
        reason: `its role is "admin", but its audit trail last set it to "user" (changed behind the app's back)`,
      }),
    ]);
  }, 240_000);
});
