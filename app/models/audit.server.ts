/**
 * The audit trail and the signature manifestations (docs/decisions/021-records-people-can-trust.md).
 *
 * One append-only, hash-chained trail per record: a MOC's chain is `moc_logs` (kept, so its /api
 * shape stays), every other record's is `audit_entries`. PostgreSQL sets each entry's `seq`,
 * `prev_hash` and `hash` in a BEFORE INSERT trigger and refuses UPDATE, DELETE and TRUNCATE;
 * `verifyAuditTrail` recomputes every hash here, in Node, independently of the database's
 * function, and names the first broken link of each chain. Entries never carry secrets: callers
 * pass what happened ("Set a new password"), never the value.
 */
import { createHash } from "node:crypto";
import { and, asc, eq, sql } from "drizzle-orm";
import { auditEntries, signatureManifestations } from "#db/schema";
import { getDb, statementOnce, type Executor } from "~/utils/db.server";
import { actingRole } from "./moc-document";
import type { PublicUser } from "./user.server";

export const AUDIT_KINDS = ["moc", "pcr", "user", "archive-moc", "archive-pcr", "review", "delegation"] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

export type AuditInput = {
  kind: Exclude<AuditKind, "moc">;
  recordId: string;
  actorId: string | null;
  action: string;
  from?: string | null;
  to?: string | null;
  comment?: string | null;
};

/** Appends one entry to the record's chain (a MOC's entries go through `appendLog`, moc-store.server.ts). */
export async function appendAudit(db: Executor, entry: AuditInput): Promise<void> {
  await db.insert(auditEntries).values({
    recordKind: entry.kind,
    recordId: entry.recordId,
    actorId: entry.actorId,
    action: entry.action,
    fromValue: entry.from ?? null,
    toValue: entry.to ?? null,
    comment: entry.comment ?? null,
  });
}

/** One entry of a record's history as the pages show it. */
export type HistoryEntry = {
  seq: number;
  at: string;
  actorId: string | null;
  actorName: string | null;
  action: string;
  from: string | null;
  to: string | null;
  comment: string | null;
};

/** The history of one record, oldest first, with the actors' names (one query). */
export async function historyOf(kind: AuditKind, recordId: string, db: Executor = getDb()): Promise<HistoryEntry[]> {
  const source =
    kind === "moc"
      ? sql`select l.seq, l.at, l.user_id as actor_id, l.action, l.from_status as from_value, l.to_status as to_value,
          l.comment from moc_logs l where l.moc_id = ${recordId}`
      : sql`select e.seq, e.at, e.actor_id, e.action, e.from_value, e.to_value, e.comment
          from audit_entries e where e.record_kind = ${kind} and e.record_id = ${recordId}`;
  const rows = await db.execute<{
    seq: number;
    at: string;
    actor_id: string | null;
    actor_name: string | null;
    action: string;
    from_value: string | null;
    to_value: string | null;
    comment: string | null;
  }>(sql`select h.seq, to_char(h.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at, h.actor_id,
      u.name as actor_name, h.action, h.from_value, h.to_value, h.comment
    from (${source}) h left join users u on u.id = h.actor_id order by h.seq`);
  return rows.map((r) => ({
    seq: r.seq,
    at: r.at,
    actorId: r.actor_id,
    actorName: r.actor_name,
    action: r.action,
    from: r.from_value,
    to: r.to_value,
    comment: r.comment,
  }));
}

// ---------------------------------------------------------------------------------------------
// Signature manifestations

export type SignatureKind = "moc" | "pcr";

/** A signature as stored and shown: who (id and printed name), as what, when (UTC), meaning. */
export type SignatureManifestation = {
  signerId: string;
  printedName: string;
  position: string | null;
  role: string;
  meaning: string;
  signedAt: string;
  /** The absent person the signer acted for (docs/decisions/023-temporary-changes-and-delegation.md), else null. */
  onBehalfOf: { _id: string; name: string } | null;
};

/** The manifestation's "on behalf of" as stored (the principal's id and their name then). */
export const onBehalfOfManifestation = (row: { onBehalfOf: string | null; onBehalfOfName: string | null }) =>
  row.onBehalfOf ? { _id: row.onBehalfOf, name: row.onBehalfOfName ?? "" } : null;

type SignatureEntry = {
  kind: SignatureKind;
  recordId: string;
  signer: PublicUser;
  role: string;
  meaning: string;
  at: Date;
  onBehalfOf?: { _id: string; name: string } | null;
};

/**
 * Records a signature or decision of `signer`, with their name and position as they are now. A
 * delegate signs as "acting <role>", on behalf of the absent person (`onBehalfOf`).
 */
export async function recordSignature(db: Executor, entry: SignatureEntry): Promise<void> {
  await recordSignatureStatement(db).execute(signatureRow(entry));
}

/**
 * A signature manifestation's row: who signed (their own name and position), in what role (for
 * an absent person, "acting <role>" and whom for), what it means and when. recordSignature writes
 * it; a MOC step writes it in its move's statement (moc-workflow.server.ts).
 */
export function signatureRow(entry: SignatureEntry) {
  return {
    recordKind: entry.kind,
    recordId: entry.recordId,
    signerId: entry.signer._id,
    printedName: entry.signer.name,
    position: entry.signer.position,
    role: entry.onBehalfOf ? actingRole(entry.role) : entry.role,
    meaning: entry.meaning,
    signedAt: entry.at,
    onBehalfOf: entry.onBehalfOf?._id ?? null,
    onBehalfOfName: entry.onBehalfOf?.name ?? null,
  };
}

const recordSignatureStatement = statementOnce((db) =>
  db
    .insert(signatureManifestations)
    .values({
      recordKind: sql.placeholder("recordKind"),
      recordId: sql.placeholder("recordId"),
      signerId: sql.placeholder("signerId"),
      printedName: sql.placeholder("printedName"),
      position: sql.placeholder("position"),
      role: sql.placeholder("role"),
      meaning: sql.placeholder("meaning"),
      signedAt: sql.placeholder("signedAt"),
      onBehalfOf: sql.placeholder("onBehalfOf"),
      onBehalfOfName: sql.placeholder("onBehalfOfName"),
    })
    .prepare("record_signature"),
);

/** Every signature of a record, oldest first: the one place pages, /api and print views read them. */
export async function signaturesOf(
  kind: SignatureKind,
  recordId: string,
  db: Executor = getDb(),
): Promise<SignatureManifestation[]> {
  const rows = await db
    .select()
    .from(signatureManifestations)
    .where(and(eq(signatureManifestations.recordKind, kind), eq(signatureManifestations.recordId, recordId)))
    .orderBy(asc(signatureManifestations.signedAt), asc(signatureManifestations.id));
  return rows.map((r) => ({
    signerId: r.signerId,
    printedName: r.printedName,
    position: r.position,
    role: r.role,
    meaning: r.meaning,
    signedAt: r.signedAt.toISOString(),
    onBehalfOf: onBehalfOfManifestation(r),
  }));
}

/** The same words for a name however it is typed: case and runs of spaces aside. */
const normalName = (name: string) => name.normalize("NFC").trim().replace(/\s+/g, " ").toLocaleLowerCase("en");

/** A typed signature is the signer's own name (case and spacing aside). */
export const typedNameMatches = (typed: string, name: string) => normalName(typed) === normalName(name);

/** A drawn signature is a PNG data URL; anything else is a typed name. */
export const isDrawnSignature = (signature: string) => signature.startsWith("data:image/");

// ---------------------------------------------------------------------------------------------
// Verification

/**
 * The text an entry's hash covers: its content and the previous entry's hash, as PostgreSQL's
 * `audit_entry_hash` renders it (`jsonb_build_array(...)::text`: JSON values joined by ", ").
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
  /** A MOC entry taken on someone's behalf (delegation): appended, so other entries hash as before (migration 0013). */
  onBehalfOf?: string | null;
}): string {
  const values = [
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
  ];
  return `[${values.map((v) => JSON.stringify(v)).join(", ")}]`;
}

export const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

export type BrokenLink = {
  kind: AuditKind;
  recordId: string;
  /** The first entry of the chain that fails (its position in the chain, 1-based, and its id). */
  seq: number;
  entryId: string;
  reason: string;
};

export type AuditVerification = { chains: number; entries: number; broken: BrokenLink[] };

type ChainRow = {
  kind: AuditKind;
  record_id: string;
  id: string;
  seq: number;
  actor_id: string | null;
  action: string;
  from_value: string | null;
  to_value: string | null;
  comment: string | null;
  at: string;
  prev_hash: string | null;
  hash: string;
  on_behalf_of: string | null;
};

/**
 * Checks every chain: each entry's hash is the SHA-256 of its content, its `prev_hash` is the
 * previous entry's hash, and `seq` counts 1, 2, 3 without gaps. Returns each broken chain's first
 * broken link (`broken` empty when all hold).
 */
export async function verifyAuditTrail(db: Executor = getDb()): Promise<AuditVerification> {
  const rows = await db.execute<ChainRow>(sql`
    select * from (
      select 'moc' as kind, l.moc_id as record_id, l.id, l.seq, l.user_id as actor_id, l.action,
        l.from_status as from_value, l.to_status as to_value, l.comment,
        to_char(l.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at, l.prev_hash, l.hash,
        l.on_behalf_of
      from moc_logs l
      union all
      select e.record_kind, e.record_id, e.id, e.seq, e.actor_id, e.action, e.from_value, e.to_value, e.comment,
        to_char(e.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), e.prev_hash, e.hash,
        null
      from audit_entries e
    ) c order by c.kind, c.record_id, c.seq`);
  const broken: BrokenLink[] = [];
  let chains = 0;
  let chainKey: string | null = null;
  let previous: ChainRow | null = null;
  let chainBroken = false;
  for (const row of rows) {
    const key = `${row.kind}:${row.record_id}`;
    if (key !== chainKey) {
      chains += 1;
      chainKey = key;
      previous = null;
      chainBroken = false;
    }
    if (!chainBroken) {
      const reason = linkProblem(row, previous);
      if (reason) {
        broken.push({ kind: row.kind, recordId: row.record_id, seq: row.seq, entryId: row.id, reason });
        chainBroken = true;
      }
    }
    previous = row;
  }
  return { chains, entries: rows.length, broken };
}

function linkProblem(row: ChainRow, previous: ChainRow | null): string | null {
  const expectedSeq = (previous?.seq ?? 0) + 1;
  if (row.seq !== expectedSeq) return `entry ${expectedSeq} is missing (found ${row.seq} next)`;
  if ((row.prev_hash ?? null) !== (previous?.hash ?? null)) return "its link to the previous entry does not match";
  const content = entryContent({
    kind: row.kind,
    recordId: row.record_id,
    seq: row.seq,
    actorId: row.actor_id,
    action: row.action,
    from: row.from_value,
    to: row.to_value,
    comment: row.comment,
    at: row.at,
    prevHash: row.prev_hash,
    onBehalfOf: row.on_behalf_of,
  });
  return sha256(content) === row.hash ? null : "its content does not match its hash (changed after it was written)";
}
