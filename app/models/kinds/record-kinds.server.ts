/**
 * The record-kind registry (docs/decisions/046-workflow-engine.md): for each kind of record, one
 * entry saying where the cross-cutting parts of the app know it — its audit chain, its signature
 * manifestations, its attachments, its chat room, its notices, the work it puts on people's lists,
 * its reminders, its print view and PDF, its CSV export, its insight figures, its API paths and its
 * workflow. A new kind registers here once; tests/integration/record-kinds.test.ts then fails for
 * every cross-cutting module (and database check) that does not know it yet, and
 * docs/architecture.md ("How to add a record kind") is the checklist of these fields.
 *
 * Entries point at the existing functions rather than wrap them: the registry is a map, not a
 * layer, so the modules it names keep their own signatures.
 */
import type { AuditKind } from "./audit/audit-chain.server";
import type { SignatureKind } from "./audit/audit.server";
import { pendingActions } from "./moc/actions.server";
import { roomOfMoc, roomOfPcr } from "./records/chat.server";
import { archiveCsv, mocListCsv, pcrListCsv, reviewsCsv, usersCsv } from "./records-out/csv-export.server";
import { computeInsights } from "./insights/insights.server";
import { MOC_WORKFLOW } from "./moc/moc-steps.server";
import { recordPdf } from "./records-out/record-pdf.server";
import { mocPrintRecord, pcrPrintRecord } from "./records-out/record-print.server";
import {
  describeArchiveMocs,
  describeArchivePcrs,
  describeMocs,
  describePcrs,
  describeReviews,
  type RecordDescriber,
} from "./records/record-ref-kinds.server";
import { sendDueReminders } from "./moc/reminder.server";

/** A function the registry points at; each field says which module's it is. */
type Ref = (...args: never[]) => unknown;

export type RecordKind = {
  /** How pages and messages name one record of the kind. */
  label: string;
  /** The table its records live in; null for a kind whose trail is about something else (settings). */
  table: string | null;
  /** Its audit trail: its kind (AUDIT_KINDS, audit-chain.server.ts) and the table that chains it. */
  audit: { kind: AuditKind; table: "moc_logs" | "audit_entries" };
  /** The kind its signature manifestations carry (`signature_manifestations.record_kind`), or none. */
  signatures: SignatureKind | null;
  /** The `attachments` column that owns its files (attachments.server.ts), or none. */
  attachments: { column: "moc_id" | "pcr_id" } | null;
  /** Its chat room: the record's `chat_id` column and the room of a loaded record (chat.server.ts). */
  chat: { column: "chat_id"; room: Ref } | null;
  /** Notices about it: the link an in-app notification falls back to (notifications.server.ts). */
  notices: { link: (id: string) => string } | null;
  /** The work it puts on people's lists ("My actions", actions.server.ts). */
  pendingWork: Ref | null;
  /** The daily reminders about it (reminder.server.ts). */
  reminders: Ref | null;
  /** Its print view (record-print.server.ts) and the PDF drawn from it (record-pdf.server.ts). */
  print: { view: Ref; pdf: Ref } | null;
  /** Its CSV export (csv-export.server.ts). */
  export: Ref | null;
  /** The insight figures that count it (insights.server.ts). */
  insights: Ref | null;
  /** Its search entries' kind (`search_entries.kind`), or none. */
  search: "moc" | "pcr" | "legacy_moc" | "legacy_pcr" | null;
  /** The API paths that serve it (app/web/openapi.server.ts describes each), by prefix. */
  api: string[];
  /** Its workflow on the engine (workflow/engine.server.ts), when its steps are declared there. */
  workflow: { kind: string; order: readonly string[] } | null;
  /**
   * Named as "<kind>:<id>" (links, references: record-refs.server.ts): how a batch of its records is
   * described (label, title, page) and read by the kind's own reading rule, one statement
   * (record-ref-kinds.server.ts); null for a kind that is not linked.
   */
  linkable: { describe: RecordDescriber } | null;
};

const auditOnly = (label: string, table: string | null, kind: AuditKind, extra: Partial<RecordKind> = {}) =>
  ({
    label,
    table,
    audit: { kind, table: "audit_entries" },
    signatures: null,
    attachments: null,
    chat: null,
    notices: null,
    pendingWork: null,
    reminders: null,
    print: null,
    export: null,
    insights: null,
    search: null,
    api: [],
    workflow: null,
    linkable: null,
    ...extra,
  }) satisfies RecordKind;

/** Every kind of record, by the name its audit trail uses. */
export const RECORD_KINDS = {
  moc: {
    label: "MOC",
    table: "mocs",
    audit: { kind: "moc", table: "moc_logs" },
    signatures: "moc",
    attachments: { column: "moc_id" },
    chat: { column: "chat_id", room: roomOfMoc },
    notices: { link: (id) => `/mocs/${id}` },
    pendingWork: pendingActions,
    reminders: sendDueReminders,
    print: { view: mocPrintRecord, pdf: recordPdf },
    export: mocListCsv,
    insights: computeInsights,
    search: "moc",
    api: ["/api/getAllMoc", "/api/singlemoc", "/api/newmoc"],
    workflow: MOC_WORKFLOW,
    linkable: { describe: describeMocs },
  },
  pcr: {
    label: "PCR",
    table: "pcrs",
    audit: { kind: "pcr", table: "audit_entries" },
    signatures: "pcr",
    attachments: { column: "pcr_id" },
    chat: { column: "chat_id", room: roomOfPcr },
    notices: { link: (id) => `/pcrs/${id}` },
    pendingWork: null,
    reminders: null,
    print: { view: pcrPrintRecord, pdf: recordPdf },
    export: pcrListCsv,
    insights: null,
    search: "pcr",
    api: ["/api/pcr", "/api/getAllPcr", "/api/singlePcr"],
    workflow: null,
    linkable: { describe: describePcrs },
  },
  user: auditOnly("user", "users", "user", { export: usersCsv, api: ["/api/users"] }),
  "archive-moc": auditOnly("archived MOC", "legacy_mocs", "archive-moc", {
    export: archiveCsv,
    search: "legacy_moc",
    linkable: { describe: describeArchiveMocs },
  }),
  "archive-pcr": auditOnly("archived PCR", "legacy_pcrs", "archive-pcr", {
    export: archiveCsv,
    search: "legacy_pcr",
    linkable: { describe: describeArchivePcrs },
  }),
  review: auditOnly("year-end review", "year_end_reviews", "review", {
    export: reviewsCsv,
    api: ["/api/year-end-review"],
    linkable: { describe: describeReviews },
  }),
  delegation: auditOnly("delegation", "delegations", "delegation"),
  settings: auditOnly("settings", null, "settings"),
  vessel: auditOnly("vessel", "vessels", "vessel", { api: ["/api/vessels"] }),
} satisfies Record<AuditKind, RecordKind>;

export type RecordKindName = keyof typeof RECORD_KINDS;

/** The registered kinds, each with its name. */
export const recordKinds = (): (RecordKind & { name: RecordKindName })[] =>
  (Object.keys(RECORD_KINDS) as RecordKindName[]).map((name) => ({ name, ...RECORD_KINDS[name] }));
