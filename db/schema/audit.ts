import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";

/**
 * The audit trail of every record but MOCs (whose chain is `moc_logs`): PCRs, users, legacy
 * archive records, year-end reviews and delegations (docs/decisions/021-records-people-can-trust.md).
 * Append-only (triggers refuse UPDATE, DELETE and TRUNCATE) and hash-chained per record: a
 * BEFORE INSERT trigger sets `seq`, `prev_hash` (the hash of the record's previous entry) and
 * `hash` (SHA-256 of the entry's content and `prev_hash`). `record_id` has no foreign key, so the
 * history outlives a deleted record.
 */
export const auditEntries = pgTable(
  "audit_entries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    recordKind: text("record_kind").notNull(),
    recordId: uuid("record_id").notNull(),
    /** Set by the chain trigger (the placeholder only satisfies the insert type). */
    seq: integer("seq")
      .notNull()
      .$defaultFn(() => 0),
    /** No foreign key: a deleted user's entries stay (their "Deleted" entry names them). */
    actorId: uuid("actor_id"),
    action: text("action").notNull(),
    fromValue: text("from_value"),
    toValue: text("to_value"),
    comment: text("comment"),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    prevHash: text("prev_hash"),
    hash: text("hash")
      .notNull()
      .$defaultFn(() => ""),
    /** The AUDIT_KEY that keyed `hash` (HMAC-SHA256); null for entries hashed by the database (SHA-256). */
    keyId: text("key_id"),
  },
  (t) => [
    uniqueIndex("audit_entries_record_seq_key").on(t.recordKind, t.recordId, t.seq),
    index("audit_entries_at_idx").on(t.at),
    check(
      "audit_entries_kind_check",
      sql`${t.recordKind} in ('pcr', 'user', 'archive-moc', 'archive-pcr', 'review', 'delegation', 'settings', 'vessel')`,
    ),
  ],
);

/**
 * Signature manifestations (21 CFR 11.50 style): who signed or decided (account id and the name
 * printed at the time), as what (position and role in the record), when (UTC) and what it means.
 * Append-only like the audit trail; no foreign key to the record, so they outlive it.
 */
export const signatureManifestations = pgTable(
  "signature_manifestations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    recordKind: text("record_kind").notNull(),
    recordId: uuid("record_id").notNull(),
    signerId: uuid("signer_id")
      .notNull()
      .references(() => users.id),
    printedName: text("printed_name").notNull(),
    position: text("position"),
    role: text("role").notNull(),
    meaning: text("meaning").notNull(),
    signedAt: timestamp("signed_at", { withTimezone: true }).notNull().defaultNow(),
    /** The absent person the signer acted for (a delegation), with their name as it was then. */
    onBehalfOf: uuid("on_behalf_of").references(() => users.id),
    onBehalfOfName: text("on_behalf_of_name"),
    /** The record's signature chain, like an audit entry's (migration 0016). */
    seq: integer("seq")
      .notNull()
      .$defaultFn(() => 0),
    prevHash: text("prev_hash"),
    hash: text("hash")
      .notNull()
      .$defaultFn(() => ""),
    keyId: text("key_id"),
  },
  (t) => [
    index("signature_manifestations_record_idx").on(t.recordKind, t.recordId, t.signedAt),
    uniqueIndex("signature_manifestations_record_seq_key").on(t.recordKind, t.recordId, t.seq),
    check("signature_manifestations_kind_check", sql`${t.recordKind} in ('moc', 'pcr')`),
  ],
);

/**
 * The head of every chain (a record's audit entries, or its signature manifestations): its length
 * and last hash, keyed (`mac`, HMAC with AUDIT_KEY), moved forward in the statement that appends
 * (a trigger refuses anything else). Verify compares each chain with its head, so a removed tail
 * shows; the daily seal copies the heads outside the database (docs/decisions/025-keyed-audit-chain.md).
 */
export const auditHeads = pgTable(
  "audit_heads",
  {
    /** `moc`, `pcr`, `user`, ... (audit entries) or `moc-signature`, `pcr-signature`. */
    chain: text("chain").notNull(),
    recordId: uuid("record_id").notNull(),
    seq: integer("seq").notNull(),
    hash: text("hash").notNull(),
    keyId: text("key_id").notNull(),
    mac: text("mac").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.chain, t.recordId] })],
);
