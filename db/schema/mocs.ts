import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
  type AnyPgColumn,
} from "drizzle-orm/pg-core";
import type { MocFormKind, MocStatus } from "./enums";
import { users } from "./users";
import type { PlanItemTraining } from "./training";

const timestamps = {
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
};

/** `{count}-{year}` counters, one row per kind and UTC year; the upsert that bumps them serialises creators. */
export const serialCounters = pgTable(
  "serial_counters",
  {
    kind: text("kind").notNull(),
    year: integer("year").notNull(),
    last: integer("last").notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.year] })],
);

/** A chat room per MOC and per PCR (messages arrive with the chat feature). */
export const chatRooms = pgTable("chat_rooms", {
  id: uuid("id").primaryKey().defaultRandom(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

export type DeviationItem = {
  requested: boolean;
  details: string;
  resolved: boolean;
  approved: "yes" | "no" | null;
  comment: string | null;
  resolvedBy: string | null;
  resolvedAt: string | null;
};
export type ExtensionItem = {
  requested: boolean;
  new_date: string;
  /**
   * The target date when the extension was requested, so the days an approved extension added
   * stay known after the target date moves (absent on extensions requested before it was kept).
   */
  previous_date?: string | null;
  reason: string;
  resolved: boolean;
  approved: "yes" | "no" | null;
  comment: string | null;
  resolvedBy: string | null;
  resolvedAt: string | null;
};
export type ExtentionsAndDeviations = {
  _id: string;
  deviation: DeviationItem | null;
  extension: ExtensionItem | null;
  requestedAt: string;
  requestedBy: string;
  /**
   * The implementer's report that the change is done, after the decisions (issue 38 "the deviation
   * path tells the truth"): Part E keeps the answers given with the request; this says when it was
   * finished and how. `via: "implementation"` when a later Part E (after a return) reported it.
   */
  completion?: CompletionReport | null;
};
export type CompletionReport = {
  date: string;
  note: string;
  by: string;
  byName: string;
  at: string;
  via?: "report" | "implementation";
};
/**
 * A temporary change (docs/decisions/023-temporary-changes-and-delegation.md): the date it must end
 * and what has been recorded about its ending. `state` is what was last recorded; a change "in
 * effect" past `until` counts as expired (`temporaryStateOn`), and the daily run records it so.
 */
export type TemporaryState =
  "planned" | "in-effect" | "expired" | "restoration-reported" | "extension-requested" | "restored" | "made-permanent";
export type TemporaryChange = {
  until: string;
  state: TemporaryState;
  /** The UTC day the daily run first found it past `until` with nothing recorded. */
  expired_since: string | null;
  restoration: {
    details: string;
    reportedBy: string;
    reportedAt: string;
    confirmed: boolean | null;
    comment: string | null;
    confirmedBy: string | null;
    confirmedAt: string | null;
  } | null;
  extension: {
    new_date: string;
    previous_date: string;
    reason: string;
    requestedBy: string;
    requestedAt: string;
    approved: "yes" | "no" | null;
    comment: string | null;
    resolvedBy: string | null;
    resolvedAt: string | null;
  } | null;
  /** The MOC that makes it permanent (that MOC's `previous_moc` names this one). */
  permanent_moc: string | null;
};
export type Decline = { stage: string; reason: string; by: string; at: string };
/**
 * One impact-assessment item: its category and hazards, and (optional, docs/decisions/037) the
 * likelihood and severity (1-5) before controls, the controls, and the residual pair after them.
 */
export type ImpactItem = {
  category: string;
  hazards: string[];
  likelihood?: number;
  severity?: number;
  controls?: string;
  residualLikelihood?: number;
  residualSeverity?: number;
};
/**
 * A plan item cancelled instead of done (by the implementer or the assigned HSEQ user, with a
 * reason; docs/decisions/033-closure-gates.md): it no longer holds up closing the MOC.
 */
/** The implementer's declaration that a change has no significant hazard (it ranks the MOC Low). */
export type NoSignificantHazard = { reason: string; by: string; byName: string; at: string };

export type PlanItemCancellation = { reason: string; by: string; byName: string; at: string };

/**
 * How a plan item was marked done (docs/decisions/038-actions-as-tasks.md): who, when, the note
 * and the evidence file (an attachment of the MOC), kept while the item stays done.
 */
export type PlanItemCompletion = {
  by: string;
  byName: string;
  at: string;
  note: string | null;
  evidence: { _id: string; name: string; sha256: string; size: number } | null;
};

export type ActionPlan = {
  items: {
    _id: string;
    description: string;
    owner: string | null;
    due: string | null;
    done: boolean;
    cancelled?: PlanItemCancellation | null;
    completion?: PlanItemCompletion | null;
    /** A training: who must attend and the attendance recorded (db/schema/training.ts). Absent otherwise. */
    training?: PlanItemTraining | null;
  }[];
};
export type ManualPlan = {
  items: {
    _id: string;
    document: string;
    change: string;
    owner: string | null;
    due: string | null;
    done: boolean;
    cancelled?: PlanItemCancellation | null;
    completion?: PlanItemCompletion | null;
  }[];
};

export const mocs = pgTable(
  "mocs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    serialNum: text("serial_num").notNull(),
    serialYear: integer("serial_year").notNull(),
    serialCount: integer("serial_count").notNull(),
    status: text("status").$type<MocStatus>().notNull(),
    completed: boolean("completed").notNull().default(false),
    isDeleted: boolean("is_deleted").notNull().default(false),
    cloned: boolean("cloned").notNull().default(false),
    previousMocId: uuid("previous_moc_id").references((): AnyPgColumn => mocs.id),
    originatorId: uuid("originator_id")
      .notNull()
      .references(() => users.id),
    implementerId: uuid("implementer_id").references(() => users.id),
    approverId: uuid("approver_id").references(() => users.id),
    verifierId: uuid("verifier_id").references(() => users.id),
    hseqId: uuid("hseq_id").references(() => users.id),
    /** The implementer form's `target-date`, kept here for the reminder query. */
    targetDate: date("target_date", { mode: "string" }),
    decline: jsonb("decline").$type<Decline>(),
    deviations: jsonb("deviations").$type<ExtentionsAndDeviations>(),
    /** Null for a permanent change. */
    temporary: jsonb("temporary").$type<TemporaryChange>(),
    impactAssessment: jsonb("impact_assessment").$type<ImpactItem[]>().notNull().default([]),
    riskAssessment: text("risk_assessment"),
    /**
     * The implementer's "no significant hazard" declaration (issue 38, docs/decisions/037): a MOC
     * without impact items ranked Low on their word, with their reason. Null: not declared.
     */
    noSignificantHazard: jsonb("no_significant_hazard").$type<NoSignificantHazard>(),
    /**
     * The MOC's risk: the highest residual level of its impact items (null: not ranked), set when
     * the impact assessment is saved (docs/decisions/037-risk-ranking-and-approvals.md).
     */
    riskLevel: text("risk_level").$type<"low" | "medium" | "high" | "extreme">(),
    /**
     * The highest level HSEQ reviewed the MOC at (null: not reviewed yet): a later lower ranking
     * never needs fewer approvals than this (issue 40 item 3, docs/decisions/037).
     */
    reviewedRiskLevel: text("reviewed_risk_level").$type<"low" | "medium" | "high" | "extreme">(),
    action: jsonb("action").$type<ActionPlan>().notNull().default({ items: [] }),
    manualPlan: jsonb("manual_plan").$type<ManualPlan>().notNull().default({ items: [] }),
    chatId: uuid("chat_id")
      .notNull()
      .references(() => chatRooms.id),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("mocs_serial_key").on(t.serialNum),
    uniqueIndex("mocs_chat_key").on(t.chatId),
    // What a list's fingerprint reads of each MOC, from the index alone.
    index("mocs_list_idx").on(t.id, t.isDeleted, t.createdAt),
    uniqueIndex("mocs_serial_year_count_key").on(t.serialYear, t.serialCount),
    index("mocs_created_idx").on(t.createdAt),
    index("mocs_status_idx")
      .on(t.status)
      .where(sql`not ${t.isDeleted}`),
    index("mocs_target_date_idx")
      .on(t.targetDate)
      .where(sql`not ${t.isDeleted} and not ${t.completed}`),
    // The temporary changes (lists, dashboard counts, the daily run): few beside the permanent ones.
    index("mocs_temporary_idx")
      .on(sql`(${t.temporary}->>'state')`)
      .where(sql`${t.temporary} is not null and not ${t.isDeleted}`),
    // "My actions" (docs/decisions/038-actions-as-tasks.md): the open MOCs' plan items one person
    // owns, found by containment (`items @> [{"owner": id}]`) instead of reading every open MOC.
    index("mocs_action_owner_idx")
      .using("gin", sql`(${t.action}->'items') jsonb_path_ops`)
      .where(sql`not ${t.isDeleted} and not ${t.completed}`),
    index("mocs_manual_plan_owner_idx")
      .using("gin", sql`(${t.manualPlan}->'items') jsonb_path_ops`)
      .where(sql`not ${t.isDeleted} and not ${t.completed}`),
    check("mocs_risk_level_check", sql`${t.riskLevel} in ('low', 'medium', 'high', 'extreme')`),
    check("mocs_reviewed_risk_level_check", sql`${t.reviewedRiskLevel} in ('low', 'medium', 'high', 'extreme')`),
    check("mocs_status_check", sql`${t.status} in ('a', 'b', 'c', 'd', 'e', 'f', 'decline')`),
  ],
);

/**
 * The populated document of each MOC as JSON text, kept by deferred triggers (db/derived.ts) so it
 * is rebuilt at the commit of any change to the MOC, its forms, users or logs, or to a user it
 * names. Lists concatenate these instead of building every document on every read.
 */
export const mocDocuments = pgTable(
  "moc_documents",
  {
    mocId: uuid("moc_id")
      .primaryKey()
      .references(() => mocs.id, { onDelete: "cascade" }),
    /**
     * Stored whole in the row up to a page (toast_tuple_target 8160, migration 0015): written at
     * every step and read by every list, a document of a few KB is cheaper uncompressed in place
     * than compressed into the TOAST table (docs/performance.md, "The pipeline step").
     */
    doc: text("doc").notNull(),
    /** The transaction that last rebuilt it: later triggers of the same commit skip the work. */
    refreshedTx: bigint("refreshed_tx", { mode: "number" }).notNull(),
  },
  (t) => [
    // A list's fingerprint (moc-query.server.ts) reads the version without touching the documents.
    index("moc_documents_version_idx").on(t.mocId, t.refreshedTx),
  ],
);

/** Database objects derived from code (db/derived.ts), recreated when their definition's hash changes. */
export const derivedObjects = pgTable("derived_objects", {
  name: text("name").primaryKey(),
  hash: text("hash").notNull(),
  appliedAt: timestamp("applied_at", { withTimezone: true }).notNull().defaultNow(),
});

/** The six form documents; `data` holds the contract's `{ key: { value } }` fields (docs/api-contract.md). */
export const mocForms = pgTable(
  "moc_forms",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    mocId: uuid("moc_id")
      .notNull()
      .references(() => mocs.id, { onDelete: "cascade" }),
    kind: text("kind").$type<MocFormKind>().notNull(),
    data: jsonb("data").$type<Record<string, { value: unknown }>>().notNull(),
    /** Set when the step was submitted; null for a saved draft (e.g. /api/createImplementer). */
    submittedAt: timestamp("submitted_at", { withTimezone: true }),
    submittedBy: uuid("submitted_by").references(() => users.id),
    ...timestamps,
  },
  (t) => [
    uniqueIndex("moc_forms_moc_kind_key").on(t.mocId, t.kind),
    // Part A's vessel (migration 0026): a vessel's MOCs, crew access (docs/decisions/036-vessels-and-crew-access.md).
    index("moc_forms_vessel_idx")
      .on(sql`((${t.data} -> 'vessel' -> 'value') ->> '_id')`)
      .where(sql`${t.kind} = 'originator'`),
    // Whether Part B is submitted, asked of every MOC the workflow's stage and owner name (migration
    // 0041; the daily reminder's claim, docs/performance.md).
    index("moc_forms_implementer_submitted_idx")
      .on(t.mocId)
      .where(sql`${t.kind} = 'implementer' and ${t.submittedAt} is not null`),
    check(
      "moc_forms_kind_check",
      sql`${t.kind} in ('originator', 'implementer', 'hseq', 'approver', 'implementation', 'verifier')`,
    ),
  ],
);

/**
 * The submissions a form had before its current one (issue 27 item 2): when a submitted form is
 * submitted again (Part B after an HSEQ return), its previous data is kept here, so a decision form
 * can show what changed since the last time it was decided on. Written by `saveForm` only.
 */
export const mocFormRevisions = pgTable(
  "moc_form_revisions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    mocId: uuid("moc_id")
      .notNull()
      .references(() => mocs.id, { onDelete: "cascade" }),
    kind: text("kind").$type<MocFormKind>().notNull(),
    data: jsonb("data").$type<Record<string, { value: unknown }>>().notNull(),
    submittedAt: timestamp("submitted_at", { withTimezone: true }).notNull(),
    submittedBy: uuid("submitted_by").references(() => users.id),
    replacedAt: timestamp("replaced_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("moc_form_revisions_moc_idx").on(t.mocId, t.kind, t.replacedAt)],
);

/** `all_users`: everyone involved in a MOC. */
export const mocUsers = pgTable(
  "moc_users",
  {
    mocId: uuid("moc_id")
      .notNull()
      .references(() => mocs.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    addedAt: timestamp("added_at", { withTimezone: true }).notNull().defaultNow(),
  },
  // (user_id, moc_id): a user's MOCs from the index alone (the lists' scope).
  (t) => [primaryKey({ columns: [t.mocId, t.userId] }), index("moc_users_user_idx").on(t.userId, t.mocId)],
);

/**
 * The MOC audit trail: every change of a MOC, `{ userId, action, from, to, comment, at }`.
 * Append-only and hash-chained per MOC like `audit_entries` (db/schema/audit.ts; `seq`,
 * `prev_hash`, `hash` set by a trigger); no foreign key to the MOC, so the history outlives it.
 */
export const mocLogs = pgTable(
  "moc_logs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    mocId: uuid("moc_id").notNull(),
    userId: uuid("user_id").references(() => users.id),
    /** The person `user_id` acted for, by delegation ("A on behalf of B"). */
    onBehalfOf: uuid("on_behalf_of").references(() => users.id),
    action: text("action").notNull(),
    fromStatus: text("from_status"),
    toStatus: text("to_status"),
    comment: text("comment"),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    /** Set by the chain trigger (the placeholder only satisfies the insert type). */
    seq: integer("seq")
      .notNull()
      .$defaultFn(() => 0),
    prevHash: text("prev_hash"),
    hash: text("hash")
      .notNull()
      .$defaultFn(() => ""),
    /** The AUDIT_KEY that keyed `hash` (HMAC-SHA256); null for entries hashed by the database (SHA-256). */
    keyId: text("key_id"),
  },
  (t) => [
    index("moc_logs_moc_idx").on(t.mocId, t.at),
    uniqueIndex("moc_logs_moc_seq_key").on(t.mocId, t.seq),
    // The insight figures (app/models/insights/insights.server.ts) read the entries that move a MOC (to
    // another step, a decline, or its closing verification: MOVES there) by time, and by MOC for
    // the stay that each one ends. Partial, as most entries move nothing (plan edits, attachments,
    // assignments); every column the figures read is in the key, so the heap is never visited.
    index("moc_logs_moves_at_idx")
      .on(t.at, t.mocId, t.fromStatus, t.toStatus, t.action)
      .where(sql`${t.fromStatus} is distinct from ${t.toStatus} or ${t.action} = 'Verified and closed'`),
    index("moc_logs_moves_moc_idx")
      .on(t.mocId, t.at, t.seq, t.fromStatus, t.toStatus)
      .where(sql`${t.fromStatus} is distinct from ${t.toStatus} or ${t.action} = 'Verified and closed'`),
    // The entries that end a MOC (its decline, or the verification that completed it: ENDS in the
    // insight figures), a few thousand of the trail's rows (migration 0040).
    index("moc_logs_ends_at_idx")
      .on(t.at, t.mocId, t.toStatus, t.action)
      .where(
        sql`(${t.fromStatus} is distinct from ${t.toStatus} or ${t.action} = 'Verified and closed') and (${t.action} = 'Verified and closed' or (${t.toStatus} = 'decline' and ${t.fromStatus} is distinct from 'decline'))`,
      ),
  ],
);
