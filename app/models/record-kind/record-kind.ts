/**
 * A kind of record, declared once (issue 39, docs/decisions/060-record-kinds.md): what the app's
 * cross-cutting parts need to know of MOCs, PCRs, the archive's paper records, the year-end
 * reviews, and any kind added later. Each kind declares its entry in its own folder with
 * `defineRecordKind` (app/models/kinds/moc.server.ts, app/models/kinds/pcr.server.ts, ...); the list
 * of the app's kinds is app/models/kinds/record-kinds.server.ts, which the entry points import
 * (`registerRecordKinds`). The modules that work across kinds (the audit verification, search,
 * the waiting work on the dashboard, the daily reminders, notices, links, references, chat,
 * attachments and circulations) read the registered kinds here instead of naming them, so this
 * folder imports no kind and no cross-cutting module: only the types its fields are made of.
 *
 * Entries point at the kind's own functions and SQL rather than wrap them: the registry is a map,
 * not a layer.
 */
import { sql, type SQL } from "drizzle-orm";
import type { AttachmentKind } from "#db/schema";
import type { SearchEntryDefinition } from "#db/search-document";
import type { Executor } from "~/utils/db.server";
import type { Actor } from "../authz/authz.server";

/** A function the registry points at, whose module keeps its own signature (print, CSV, insights). */
type Ref = (...args: never[]) => unknown;

/**
 * A function of a kind's own record type, checked as a method (its parameters bivariant), so a
 * kind's entry with its own access type is a `RecordKind` as the registry holds it.
 */
type Method<Args extends unknown[], Result> = { method(...args: Args): Result }["method"];

/**
 * A named state of the kind's records: its predicate on a loaded record and its SQL twin over the
 * kind's alias (`table.alias`), held equal by tests/integration/record-kinds.test.ts.
 */
export type NamedState<Loaded = never> = {
  /** What the state means, in a sentence ("not completed and not declined"). */
  meaning: string;
  is: Method<[record: Loaded], boolean>;
  sql: () => SQL;
};

/** A record of the kind as the cross-cutting modules read it: who may do what with it is authz's. */
export type LoadedRecord<Access = unknown> = {
  kind: string;
  id: string;
  /** "MOC 14-2026", "PCR 3-2026", "Legacy MOC 14/2009". */
  label: string;
  title: string;
  /** Its page. */
  path: string;
  /** Its status, for the entries its trail writes beside the steps (null for a kind without one). */
  status: string | null;
  /** What authz.server.ts's predicates read of it (MocAccess, PcrAccess, ...). */
  access: Access;
};

/** An entry in a record's trail that moves nothing: a link, a reference, a file, a circulation. */
export type TrailNote = {
  actorId: string | null;
  action: string;
  /** The value before and after (a reference's number, ...), for kinds whose trail keeps values. */
  from?: string | null;
  to?: string | null;
  comment?: string | null;
};

/** The record a note is written on: its id, and its status when the caller loaded it. */
export type NotedRecord = { id: string; status?: string | null };

/** A file attached to a record or removed from it, as the record itself may keep it. */
export type FileChange = { fileKind: AttachmentKind; url: string; removed: boolean };

/**
 * The files a kind's records keep (app/models/records/attachments.server.ts): the `attachments`
 * column that owns them, the kinds of file they take, and the kind's rules for them.
 */
export type AttachmentsDefinition = {
  column: string;
  /** The kinds of file its records take (a risk assessment is a MOC's only). */
  fileKinds: readonly AttachmentKind[];
  /**
   * In the caller's transaction: locks the record and refuses (NotFound, Forbidden, Conflict) a file
   * of this kind the actor may not attach or remove now; the record, for the note in its trail.
   */
  mayChange: (tx: Executor, actor: Actor, id: string, fileKind: AttachmentKind) => Promise<NotedRecord>;
  /** Whether the actor may read the record, and so its files (false for an unknown one). */
  mayRead: (db: Executor, actor: Actor, id: string) => Promise<boolean>;
  /** What the record itself keeps of a file attached or removed (a MOC's risk assessment), or null. */
  changed: ((tx: Executor, id: string, change: FileChange) => Promise<void>) | null;
};

/**
 * A record's chat room as app/models/records/chat.server.ts reads it (each kind's is its variant of
 * `ChatRoom` there): the room, its record, the serial its notices name it by, and what authz's
 * predicates read of the record.
 */
export type RecordRoom = { kind: string; chatId: string; recordId: string; serial: string; access: unknown };

/** A problem the audit verification reports of one record (audit-verify.server.ts `BrokenLink`). */
export type StateProblem = { recordId: string; seq: number; entryId: string; reason: string };

/**
 * Where a kind's trail lives and how the verification reads it. `audit_entries`: the shared table,
 * its `record_kind` the chain's name; otherwise a table of its own with moc_logs' columns (seq,
 * prev_hash, hash, key_id, user_id, on_behalf_of, action, from_status, to_status, comment, at)
 * and `recordColumn` naming the record.
 */
export type TrailTable = { table: "audit_entries" } | { table: string; recordColumn: string };

export type AuditDefinition = {
  /** The chain's name (`audit_heads.chain`, the hashed content's kind). */
  chain: string;
  log: TrailTable;
  /**
   * Writes one note into a record's trail, in the caller's transaction (the chain's head locked).
   * The record's status when the caller has it loaded (a kind whose notes carry it reads it else).
   */
  note: ((tx: Executor, record: NotedRecord, note: TrailNote) => Promise<void>) | null;
  /** The records whose state their trail does not account for (the verification's last check). */
  stateProblems: ((db: Executor) => Promise<StateProblem[]>) | null;
};

/** A piece of waiting work: one line of "Waiting on me" (the dashboard) and of GET /api/user's work. */
export type WaitingItem = {
  kind: string;
  recordId: string;
  /** "MOC 14-2026 — Ballast pump: HSEQ review". */
  text: string;
  /** Where the reader acts. */
  path: string;
  /** When it started waiting on them (ISO), for "waiting 3 days" and the order. */
  waitingSince: string | null;
  /** A day it is due (ISO date), shown as "Due ..." and "overdue" after it. */
  dueOn: string | null;
  /** A flag beside it ("Returned by HSEQ"), or null. */
  badge: { text: string; tone: "warning" | "danger" } | null;
  /** A line under it (the change's description, cut). */
  detail: string | null;
};

/** A kind's waiting work for one reader: the first `limit` (all without one) and how many in all. */
export type WaitingWork = { items: WaitingItem[]; total: number };

/** What one kind's part of the daily run did (the run's message joins the kinds' `summary`). */
export type ReminderOutcome = { summary: string | null; emails: number };

/** How search finds a kind's records (app/models/records/search.server.ts, docs/decisions/039-search.md). */
export type SearchDefinition = {
  /** `search_entries.kind`, and what its entries are built from (db/search-document.ts). */
  entry: SearchEntryDefinition;
  /** The results' group it is listed in (`mocs`, `pcrs`, `archive`, or its own). */
  group: string;
  /** A query that is only a serial with this prefix ("MOC 14-2026") looks for this kind only (with its group's). */
  serialPrefix: string | null;
  /** Over the kind's alias: its status as listed, whether it is completed, the date "newest" orders by. */
  status: SQL;
  completed: SQL;
  newest: SQL;
};

export type RecordKind<Access = unknown> = {
  /** Its name in trails, search, notices and `"<kind>:<id>"`: "moc", "pcr", "archive-moc". */
  name: string;
  /** How pages and messages name one record of the kind. */
  label: string;
  /** A record's page (the audit check and notices link it), or null for a kind without pages. */
  page: ((id: string) => string) | null;
  /** Its table and the alias its SQL is written over; null for a kind whose trail is about something else. */
  table: { name: string; alias: string } | null;
  /** Its reading rule's SQL twin over the alias (the lists' authorization); null: everyone reads it. */
  readSql: ((actor: Actor) => SQL) | null;
  /** One record as the cross-cutting modules read it (null when there is none, or it is deleted). */
  load:
    | ((db: Executor, id: string, options?: { lock?: boolean; reader?: Actor }) => Promise<LoadedRecord<Access> | null>)
    | null;
  /** Its named states ("open", "approved", ...), predicate and SQL twin each. */
  states: Record<string, NamedState<LoadedRecord<Access>>>;
  audit: AuditDefinition;
  /** The kind its signature manifestations carry (`signature_manifestations.record_kind`), or none. */
  signatures: string | null;
  /** Its files (attachments.server.ts), or none. */
  attachments: AttachmentsDefinition | null;
  /** Its chat room: the record's `chat_id` column and the room of one record, null when there is none. */
  chat: { column: string; room: (db: Executor, id: string) => Promise<RecordRoom | null> } | null;
  /**
   * Notices about it (`email_messages.record_type`): the record's label and title (null when it has
   * none) in SQL, for the notice list and the circulations' lists and notices.
   */
  notices: { labelSql: (id: SQL) => SQL; titleSql: (id: SQL) => SQL } | null;
  /** What search finds it by, or null. */
  search: SearchDefinition | null;
  /** The work it puts on a reader's "Waiting on me". */
  waiting: ((actor: Actor, options: { limit?: number; today: string }) => Promise<WaitingWork>) | null;
  /** Its part of the daily run, in the run's transaction (claims per day: a second run sends nothing). */
  reminders: ((tx: Executor, day: string) => Promise<ReminderOutcome>) | null;
  /** Its print view and the PDF drawn from it (app/models/records-out). */
  print: { view: Ref; pdf: Ref } | null;
  /** Its CSV export. */
  export: Ref | null;
  /** The insight figures that count it. */
  insights: Ref | null;
  /** The API paths that serve it (app/web/openapi.server.ts describes each), by prefix. */
  api: string[];
  /** Its workflow on the engine (app/models/workflow/engine.server.ts), when its steps are declared there. */
  workflow: { kind: string; order: readonly string[] } | null;
  /**
   * Named as "<kind>:<id>" (links, references: app/models/records/record-refs.server.ts): a batch of
   * its records described for a reader in one statement; null for a kind that is not linked.
   */
  linkable: { describe: RecordDescriber } | null;
};

/**
 * One record of a batch, as its kind describes it for a reader. `worksOn`: the reader works on the
 * record, which `canLinkRecords` (authz.server.ts) reads.
 */
export type DescribedRecord = {
  id: string;
  label: string;
  title: string;
  path: string;
  readable: boolean;
  worksOn: boolean;
};

/** Describes the records of one kind with these ids (those that exist), in one statement. */
export type RecordDescriber = (db: Executor, actor: Actor, ids: readonly string[]) => Promise<DescribedRecord[]>;

/** A list of ids as one uuid[] parameter, whatever its length. */
const uuidArray = (ids: readonly string[]) =>
  sql`array(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)`;

/** A describer from its one statement over the batch's ids (`ids`: a uuid[] expression). */
export const describeWith =
  (query: (actor: Actor, ids: SQL) => SQL): RecordDescriber =>
  async (db, actor, ids) =>
    ids.length === 0 ? [] : [...(await db.execute<DescribedRecord>(query(actor, uuidArray(ids))))];

/** A predicate's answer (it depends on the reader only) as an SQL constant. */
export const constantSql = (value: boolean) => (value ? sql`true` : sql`false`);

/** What a kind declares; every field it leaves out is "none". */
export type RecordKindInput<Access> = Pick<RecordKind<Access>, "name" | "label" | "audit"> &
  Partial<Omit<RecordKind<Access>, "name" | "label" | "audit">>;

/** A kind's entry, with what it leaves out filled as "none". */
export function defineRecordKind<Access = unknown>(input: RecordKindInput<Access>): RecordKind<Access> {
  return {
    page: null,
    table: null,
    readSql: null,
    load: null,
    states: {},
    signatures: null,
    attachments: null,
    chat: null,
    notices: null,
    search: null,
    waiting: null,
    reminders: null,
    print: null,
    export: null,
    insights: null,
    api: [],
    workflow: null,
    linkable: null,
    ...input,
  };
}

// ---------------------------------------------------------------------------------------------
// The registered kinds

// Each copy of this module keeps its own (the server entry's and the Remix build's, each
// registering the app's kinds through its own copy of app/models/kinds/record-kinds.server.ts).
const registry = new Map<string, RecordKind>();

/**
 * Registers kinds (app/models/kinds/record-kinds.server.ts for the app's; a test its own). The same entry
 * again is a no-op; another entry under a registered name is a mistake and throws.
 */
export function registerRecordKinds(kinds: readonly RecordKind[]): void {
  for (const kind of kinds) {
    const known = registry.get(kind.name);
    if (known && known !== kind) throw new Error(`record kind ${kind.name} is registered already`);
    registry.set(kind.name, kind);
  }
}

/** Removes a kind a test registered. */
export function unregisterRecordKind(name: string): void {
  registry.delete(name);
}

/** Every registered kind, in the order registered. */
export function recordKinds(): RecordKind[] {
  if (registry.size === 0) {
    throw new Error(
      "No record kind is registered: the entry point must import app/models/kinds/record-kinds.server.ts first",
    );
  }
  return [...registry.values()];
}

/** The registered kind of this name, or undefined. */
export const findRecordKind = (name: string): RecordKind | undefined => {
  recordKinds();
  return registry.get(name);
};

/** The registered kind of this name; a name no kind has is a mistake of the code, not of input. */
export function recordKind(name: string): RecordKind {
  const kind = findRecordKind(name);
  if (!kind) throw new Error(`unknown record kind ${name}`);
  return kind;
}

/** The kinds that declare `field`. */
export const kindsWith = <F extends keyof RecordKind>(field: F) =>
  recordKinds().filter((k) => k[field] !== null) as (RecordKind & { [K in F]: NonNullable<RecordKind[K]> })[];

/**
 * One record of the kind `name`, loaded for the rules of a module that serves several kinds: its
 * `access` is what that module's authz predicates read (authz.server.ts `CirculatedRecord`,
 * `ReferencedRecord`), which each kind's `load` gives for its own (`{ kind: "moc", moc }`). Null for
 * an unknown (or deleted) record.
 */
export async function loadRecordOfKind<Access>(
  db: Executor,
  name: string,
  id: string,
  options?: { lock?: boolean; reader?: Actor },
): Promise<LoadedRecord<Access> | null> {
  const load = recordKind(name).load;
  if (!load) throw new Error(`record kind ${name} loads no record`);
  return (await load(db, id, options)) as LoadedRecord<Access> | null;
}

/**
 * A note in a record's trail, as its kind writes one (its entry's `audit.note`): a link, a
 * reference, a file, a circulation. In the caller's transaction.
 */
export async function noteInTrail(tx: Executor, kind: string, record: NotedRecord, note: TrailNote): Promise<void> {
  const write = recordKind(kind).audit.note;
  if (!write) throw new Error(`record kind ${kind} keeps no notes in its trail`);
  await write(tx, record, note);
}
