/**
 * The audit trail and the signature manifestations (docs/decisions/021-records-people-can-trust.md).
 *
 * One append-only chain per record: a MOC's is `moc_logs` (kept, so its /api shape stays), every
 * other record's is `audit_entries`; a record's signature manifestations are a chain of their own.
 * Each entry's hash is keyed with AUDIT_KEY here, in the application (audit-chain.server.ts,
 * docs/decisions/025-keyed-audit-chain.md); PostgreSQL refuses UPDATE, DELETE and TRUNCATE, and
 * `verifyAuditTrail` (audit-verify.server.ts) checks every chain against its keyed head and the
 * seals. Entries never carry secrets: callers pass what happened ("Set a new password"), never
 * the value.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { iso } from "#db/moc-document";
import { signatureManifestations, users } from "#db/schema";
import { getDb, preparedSql, statementOnce, type Executor } from "~/utils/db.server";
import {
  chainTime,
  entryContent,
  inTransaction,
  lockHead,
  nextLink,
  parseHead,
  signatureContent,
  storeHeadSql,
  type ChainHead,
} from "./audit-chain.server";
import type { AuditDefinition } from "../record-kind/record-kind";
import { actingRole } from "./signature-roles";

/** A kind whose trail is the shared `audit_entries` (its `record_kind`; every kind but the MOC's today). */
export type AuditKind = string;

export type AuditInput = {
  kind: AuditKind;
  recordId: string;
  actorId: string | null;
  action: string;
  from?: string | null;
  to?: string | null;
  comment?: string | null;
};

/**
 * The registry entry's trail of a kind kept in `audit_entries` (app/models/record-kind/record-kind.ts):
 * a note is one entry, its values and comment as given.
 */
export const sharedTrail = (chain: string): AuditDefinition => ({
  chain,
  log: { table: "audit_entries" },
  note: (tx, record, note) =>
    appendAudit(tx, {
      kind: chain,
      recordId: record.id,
      actorId: note.actorId,
      action: note.action,
      from: note.from,
      to: note.to,
      comment: note.comment,
    }),
  stateProblems: null,
});

/** Appends one entry to the record's chain (a MOC's entries go through `appendLog`, moc-store.server.ts). */
export async function appendAudit(db: Executor, entry: AuditInput): Promise<void> {
  await appendAuditEntries(db, [entry]);
}

/**
 * Appends entries to their records' chains, in order, in two statements however many: the heads
 * read locked, then every entry and each chain's new head (the archive import starts a chain per
 * record this way).
 */
export async function appendAuditEntries(db: Executor, entries: AuditInput[]): Promise<void> {
  if (entries.length === 0) return;
  await inTransaction(db, async (tx) => {
    const records = [
      ...new Map(entries.map((e) => [`${e.kind}:${e.recordId}`, { kind: e.kind, id: e.recordId }])).values(),
    ];
    const locked = await lockAuditHeadsStatement(tx).execute({ records: JSON.stringify(records) });
    const heads = new Map<string, ChainHead>(locked.map((r) => [`${r.kind}:${r.id}`, parseHead(r.head)]));
    const at = new Date();
    const rows = entries.map((entry) => {
      const chain = `${entry.kind}:${entry.recordId}`;
      const values = {
        record_kind: entry.kind,
        record_id: entry.recordId,
        actor_id: entry.actorId,
        action: entry.action,
        from_value: entry.from ?? null,
        to_value: entry.to ?? null,
        comment: entry.comment ?? null,
        at: at.toISOString(),
      };
      const link = nextLink(entry.kind, entry.recordId, heads.get(chain) ?? { seq: 0, hash: null }, (l) =>
        entryContent({
          kind: entry.kind,
          recordId: entry.recordId,
          seq: l.seq,
          actorId: values.actor_id,
          action: values.action,
          from: values.from_value,
          to: values.to_value,
          comment: values.comment,
          at: chainTime(at),
          prevHash: l.prevHash,
        }),
      );
      heads.set(chain, { seq: link.seq, hash: link.hash });
      return {
        ...values,
        seq: link.seq,
        prev_hash: link.prevHash,
        hash: link.hash,
        key_id: link.keyId,
        head_mac: link.headMac,
      };
    });
    await appendAuditStatement(tx).execute({ rows: JSON.stringify(rows) });
  });
}

const lockAuditHeadsStatement = statementOnce((db) =>
  preparedSql<{ kind: string; id: string; head: string | null }>(
    db,
    sql`select r.kind, r.id, coalesce(
        (select h.seq || ' ' || h.hash from audit_heads h where h.chain = r.kind and h.record_id = r.id for update),
        (select e.seq || ' ' || e.hash from audit_entries e where e.record_kind = r.kind and e.record_id = r.id
          order by e.seq desc limit 1)) as head
      from jsonb_to_recordset(${sql.placeholder("records")}::jsonb) as r(kind text, id uuid)
      order by r.kind, r.id`,
    "audit_entries_heads",
  ),
);

const appendAuditStatement = statementOnce((db) =>
  preparedSql(
    db,
    sql`with rows as (
        select * from jsonb_to_recordset(${sql.placeholder("rows")}::jsonb) as r(record_kind text, record_id uuid,
          actor_id uuid, action text, from_value text, to_value text, comment text, at timestamptz, seq integer,
          prev_hash text, hash text, key_id text, head_mac text)
      ), appended as (
        insert into audit_entries (record_kind, record_id, actor_id, action, from_value, to_value, comment, at, seq,
          prev_hash, hash, key_id)
        select record_kind, record_id, actor_id, action, from_value, to_value, comment, at, seq, prev_hash, hash, key_id
        from rows order by record_kind, record_id, seq
      )
      insert into audit_heads (chain, record_id, seq, hash, key_id, mac)
      select distinct on (record_kind, record_id) record_kind, record_id, seq, hash, key_id, head_mac
      from rows order by record_kind, record_id, seq desc
      on conflict (chain, record_id) do update set seq = excluded.seq, hash = excluded.hash, key_id = excluded.key_id,
        mac = excluded.mac, updated_at = now()`,
    "append_audit_entries",
  ),
);

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
  }>(sql`select h.seq, ${sql.raw(iso("h.at"))} as at, h.actor_id,
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

/**
 * A signature as stored and shown: who (id and printed name), as what, when (UTC), meaning. The one
 * type of a manifestation: MOC documents carry it and the pages' signature blocks show it
 * (`import type` from the browser's side; moc-document.ts, app/components/signatures.tsx).
 */
export type SignatureManifestation = {
  signerId: string;
  printedName: string;
  /**
   * The signing account's name now, when it was renamed after signing (else null; absent where not
   * read): shown beside the printed name, which stays the name at signing (docs/decisions/026-four-eyes-by-record.md).
   */
  accountName?: string | null;
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
  /** Who signs, with their name and position as they are now. */
  signer: { _id: string; name: string; position: string | null };
  role: string;
  meaning: string;
  at: Date;
  onBehalfOf?: { _id: string; name: string } | null;
};

/**
 * Records a signature or decision of `signer`, with their name and position as they are now. A
 * delegate signs as "acting <role>", on behalf of the absent person (`onBehalfOf`). The
 * manifestation is the next link of the record's signature chain.
 */
export async function recordSignature(db: Executor, entry: SignatureEntry): Promise<void> {
  await inTransaction(db, async (tx) => {
    const row = signatureRow(entry);
    const head = await lockHead(tx, `${entry.kind}-signature`, entry.recordId);
    const link = signatureLink(row, head);
    await recordSignatureStatement(tx).execute({ ...row, signedAt: row.signedAt.toISOString(), ...link });
  });
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

/** The signature chain's next link for a manifestation (its seq, prev_hash, keyed hash, new head). */
export function signatureLink(row: ReturnType<typeof signatureRow>, head: ChainHead) {
  return nextLink(`${row.recordKind}-signature`, row.recordId, head, (l) =>
    signatureContent({
      kind: row.recordKind,
      recordId: row.recordId,
      seq: l.seq,
      signerId: row.signerId,
      printedName: row.printedName,
      position: row.position,
      role: row.role,
      meaning: row.meaning,
      signedAt: chainTime(row.signedAt),
      onBehalfOf: row.onBehalfOf,
      onBehalfOfName: row.onBehalfOfName,
      prevHash: l.prevHash,
    }),
  );
}

const p = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;

const recordSignatureStatement = statementOnce((db) =>
  preparedSql(
    db,
    sql`with signed as (
        insert into signature_manifestations (record_kind, record_id, signer_id, printed_name, position, role, meaning,
          signed_at, on_behalf_of, on_behalf_of_name, seq, prev_hash, hash, key_id)
        values (${p("recordKind", "text")}, ${p("recordId", "uuid")}, ${p("signerId", "uuid")},
          ${p("printedName", "text")}, ${p("position", "text")}, ${p("role", "text")}, ${p("meaning", "text")},
          ${p("signedAt", "timestamptz")}, ${p("onBehalfOf", "uuid")}, ${p("onBehalfOfName", "text")},
          ${p("seq", "integer")}, ${p("prevHash", "text")}, ${p("hash", "text")}, ${p("keyId", "text")})
        returning record_kind, record_id)
      ${storeHeadSql(
        sql`(select record_kind || '-signature' from signed)`,
        sql`(select record_id from signed)`,
        p("seq", "integer"),
        p("hash", "text"),
        p("keyId", "text"),
        p("headMac", "text"),
      )}`,
    "record_signature",
  ),
);

/** Every signature of a record, oldest first: the one place pages, /api and print views read them. */
export async function signaturesOf(
  kind: SignatureKind,
  recordId: string,
  db: Executor = getDb(),
): Promise<SignatureManifestation[]> {
  const rows = await db
    .select({ s: signatureManifestations, accountName: users.name })
    .from(signatureManifestations)
    .leftJoin(users, eq(users.id, signatureManifestations.signerId))
    .where(and(eq(signatureManifestations.recordKind, kind), eq(signatureManifestations.recordId, recordId)))
    .orderBy(asc(signatureManifestations.signedAt), asc(signatureManifestations.id));
  return rows.map(({ s: r, accountName }) => ({
    signerId: r.signerId,
    printedName: r.printedName,
    // The account's name now beside the name at signing, when it was renamed since (decision 026).
    accountName: accountName && accountName !== r.printedName ? accountName : null,
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
// Verification: audit-verify.server.ts

export { verifyAuditTrail, type AuditVerification, type BrokenLink } from "./audit-verify.server";
