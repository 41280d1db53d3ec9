/**
 * The keyed audit chains (docs/decisions/025-keyed-audit-chain.md).
 *
 * Every record has a chain of audit entries (a MOC's in `moc_logs`, any other's in
 * `audit_entries`) and a chain of signature manifestations. Each entry's `hash` is the
 * HMAC-SHA256, with AUDIT_KEY, of its content and the previous entry's hash; the key lives in the
 * application's environment only, so whoever can write the tables cannot recompute a chain they
 * changed. Each chain's head (its length and last hash, keyed) is kept in `audit_heads` and moved
 * forward in the statement that appends, so a removed tail shows; the daily seal copies the heads
 * outside the database (audit-seal.server.ts).
 *
 * Appending reads the chain's head locked (FOR UPDATE), computes the entry here and writes it
 * with the new head in one statement: two round trips. A MOC step reads its heads in its first
 * statement instead (moc-query.server.ts, loadMocForStep), so it keeps its round trips.
 */
import { createHash, createHmac } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import { getDb, preparedSql, statementOnceBy, type Executor, type Transaction } from "~/utils/db.server";
import { env } from "~/utils/env.server";
import { recordKinds, type RecordKind } from "../record-kind/record-kind";

// ---------------------------------------------------------------------------------------------
// Keys

export type AuditKey = { id: string; secret: string };

/** A key's public name: stored with each entry, so an entry verifies with the key that wrote it. */
export const auditKeyId = (secret: string) =>
  createHash("sha256").update(`change-management audit key\0${secret}`, "utf8").digest("hex").slice(0, 16);

let parsed: { source: string; keys: AuditKey[] } | undefined;

/** The AUDIT_KEY keys: the first keys new entries, every one verifies (a comma-separated list rotates). */
export function auditKeys(): AuditKey[] {
  const source = env().AUDIT_KEY;
  if (!source) throw new Error("AUDIT_KEY is not set");
  if (parsed?.source !== source) {
    const keys = source
      .split(",")
      .map((secret) => secret.trim())
      .filter(Boolean)
      .map((secret) => ({ id: auditKeyId(secret), secret }));
    parsed = { source, keys };
  }
  return parsed.keys;
}

export const signingKey = (): AuditKey => auditKeys()[0]!;

export const keyById = (id: string): AuditKey | undefined => auditKeys().find((key) => key.id === id);

export const keyedHash = (key: AuditKey, text: string) =>
  createHmac("sha256", key.secret).update(text, "utf8").digest("hex");

export const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

// ---------------------------------------------------------------------------------------------
// What a hash covers

/** A JSON array of values, as PostgreSQL's `jsonb_build_array(...)::text` renders it. */
const jsonArray = (values: unknown[]) => `[${values.map((v) => JSON.stringify(v)).join(", ")}]`;

/** A time as the chains render it: UTC with microseconds (`to_char(... 'US')`). */
export const chainTime = (at: Date) => at.toISOString().replace(/Z$/, "000Z");

/**
 * The text an audit entry's hash covers: its content and the previous entry's hash, as
 * PostgreSQL's `audit_entry_hash` renders it (migration 0010; a MOC entry taken on someone's
 * behalf appends `on_behalf_of`, migration 0013).
 */
export function entryContent(entry: {
  kind: string;
  recordId: string;
  seq: number;
  actorId: string | null;
  action: string;
  from: string | null;
  to: string | null;
  comment: string | null;
  /** UTC, `YYYY-MM-DDTHH:MM:SS.ffffffZ` (microseconds). */
  at: string;
  prevHash: string | null;
  onBehalfOf?: string | null;
}): string {
  return jsonArray([
    entry.kind,
    entry.recordId,
    entry.seq,
    entry.actorId,
    entry.action,
    entry.from,
    entry.to,
    entry.comment,
    entry.at,
    entry.prevHash,
    ...(entry.onBehalfOf ? [entry.onBehalfOf] : []),
  ]);
}

/** The text a signature manifestation's hash covers (migration 0016's `signature_hash`). */
export function signatureContent(entry: {
  kind: string;
  recordId: string;
  seq: number;
  signerId: string;
  printedName: string;
  position: string | null;
  role: string;
  meaning: string;
  /** UTC, `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
  signedAt: string;
  onBehalfOf: string | null;
  onBehalfOfName: string | null;
  prevHash: string | null;
}): string {
  return jsonArray([
    `${entry.kind}-signature`,
    entry.recordId,
    entry.seq,
    entry.signerId,
    entry.printedName,
    entry.position,
    entry.role,
    entry.meaning,
    entry.signedAt,
    entry.onBehalfOf,
    entry.onBehalfOfName,
    entry.prevHash,
  ]);
}

/** What a chain's stored head covers: which chain, how long, and its last hash. */
export const headContent = (chain: string, recordId: string, seq: number, hash: string) =>
  jsonArray(["head", chain, recordId, seq, hash]);

// ---------------------------------------------------------------------------------------------
// Heads

/** A chain's end as an append sees it: its length and last hash (0 and null when empty). */
export type ChainHead = { seq: number; hash: string | null };

/** A head as the locking reads return it, `"<seq> <hash>"`, or null for an empty chain. */
export function parseHead(text: string | null | undefined): ChainHead {
  if (!text) return { seq: 0, hash: null };
  const space = text.indexOf(" ");
  return { seq: Number(text.slice(0, space)), hash: text.slice(space + 1) };
}

/**
 * The next link of a chain: its seq and prev_hash, the keyed hash of its content, and the chain's
 * new head (keyed) with it.
 */
export function nextLink(
  chain: string,
  recordId: string,
  head: ChainHead,
  content: (link: { seq: number; prevHash: string | null }) => string,
) {
  const key = signingKey();
  const seq = head.seq + 1;
  const prevHash = head.hash;
  const hash = keyedHash(key, content({ seq, prevHash }));
  return { seq, prevHash, hash, keyId: key.id, headMac: keyedHash(key, headContent(chain, recordId, seq, hash)) };
}

export type Link = ReturnType<typeof nextLink>;

/** An audit entry as a chain link hashes it: who, what, the move, when. */
export type ChainEntry = {
  userId: string | null;
  onBehalfOf: string | null;
  action: string;
  fromStatus: string | null;
  toStatus: string | null;
  comment: string | null;
  at: Date;
};

/**
 * An audit entry's next link in the chain `kind` of the record, its content as `entryContent`:
 * a MOC's `moc_logs` entry and every kind's workflow step (app/models/workflow/engine.server.ts).
 */
export const entryLink = (kind: string, recordId: string, head: ChainHead, entry: ChainEntry): Link =>
  nextLink(kind, recordId, head, (l) =>
    entryContent({
      kind,
      recordId,
      seq: l.seq,
      actorId: entry.userId,
      action: entry.action,
      from: entry.fromStatus,
      to: entry.toStatus,
      comment: entry.comment,
      at: chainTime(entry.at),
      prevHash: l.prevHash,
      onBehalfOf: entry.onBehalfOf,
    }),
  );

/** A chain's name: a record kind's trail (its `audit.chain`), or `<kind>-signature` for its signatures. */
export type ChainName = string;

const SIGNATURE_SUFFIX = "-signature";

/** The chain of the signature manifestations of a kind (`signature_manifestations.record_kind`). */
export const signatureChain = (signatureKind: string) => `${signatureKind}${SIGNATURE_SUFFIX}`;

/** The signature kind a chain name is the manifestations of, or null for a trail. */
export const signaturesOfChain = (chain: string) =>
  chain.endsWith(SIGNATURE_SUFFIX) ? chain.slice(0, -SIGNATURE_SUFFIX.length) : null;

/** Every chain of the registered kinds: each kind's trail and, for those that sign, its signatures. */
export function chainNames(): ChainName[] {
  return recordKinds().flatMap((k) => [k.audit.chain, ...(k.signatures ? [signatureChain(k.signatures)] : [])]);
}

/** The kind a chain belongs to: its trail, or its signatures (`signatures: true`); undefined for none registered. */
export function chainKind(chain: ChainName): { kind: RecordKind; signatures: boolean } | undefined {
  const signatures = signaturesOfChain(chain);
  const kind = recordKinds().find((k) => (signatures ? k.signatures === signatures : k.audit.chain === chain));
  return kind ? { kind, signatures: signatures !== null } : undefined;
}

/** The kind whose trail a chain is, or undefined (a signature chain, or no registered kind). */
const trailOwner = (chain: string) => recordKinds().find((k) => k.audit.chain === chain);

/**
 * SQL: a chain's head locked for this transaction, as `"<seq> <hash>"`. Without a stored head
 * (entries written before migration 0016 and not yet adopted), the chain's last entry's.
 */
export function lockedHeadSql(chain: ChainName, recordId: SQL): SQL {
  if (!chainNames().includes(chain)) throw new Error(`unknown audit chain ${String(chain)}`);
  const name = sql.raw(`'${chain}'`);
  const signatures = signaturesOfChain(chain);
  const log = trailOwner(chain)?.audit.log;
  const last = signatures
    ? sql`select s.seq || ' ' || s.hash from signature_manifestations s
        where s.record_kind = ${sql.raw(`'${signatures}'`)} and s.record_id = ${recordId}
        order by s.seq desc limit 1`
    : log && "recordColumn" in log
      ? sql`select l.seq || ' ' || l.hash from ${sql.raw(`${log.table} l`)} where ${sql.raw(`l.${log.recordColumn}`)} = ${recordId}
          order by l.seq desc limit 1`
      : sql`select e.seq || ' ' || e.hash from audit_entries e
          where e.record_kind = ${name} and e.record_id = ${recordId} order by e.seq desc limit 1`;
  return sql`coalesce((select h.seq || ' ' || h.hash from audit_heads h
      where h.chain = ${name} and h.record_id = ${recordId} for update), (${last}))`;
}

const lockHeadStatement = statementOnceBy((db, chain: ChainName) =>
  preparedSql<{ head: string | null }>(
    db,
    sql`select ${lockedHeadSql(chain, sql`${sql.placeholder("id")}::uuid`)} as head`,
    `audit_head_${chain.replace(/-/g, "_")}`,
  ),
);

/** Locks a chain's head for the rest of the transaction and returns it. */
export async function lockHead(tx: Executor, chain: ChainName, recordId: string): Promise<ChainHead> {
  const [row] = await lockHeadStatement(tx, chain).execute({ id: recordId });
  return parseHead(row?.head);
}

/** SQL: the new head of a chain, written with the entry (an upsert; the trigger lets it only move forward). */
export const storeHeadSql = (chain: SQL, recordId: SQL, seq: SQL, hash: SQL, keyId: SQL, mac: SQL) =>
  sql`insert into audit_heads (chain, record_id, seq, hash, key_id, mac)
    select ${chain}, ${recordId}, ${seq}, ${hash}, ${keyId}, ${mac}
    on conflict (chain, record_id) do update set seq = excluded.seq, hash = excluded.hash, key_id = excluded.key_id,
      mac = excluded.mac, updated_at = now()`;

/** Runs `fn` in the executor's transaction, or in a new one when given the pool (a head lock must last). */
export function inTransaction<T>(db: Executor, fn: (tx: Executor) => Promise<T>): Promise<T> {
  return "rollback" in db ? fn(db) : getDb().transaction((tx: Transaction) => fn(tx));
}

// ---------------------------------------------------------------------------------------------
// Chains written before the key

const ADOPT_QUEUE = "audit-adopt";
const ADOPT_CHUNK = 2000;

/**
 * Once per database (claimed in `job_runs`): every chain that has entries but no stored head
 * (written before migration 0016, hashed by the database) gets its head, keyed, at the server's
 * first start with AUDIT_KEY. From then on, its entries are covered by the keyed head: rewriting
 * them changes the last hash the head records. Returns how many chains it adopted.
 */
export async function adoptAuditChains(): Promise<number> {
  return getDb().transaction(async (tx) => {
    const claimed = await tx.execute(sql`insert into job_runs (queue, key) values (${ADOPT_QUEUE}, '0016')
      on conflict do nothing returning key`);
    if (claimed.length === 0) return 0;
    const ownTrails = recordKinds().flatMap(({ audit: { chain, log } }) =>
      "recordColumn" in log
        ? [
            sql`(select distinct on (l.${sql.raw(log.recordColumn)}) ${chain}::text as chain, l.${sql.raw(log.recordColumn)} as record_id,
                l.seq, l.hash from ${sql.raw(`${log.table} l`)} order by l.${sql.raw(log.recordColumn)}, l.seq desc)
              union all`,
          ]
        : [],
    );
    const rows = await tx.execute<{ chain: ChainName; record_id: string; seq: number; hash: string }>(sql`
      select c.* from (
        ${sql.join(ownTrails, sql` `)}
        (select distinct on (e.record_kind, e.record_id) e.record_kind, e.record_id, e.seq, e.hash
          from audit_entries e order by e.record_kind, e.record_id, e.seq desc)
        union all
        (select distinct on (s.record_kind, s.record_id) s.record_kind || '-signature', s.record_id, s.seq, s.hash
          from signature_manifestations s order by s.record_kind, s.record_id, s.seq desc)
      ) c where not exists (select 1 from audit_heads h where h.chain = c.chain and h.record_id = c.record_id)`);
    const key = signingKey();
    for (let start = 0; start < rows.length; start += ADOPT_CHUNK) {
      const heads = rows.slice(start, start + ADOPT_CHUNK).map((r) => ({
        ...r,
        key_id: key.id,
        mac: keyedHash(key, headContent(r.chain, r.record_id, r.seq, r.hash)),
      }));
      await tx.execute(sql`insert into audit_heads (chain, record_id, seq, hash, key_id, mac)
        select chain, record_id, seq, hash, key_id, mac from jsonb_to_recordset(${JSON.stringify(heads)}::jsonb)
          as r(chain text, record_id uuid, seq integer, hash text, key_id text, mac text)
        on conflict do nothing`);
    }
    return rows.length;
  });
}
