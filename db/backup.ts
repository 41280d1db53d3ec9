/**
 * Backups of the whole database: every table of every schema (the app's, drizzle's migration
 * record, pg-boss's jobs and schedules), read with PostgreSQL's COPY inside ONE repeatable-read,
 * read-only transaction, so every table is read from the same snapshot while the app keeps
 * running. Restore loads them into an empty database in ONE transaction, after building the
 * schema with the same migrations and pg-boss's own construction plan.
 * docs/decisions/030-backups.md says why this and not pg_dump or a base backup.
 *
 * The file: gzip of a framed stream
 *
 *     CM-BACKUP 2\n
 *     K <key id>\n
 *     M <n>\n <manifest JSON, n bytes>
 *     per table, in manifest order: T <index>\n, then D <n>\n <n bytes of COPY text> ..., then E <rows>\n
 *     S <n>\n <sequence values JSON>
 *     Z <HMAC-SHA256 hex, with the key named by K, of every byte above>\n
 *
 * The key is one of AUDIT_KEY's (the caller passes it: db/ reads no app configuration), never in
 * the file: whoever changes a file without the key cannot make its digest match. A restore reads
 * the whole file and checks the digest, the frames and the row counts before it writes anything; a
 * file changed after it was written (or cut short) is refused. Format 1 (`CM-BACKUP 1`, closed by
 * a plain SHA-256 anyone can recompute) is refused unless the caller accepts unkeyed files.
 *
 * Sessions, sign-in links and the sign-in failure counters (`NOT_CARRIED`) are not carried: their
 * tables are in the manifest with no rows, and a restore loads none of theirs from an older file.
 */
import { createHash, createHmac, timingSafeEqual, type Hmac } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import { getConstructionPlans } from "pg-boss";
import postgres from "postgres";
import { migrateDatabase } from "./migrate";
import { projectRoot } from "./project-root";

export const BACKUP_MAGIC = "CM-BACKUP 2\n";
/** Format 1: the same frames without the K line, closed by a plain SHA-256 (before backups were keyed). */
export const UNKEYED_BACKUP_MAGIC = "CM-BACKUP 1\n";
const FRAME_BYTES = 1024 * 1024;
const BOSS_SCHEMA = "pgboss";

export type BackupTable = { schema: string; name: string; columns: string[]; partitioned: boolean };

export type BackupManifest = {
  format: 1;
  createdAt: string;
  serverVersion: string;
  database: string;
  /** drizzle's record of applied migrations (their `created_at`, the journal's `when`), in order. */
  migrations: number[];
  /** pg-boss's schema version, null when the database has no pg-boss schema. */
  bossVersion: number | null;
  tables: BackupTable[];
};

/** An HMAC key for the backup's digest: one of AUDIT_KEY's, named by its public id. */
export type BackupKey = { id: string; secret: string };

/**
 * What a file must be signed with to be read: one of `keys` (every key of the rotation). With
 * `acceptUnkeyed`, a format-1 file (plain SHA-256) is read too, and the result says so.
 */
export type BackupTrust = { keys: readonly BackupKey[]; acceptUnkeyed?: boolean };

export type BackupSummary = {
  file: string;
  bytes: number;
  /** SHA-256 of the file's content (every byte before the closing line): names the file, proves nothing. */
  sha256: string;
  /** The audit key whose HMAC closes the file. */
  keyId: string;
  tables: number;
  rows: number;
  ms: number;
};

export type RestoreSummary = {
  tables: number;
  rows: number;
  rowsByTable: Record<string, number>;
  ms: number;
  /** The file was format 1 (a plain SHA-256, accepted with `acceptUnkeyed`): nothing proves it unchanged. */
  unkeyed: boolean;
};

/** A backup file that is not whole, was changed, or does not fit this release. */
export class BackupError extends Error {}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
export const qualified = (t: { schema: string; name: string }) => `${quote(t.schema)}.${quote(t.name)}`;
export const tableKey = (t: { schema: string; name: string }) => `${t.schema}.${t.name}`;

/**
 * Tables a backup lists (a restore builds them) but carries no rows of: who is signed in
 * (sessions), the one-time sign-in links, and the sign-in failure counters and lockouts — after a
 * restore everyone signs in again and every budget starts afresh (docs/decisions/030-backups.md);
 * and unfinished resumable uploads, bytes nobody has attached yet, which a client sends again from
 * the start (docs/decisions/047-unfinished-uploads-and-signed-files.md).
 */
export const NOT_CARRIED: readonly string[] = [
  "public.sessions",
  "public.sign_in_links",
  "public.rate_limits",
  "public.resumable_uploads",
  "public.resumable_upload_parts",
];
const carried = (t: { schema: string; name: string }) => !NOT_CARRIED.includes(tableKey(t));

/** Every table (partitioned parents, not their partitions) outside PostgreSQL's own schemas. */
async function listTables(sql: postgres.Sql | postgres.TransactionSql): Promise<BackupTable[]> {
  const rows = await sql<{ schema: string; name: string; partitioned: boolean; columns: string[] }[]>`
    select n.nspname as schema, c.relname as name, c.relkind = 'p' as partitioned,
      array(select a.attname::text from pg_attribute a
            where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
            order by a.attnum) as columns
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p') and not c.relispartition
      and n.nspname not in ('pg_catalog', 'information_schema')
      and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'
    order by 1, 2`;
  return rows.map((r) => ({ schema: r.schema, name: r.name, partitioned: r.partitioned, columns: r.columns }));
}

type SequenceValue = { schema: string; name: string; value: string | null };

async function listSequences(sql: postgres.Sql | postgres.TransactionSql): Promise<SequenceValue[]> {
  return sql<SequenceValue[]>`
    select schemaname as schema, sequencename as name, last_value::text as value from pg_sequences
    where schemaname not in ('pg_catalog', 'information_schema') order by 1, 2`;
}

/** The migrations this release ships (db/migrations/meta/_journal.json), by their `when`. */
export function shippedMigrations(): number[] {
  const journal = JSON.parse(
    readFileSync(path.join(projectRoot(import.meta.url), "db/migrations/meta/_journal.json"), "utf8"),
  ) as {
    entries: { when: number }[];
  };
  return journal.entries.map((e) => e.when);
}

async function schemaExists(sql: postgres.Sql | postgres.TransactionSql, schema: string): Promise<boolean> {
  const [row] = await sql<
    { found: boolean }[]
  >`select exists (select 1 from pg_namespace where nspname = ${schema}) as found`;
  return Boolean(row?.found);
}

/** Writes frames into gzip, keyed-hashing (and hashing) the uncompressed bytes, honouring backpressure. */
class FrameWriter {
  readonly hash = createHash("sha256");
  readonly mac: Hmac;
  constructor(
    private readonly out: NodeJS.WritableStream,
    key: BackupKey,
  ) {
    this.mac = createHmac("sha256", key.secret);
  }
  async write(chunk: Buffer | string): Promise<void> {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    this.hash.update(buffer);
    this.mac.update(buffer);
    if (!this.out.write(buffer)) await once(this.out, "drain");
  }
  async frame(tag: string, body: Buffer | string): Promise<void> {
    const buffer = typeof body === "string" ? Buffer.from(body, "utf8") : body;
    await this.write(`${tag} ${buffer.length}\n`);
    await this.write(buffer);
  }
}

/**
 * Writes a backup of the database at `url` to `file`, its digest keyed with `key` (AUDIT_KEY's
 * first): first to `file.partial`, flushed to disk, then renamed, so `file` is either a whole
 * backup or absent.
 */
export async function writeBackup(url: string, file: string, key: BackupKey): Promise<BackupSummary> {
  if (!/^[0-9a-f]{16}$/.test(key.id) || !key.secret) throw new BackupError("a backup needs an audit key");
  const started = Date.now();
  const partial = `${file}.partial`;
  const gzip = createGzip({ level: 6 });
  const done = pipeline(gzip, createWriteStream(partial, { mode: 0o600, flush: true }));
  const writer = new FrameWriter(gzip, key);
  const sql = postgres(url, {
    max: 1,
    onnotice: () => {},
    connection: { application_name: "change-management-backup" },
  });
  let rows = 0;
  let tableCount = 0;
  try {
    await sql.begin("isolation level repeatable read read only", async (tx) => {
      const tables = await listTables(tx);
      tableCount = tables.length;
      const [server] = await tx<{ version: string; database: string }[]>`
        select current_setting('server_version') as version, current_database() as database`;
      const migrations = (await schemaExists(tx, "drizzle"))
        ? (
            await tx<
              { created_at: string }[]
            >`select created_at::text from drizzle.__drizzle_migrations order by created_at`
          ).map((r) => Number(r.created_at))
        : [];
      let bossVersion: number | null = null;
      if (await schemaExists(tx, BOSS_SCHEMA)) {
        const [row] = await tx<{ version: number }[]>`select version::int as version from pgboss.version limit 1`;
        bossVersion = row?.version ?? null;
        const [partitioned] = await tx<{ n: number }[]>`select count(*)::int as n from pgboss.queue where partition`;
        if (partitioned?.n)
          throw new BackupError("pg-boss queues with their own partition are not supported by backups");
      }
      const manifest: BackupManifest = {
        format: 1,
        createdAt: new Date().toISOString(),
        serverVersion: server!.version,
        database: server!.database,
        migrations,
        bossVersion,
        tables,
      };
      await writer.write(BACKUP_MAGIC);
      await writer.write(`K ${key.id}\n`);
      await writer.frame("M", JSON.stringify(manifest));
      for (const [index, table] of tables.entries()) {
        await writer.write(`T ${index}\n`);
        if (!carried(table)) {
          await writer.write("E 0\n");
          continue;
        }
        const columns = table.columns.map(quote).join(", ");
        const source = table.partitioned
          ? `(select ${columns} from ${qualified(table)})`
          : `${qualified(table)} (${columns})`;
        const stream = await tx.unsafe(`copy ${source} to stdout`).readable();
        let tableRows = 0;
        // postgres.js hands over COPY data a row at a time: frames gather up to 1 MB of rows.
        let pending: Buffer[] = [];
        let pendingBytes = 0;
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          // COPY's text format escapes newlines inside values: one line, one row.
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) tableRows++;
          pending.push(chunk);
          pendingBytes += chunk.length;
          if (pendingBytes >= FRAME_BYTES) {
            await writer.frame("D", Buffer.concat(pending));
            pending = [];
            pendingBytes = 0;
          }
        }
        if (pendingBytes) await writer.frame("D", Buffer.concat(pending));
        resumeAfterCopy(stream);
        await writer.write(`E ${tableRows}\n`);
        rows += tableRows;
      }
      // Sequences are not transactional: a value read now is at least the snapshot's, never less.
      await writer.frame("S", JSON.stringify(await listSequences(tx)));
    });
    const sha256 = writer.hash.digest("hex");
    gzip.end(`Z ${writer.mac.digest("hex")}\n`);
    await done;
    await fs.rename(partial, file);
    const { size } = await fs.stat(file);
    return { file, bytes: size, sha256, keyId: key.id, tables: tableCount, rows, ms: Date.now() - started };
  } catch (error) {
    gzip.destroy();
    await done.catch(() => {});
    await fs.rm(partial, { force: true });
    throw error;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * postgres.js 3.4 pauses the connection's socket when a COPY chunk fills the stream's buffer and
 * resumes it from the stream's `read`; when the last chunk and the end arrive together, `read` is
 * never called again and the connection stays paused (porsager/postgres#917, the fix in PR #1016
 * is not released). Calling the stream's `read` once more after the end resumes it.
 */
function resumeAfterCopy(stream: unknown): void {
  (stream as { _read?: () => void })._read?.();
}

/**
 * Waits for a COPY FROM to finish. postgres.js 3.4 never settles the stream when the server
 * refuses the rows (porsager/postgres#1173); a second connection watches the loading one and
 * turns that into an error.
 */
async function copyFinished(writable: NodeJS.WritableStream, url: string, pid: number, what: string): Promise<void> {
  const finished = new Promise<void>((resolve, reject) => {
    writable.once("finish", resolve);
    writable.once("error", reject);
  });
  const watcher = postgres(url, { max: 1, onnotice: () => {} });
  let done = false;
  // The pause between looks ends early once the load has finished: a table's load does not wait
  // out the watcher's tick (half a second a table, every restore).
  let tick: NodeJS.Timeout | undefined;
  let wake = () => {};
  const watch = (async () => {
    while (!done) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        tick = setTimeout(resolve, 500);
      });
      if (done) return;
      const [row] = await watcher<{ state: string | null }[]>`select state from pg_stat_activity where pid = ${pid}`;
      if (row?.state === "idle in transaction (aborted)") {
        throw new BackupError(`the database refused the backup's rows of ${what}`);
      }
    }
  })();
  try {
    await Promise.race([finished, watch]);
  } finally {
    done = true;
    clearTimeout(tick);
    wake();
    await watch.catch(() => {});
    await watcher.end({ timeout: 1 });
  }
}

/** Reads a gunzipped stream as lines and byte runs. */
class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);
  private readonly iterator: AsyncIterator<Buffer>;
  private ended = false;
  readonly hash = createHash("sha256");
  /** The keyed digest, once the K line named its key (fed everything read before it first). */
  mac: Hmac | null = null;
  constructor(stream: AsyncIterable<Buffer>) {
    this.iterator = stream[Symbol.asyncIterator]();
  }
  private async fill(): Promise<boolean> {
    if (this.ended) return false;
    const next = await this.iterator.next();
    if (next.done) {
      this.ended = true;
      return false;
    }
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, next.value]) : next.value;
    return true;
  }
  private update(bytes: Buffer): void {
    this.hash.update(bytes);
    this.mac?.update(bytes);
  }
  /** The next line without its newline, hashed unless it is the closing digest. */
  async line(hashIt = true): Promise<string> {
    for (;;) {
      const end = this.buffer.indexOf(10);
      if (end !== -1 && end <= 100) {
        const line = this.buffer.subarray(0, end + 1);
        this.buffer = this.buffer.subarray(end + 1);
        if (hashIt) this.update(line);
        return line.subarray(0, end).toString("utf8");
      }
      if (this.buffer.length > 100) throw new BackupError("the backup file is not in the expected format");
      if (!(await this.fill())) throw new BackupError("the backup file ends too early (cut short?)");
    }
  }
  /** The next byte, as a character (a frame's tag), without consuming it. */
  async peek(): Promise<string> {
    while (this.buffer.length < 1) if (!(await this.fill())) break;
    return this.buffer.subarray(0, 1).toString("latin1");
  }
  /** Exactly n bytes, yielded as they arrive. */
  async *bytes(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.buffer.length === 0 && !(await this.fill()))
        throw new BackupError("the backup file ends too early (cut short?)");
      const part = this.buffer.subarray(0, Math.min(left, this.buffer.length));
      this.buffer = this.buffer.subarray(part.length);
      this.update(part);
      left -= part.length;
      yield part;
    }
  }
  async all(n: number): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const part of this.bytes(n)) parts.push(part);
    return Buffer.concat(parts);
  }
  async atEnd(): Promise<boolean> {
    return this.buffer.length === 0 && !(await this.fill());
  }
}

function parseFrame(line: string, tag: string): number {
  const match = new RegExp(`^${tag} (\\d{1,15})$`).exec(line);
  if (!match) throw new BackupError(`the backup file is not in the expected format (expected a ${tag} frame)`);
  return Number(match[1]);
}

type Visitor = {
  /** Called with each table's COPY data, in order; `rows` is checked by the reader. */
  table?: (table: BackupTable, data: AsyncGenerator<Buffer>) => Promise<void>;
  sequences?: (values: SequenceValue[]) => Promise<void>;
};

export type BackupRead = {
  manifest: BackupManifest;
  rowsByTable: Record<string, number>;
  sha256: string;
  /** The audit key whose HMAC closes the file; null for a format-1 file read with `acceptUnkeyed`. */
  keyId: string | null;
};

/** Why a format-1 file is refused, and what to do about it. */
export const UNKEYED_REFUSAL =
  "the backup file was written before backups were keyed: its digest is a plain SHA-256, which anyone who " +
  "changes the file can recompute. Restore it only if it was kept where nobody else could write, with " +
  "--accept-unkeyed, then run `npm run audit:verify`";

/**
 * Walks a backup file, checking frames, row counts and the digest (keyed with one of
 * `trust.keys`); throws BackupError when any fails.
 */
async function readBackup(file: string, trust: BackupTrust, visitor: Visitor = {}): Promise<BackupRead> {
  const gunzip = createGunzip();
  const source = createReadStream(file);
  source.on("error", (error) => gunzip.destroy(error));
  source.pipe(gunzip);
  const reader = new FrameReader(gunzip as AsyncIterable<Buffer>);
  try {
    const magic = `${await reader.line().catch(() => "")}\n`;
    let keyId: string | null = null;
    if (magic === BACKUP_MAGIC) {
      const named = /^K ([0-9a-f]{16})$/.exec(await reader.line());
      if (!named) throw new BackupError("the backup file is not in the expected format (no key line)");
      keyId = named[1]!;
      const key = trust.keys.find((k) => k.id === keyId);
      if (!key) {
        throw new BackupError(
          `the backup file was written with audit key ${keyId}, which AUDIT_KEY does not hold: ` +
            "set AUDIT_KEY to the key list of the app that wrote it",
        );
      }
      reader.mac = createHmac("sha256", key.secret).update(`${magic}K ${keyId}\n`, "utf8");
    } else if (magic === UNKEYED_BACKUP_MAGIC) {
      if (!trust.acceptUnkeyed) throw new BackupError(UNKEYED_REFUSAL);
    } else {
      throw new BackupError("this is not a Change Management backup file");
    }
    const manifest = JSON.parse(
      (await reader.all(parseFrame(await reader.line(), "M"))).toString("utf8"),
    ) as BackupManifest;
    if (manifest.format !== 1 || !Array.isArray(manifest.tables)) throw new BackupError("unknown backup format");
    const rowsByTable: Record<string, number> = {};
    for (const [index, table] of manifest.tables.entries()) {
      if (parseFrame(await reader.line(), "T") !== index)
        throw new BackupError("the backup file's tables are out of order");
      let rows = 0;
      const chunks = async function* (): AsyncGenerator<Buffer> {
        while ((await reader.peek()) === "D") {
          for await (const part of reader.bytes(parseFrame(await reader.line(), "D"))) {
            for (let i = part.indexOf(10); i !== -1; i = part.indexOf(10, i + 1)) rows++;
            yield part;
          }
        }
      };
      if (visitor.table) {
        const data = chunks();
        await visitor.table(table, data);
        // Whatever the visitor left unread is still read, hashed and counted.
        for await (const _ of data) void _;
      } else {
        for await (const _ of chunks()) void _;
      }
      const expected = parseFrame(await reader.line(), "E");
      if (expected !== rows)
        throw new BackupError(`the backup file's ${tableKey(table)} holds ${rows} rows, not ${expected}`);
      rowsByTable[tableKey(table)] = rows;
    }
    const sequences = JSON.parse(
      (await reader.all(parseFrame(await reader.line(), "S"))).toString("utf8"),
    ) as SequenceValue[];
    const sha256 = reader.hash.digest("hex");
    const digest = reader.mac ? reader.mac.digest("hex") : sha256;
    const closing = /^Z ([0-9a-f]{64})$/.exec(await reader.line(false));
    if (!closing) throw new BackupError("the backup file has no closing digest (cut short?)");
    if (!digestsEqual(closing[1]!, digest)) {
      throw new BackupError(
        reader.mac
          ? "the backup file's keyed digest does not match its content: it was changed (or damaged) after it was written"
          : "the backup file's digest does not match its content: it was changed or damaged",
      );
    }
    if (!(await reader.atEnd())) throw new BackupError("the backup file has data after its closing digest");
    // Sequences are applied only once everything, the digest included, has been checked.
    await visitor.sequences?.(sequences);
    return { manifest, rowsByTable, sha256, keyId };
  } catch (error) {
    if (error instanceof BackupError) throw error;
    if (error instanceof SyntaxError) throw new BackupError("the backup file's manifest is damaged");
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "Z_DATA_ERROR" || code === "Z_BUF_ERROR") {
      throw new BackupError("the backup file is damaged (its compression does not check out)");
    }
    throw error;
  } finally {
    source.destroy();
    gunzip.destroy();
  }
}

const digestsEqual = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

/** Checks a backup file whole (keyed digest, frames, row counts) without touching any database. */
export async function verifyBackupFile(file: string, trust: BackupTrust): Promise<BackupRead> {
  return readBackup(file, trust);
}

/** Whether the database holds any relation outside PostgreSQL's own schemas. */
async function isEmpty(sql: postgres.Sql): Promise<boolean> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p', 'v', 'm', 'S', 'f')
      and n.nspname not in ('pg_catalog', 'information_schema')
      and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'`;
  return row?.n === 0;
}

/**
 * Restores a backup into the empty database at `url`: checks the file whole first, builds the
 * schema (this release's migrations, pg-boss's construction plan), then loads every table, sets
 * the sequences, checks every row count and re-checks every foreign key, all in one transaction.
 */
export async function restoreBackup(url: string, file: string, trust: BackupTrust): Promise<RestoreSummary> {
  const started = Date.now();
  const { manifest, keyId } = await verifyBackupFile(file, trust);
  const shipped = shippedMigrations();
  const same = manifest.migrations.length === shipped.length && manifest.migrations.every((m, i) => m === shipped[i]);
  if (!same) {
    const newer = manifest.migrations.some((m) => !shipped.includes(m));
    throw new BackupError(
      newer
        ? "the backup was written by a newer release of Change Management (it has migrations this one lacks): restore it with that release"
        : "the backup was written by an older release of Change Management: restore it with that release, then start this one to upgrade",
    );
  }
  const sql = postgres(url, {
    max: 1,
    onnotice: () => {},
    connection: { application_name: "change-management-restore" },
  });
  let built = false;
  try {
    if (!(await isEmpty(sql))) {
      throw new BackupError("the target database is not empty: restore into a new, empty database");
    }
    built = true;
    await migrateDatabase(url);
    if (manifest.bossVersion !== null) {
      await sql.unsafe(getConstructionPlans(BOSS_SCHEMA));
      const [row] = await sql<{ version: number }[]>`select version::int as version from pgboss.version limit 1`;
      if (row?.version !== manifest.bossVersion) {
        throw new BackupError(
          `the backup's job queue is pg-boss schema ${manifest.bossVersion}, this release's is ${row?.version}: restore it with the release that wrote it`,
        );
      }
    }
    let rowsByTable: Record<string, number> = {};
    await sql.begin(async (tx) => {
      const [{ pid } = { pid: 0 }] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
      const present = new Map((await listTables(tx)).map((t) => [tableKey(t), t]));
      for (const table of manifest.tables) {
        const here = present.get(tableKey(table));
        const sameColumns =
          here && here.columns.length === table.columns.length && table.columns.every((c) => here.columns.includes(c));
        if (!sameColumns) {
          throw new BackupError(`the backup's table ${tableKey(table)} does not match this release's schema`);
        }
        present.delete(tableKey(table));
      }
      if (present.size) {
        throw new BackupError(`this release has tables the backup lacks (${[...present.keys()].join(", ")})`);
      }
      // Rows go in as they were: no trigger recomputes a hash or a document, and foreign keys are
      // dropped for the load and added back (re-checked) before the commit.
      const foreignKeys = await tx<{ tbl: string; name: string; definition: string }[]>`
        select c.conrelid::regclass::text as tbl, c.conname as name, pg_get_constraintdef(c.oid) as definition
        from pg_constraint c join pg_namespace n on n.oid = c.connamespace
        where c.contype = 'f' and n.nspname not in ('pg_catalog', 'information_schema')`;
      for (const fk of foreignKeys) await tx.unsafe(`alter table ${fk.tbl} drop constraint ${quote(fk.name)}`);
      const allTables = await tx<{ tbl: string }[]>`
        select c.oid::regclass::text as tbl from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema')
          and n.nspname not like 'pg\\_toast%'`;
      for (const { tbl } of allTables) await tx.unsafe(`alter table ${tbl} disable trigger user`);
      // What the migrations and pg-boss's plan inserted (their bookkeeping) is replaced by the backup's.
      for (const table of manifest.tables) await tx.unsafe(`delete from ${qualified(table)}`);

      const read = await readBackup(file, trust, {
        async table(table, data) {
          // Not carried (an older file may hold them): read and checked with the rest, not loaded.
          if (!carried(table)) return;
          const columns = table.columns.map(quote).join(", ");
          const writable = await tx.unsafe(`copy ${qualified(table)} (${columns}) from stdin`).writable();
          const finished = copyFinished(writable, url, pid, tableKey(table));
          for await (const part of data) {
            if (!writable.write(part)) await Promise.race([once(writable, "drain"), finished]);
          }
          writable.end();
          await finished;
        },
        async sequences(values) {
          for (const seq of values) {
            if (seq.value === null) continue;
            await tx`select setval(${`${quote(seq.schema)}.${quote(seq.name)}`}::regclass, ${seq.value}::bigint, true)`;
          }
        },
      });
      rowsByTable = Object.fromEntries(
        Object.entries(read.rowsByTable).map(([name, n]) => [name, NOT_CARRIED.includes(name) ? 0 : n]),
      );
      for (const table of manifest.tables) {
        const [row] = await tx.unsafe<{ n: string }[]>(`select count(*)::text as n from ${qualified(table)}`);
        const expected = rowsByTable[tableKey(table)] ?? -1;
        if (Number(row?.n) !== expected) {
          throw new BackupError(`${tableKey(table)} holds ${row?.n} rows after the load, the backup ${expected}`);
        }
      }
      for (const { tbl } of allTables) await tx.unsafe(`alter table ${tbl} enable trigger user`);
      for (const fk of foreignKeys) {
        await tx.unsafe(`alter table ${fk.tbl} add constraint ${quote(fk.name)} ${fk.definition}`);
      }
    });
    const rows = Object.values(rowsByTable).reduce((a, b) => a + b, 0);
    return { tables: manifest.tables.length, rows, rowsByTable, ms: Date.now() - started, unkeyed: keyId === null };
  } catch (error) {
    if (built) {
      // The schema built for the load goes again, so the database is as empty as it was found
      // (on a fresh connection: the loading one may be stuck, see copyFinished).
      await sql.end({ timeout: 1 }).catch(() => {});
      const cleanup = postgres(url, { max: 1, onnotice: () => {} });
      await cleanup
        .unsafe(
          `drop schema if exists pgboss cascade; drop schema if exists drizzle cascade; drop schema public cascade; create schema public;`,
        )
        .catch(() => {});
      await cleanup.end({ timeout: 5 });
    }
    throw error;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Row counts of every table (partitioned parents counted whole), for drills and comparisons. */
export async function countRows(url: string): Promise<Record<string, number>> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const counts: Record<string, number> = {};
    await sql.begin("isolation level repeatable read read only", async (tx) => {
      for (const table of await listTables(tx)) {
        const [row] = await tx.unsafe<{ n: string }[]>(`select count(*)::text as n from ${qualified(table)}`);
        counts[tableKey(table)] = Number(row?.n);
      }
    });
    return counts;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
