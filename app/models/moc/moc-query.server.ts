/**
 * Reading MOCs as the contract's populated documents (docs/api-contract.md). The JSON is built by PostgreSQL in one query,
 * whatever the number of MOCs: references (forms, users, all_users, logs with their users) are
 * correlated subqueries on indexed keys, never a query per row from here.
 *
 * The hot reads run as prepared statements (drizzle's `.prepare()`): PostgreSQL then plans each
 * query text once per connection. Planning a document's score of subqueries costs about as much
 * as running them, and `db.execute` plans on every call (docs/performance.md).
 */
import { desc, eq, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { mocDocuments, mocs, type ExtentionsAndDeviations, type TemporaryChange } from "#db/schema";
import { MOC_JSON } from "#db/moc-document";
import { getDb, preparedOnce, preparedOnceBy, statementOnce, statementOnceBy, type Executor } from "~/utils/db.server";
import { lockedHeadSql, parseHead } from "../audit/audit-chain.server";
import { spooledStream } from "../records-out/spool.server";
import {
  currentAssignmentSql,
  mocScopeSql,
  type MocAccess,
  type MocProgress,
  type MocScope,
} from "../authz/authz.server";
import type { MocDocument } from "./moc-document";
import { ACTED_SQL } from "./moc-four-eyes.server";
import { APPROVAL_SQL, type ApprovalState } from "../authz/risk-approval.server";
import { MOC_STAGE_SQL } from "./moc-steps.server";
import { TODAY_SQL } from "./temporary.server";

/** `mocs m`: every fragment below refers to the MOC row as `m`. */
const m = alias(mocs, "m");
/** `moc_documents d`: the stored document of `m`. */
const d = alias(mocDocuments, "d");

/** One populated MOC (deleted ones included: callers decide what a deleted MOC means), with its stage. */
export async function loadMocDocument(id: string, db: Executor = getDb()): Promise<MocDocument | null> {
  const rows = await db
    .select({ doc: sql<MocDocument>`${sql.raw(MOC_JSON)}`, stage: sql<string>`${MOC_STAGE_SQL}` })
    .from(m)
    .where(eq(m.id, id))
    .prepare("moc_document")
    .execute();
  return rows[0] ? { ...rows[0].doc, stage: rows[0].stage } : null;
}

/**
 * A MOC's document as the API answers it (GET /api/singlemoc, a step's answer, the lists): the
 * stored (or built) JSON text of `m` with its `stage` (`MOC_STAGE_SQL`, the one name of where it
 * stands, issue 38) added as its last key. Read live, not stored: it depends on today's date (a
 * temporary change past its end), so a list's fingerprint carries the date too (LIST_TAG). Added in
 * Node, not in SQL: concatenating 10,000 documents in PostgreSQL cost 0.4 s more than sending them
 * (docs/decisions/054-one-definition-per-rule.md); a slice of a JavaScript string is not a copy.
 */
export const withStage = (doc: string, stage: string): string =>
  `${doc.slice(0, -1)},"stage":${JSON.stringify(stage)}}`;

/** The documents of rows in order, each with its stage, as a JSON array text. */
export const documentsWithStage = (rows: readonly { doc: string; stage: string }[]): string =>
  `[${rows.map((r) => withStage(r.doc, r.stage)).join(",")}]`;

/**
 * A list's fingerprint: today's date (each document's `stage` may change with it) and the MOCs in
 * order, each with the transaction that last built its stored document. Equal fingerprints mean
 * byte-identical lists (a document only changes by a rebuild, and each rebuild carries a new
 * transaction id), so it is both the ETag and the cache key; it ends with the number of MOCs in
 * the list, which tells a large list before it is read. Null when a MOC has no stored document.
 */
const LIST_TAG = sql<string | null>`case when bool_and(${d.mocId} is not null)
  then md5(${TODAY_SQL}::text || coalesce(string_agg(${m.id}::text || ':' || ${d.refreshedTx}::text, ',' order by ${m.createdAt} desc, ${m.id}), ''))
    || '.' || count(${m.id})
  end`;

/** How many MOCs a fingerprint's list holds: its part after the dot (LIST_TAG). */
const listLength = (tag: string) => Number(tag.slice(tag.lastIndexOf(".") + 1));

/** Recently answered lists by fingerprint, bounded in bytes; shared by every user who sees the same list. */
const listCache = new (class {
  private entries = new Map<string, Buffer>();
  private bytes = 0;
  constructor(
    private readonly maxBytes: number,
    private readonly maxEntryBytes: number,
  ) {}
  get(key: string): Buffer | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit); // most recently used last
    }
    return hit;
  }
  clear() {
    this.entries.clear();
    this.bytes = 0;
  }
  set(key: string, body: Buffer) {
    if (body.length > this.maxEntryBytes || this.entries.has(key)) return;
    this.entries.set(key, body);
    this.bytes += body.length;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= old.length;
    }
  }
})(32 * 1024 * 1024, 2 * 1024 * 1024);

/** Forgets the lists kept in memory (tests measuring the cold path). */
export const forgetMocLists = () => listCache.clear();

/** A list's answer: its bytes, or for a large list a stream of them (mocListBody). */
export type MocListBody = { etag: string | null; body: Uint8Array | ReadableStream<Uint8Array> };

/**
 * A list's fingerprint as a scalar subquery, for the actor whose id is `actorId` (see mocScopeSql):
 * the session lookup carries it, so a list answered before costs one round trip in all.
 */
export const mocListTag = (scope: MocScope, actorId: unknown) =>
  sql<string | null>`(select ${LIST_TAG} from mocs m left join moc_documents d on d.moc_id = m.id
    where ${mocScopeSql(scope, actorId)})`;

/**
 * The documents of a scope in the list's order, each with its stage and the fingerprint of the
 * whole, in one statement (one snapshot). An empty list is one row with no document.
 */
function listBodySelect(db: Executor, scope: MocScope, actorId: unknown) {
  const list = db
    .select({
      createdAt: m.createdAt,
      id: m.id,
      doc: sql<string>`coalesce(${d.doc}, build_moc_document(${m.id}))`.as("doc"),
      stage: sql<string>`${MOC_STAGE_SQL}`.as("stage"),
    })
    .from(m)
    .leftJoin(d, eq(d.mocId, m.id))
    .where(mocScopeSql(scope, actorId))
    .as("r");
  const tag = db
    .select({ tag: LIST_TAG.as("tag") })
    .from(m)
    .leftJoin(d, eq(d.mocId, m.id))
    .where(mocScopeSql(scope, actorId))
    .as("t");
  return db
    .select({ tag: tag.tag, doc: list.doc, stage: list.stage })
    .from(tag)
    .leftJoinLateral(list, sql`true`)
    .orderBy(desc(list.createdAt), list.id);
}

/** listBodySelect prepared once per scope: planned once per connection. */
const listBodyQuery = preparedOnceBy((db, scope: MocScope) =>
  listBodySelect(db, scope, sql.placeholder("actorId")).prepare(`moc_list_body_${scope}`),
);

/**
 * A list of more MOCs than this (about 7 KB each: 2 MB) is streamed from a cursor instead of
 * built in memory, and not kept (the cache keeps lists up to 2 MB). An admin's 10,000 MOCs are
 * 71 MB: built whole they cost about four copies of that (rows, documents, the joined text, its
 * bytes; docs/performance.md, "The admin list").
 */
export const LIST_STREAM_ROWS = 300;
/**
 * A streamed list is fetched this many documents at a time and written to its spool ten at a
 * time: every string and buffer it makes stays small (about 70 KB), so V8 collects them young
 * instead of piling megabyte strings in its large-object space until a full collection.
 */
export const LIST_FETCH = 100;
const LIST_WRITE = 10;
/** A streamed list larger than this ends with an error (10,000 MOCs are about 71 MB). */
const LIST_SPOOL_MAX_BYTES = 1024 * 1024 * 1024;

type ListRow = { tag: string | null; doc: string | null; stage: string | null };

/** Rows of a list as the JSON array's items, without the brackets. */
const listItems = (rows: ListRow[]) =>
  rows
    .filter((r): r is ListRow & { doc: string; stage: string } => r.doc !== null)
    .map((r) => withStage(r.doc, r.stage))
    .join(",");

/**
 * A large list as a stream, in one read-only snapshot: the documents are read from a cursor
 * LIST_FETCH at a time and spooled (records-out/spool.server.ts), so memory holds a batch,
 * not the list, and the connection goes back to the pool when the last batch is written, however
 * slowly the client reads. Answers once the first batch is in, with that snapshot's fingerprint.
 */
function streamMocList(scope: MocScope, actorId: string): Promise<MocListBody> {
  return new Promise<MocListBody>((resolve, reject) => {
    let answered = false;
    getDb()
      .transaction(
        async (tx) => {
          // A backstop: the transaction never waits on the client, but a stuck one ends anyway.
          await tx.execute(sql`select set_config('idle_in_transaction_session_timeout', '10s', true)`);
          await tx.execute(sql`declare moc_list no scroll cursor for ${listBodySelect(tx, scope, actorId).getSQL()}`);
          const batch = async () =>
            (await tx.execute(sql.raw(`fetch forward ${LIST_FETCH} from moc_list`))) as unknown as ListRow[];
          const first = await batch();
          const spool = spooledStream(
            async ({ append, cancelled }) => {
              let separator = "";
              const write = async (rows: ListRow[]) => {
                for (let at = 0; at < rows.length; at += LIST_WRITE) {
                  await append(separator + listItems(rows.slice(at, at + LIST_WRITE)));
                  separator = ",";
                }
              };
              await append(`{"data":[`);
              await write(first);
              for (let rows = first; rows.length === LIST_FETCH;) {
                // Let the requests that queued up meanwhile go first.
                await new Promise((resolve) => setImmediate(resolve));
                if (cancelled()) return;
                rows = await batch();
                if (cancelled()) return;
                await write(rows);
              }
              await append(`],"status":200}`);
            },
            { maxBytes: LIST_SPOOL_MAX_BYTES },
          );
          answered = true;
          resolve({ etag: first[0]?.tag ?? null, body: spool.stream });
          await spool.filled;
        },
        { isolationLevel: "repeatable read", accessMode: "read only" },
      )
      .catch((error: unknown) => {
        // After the answer the stream carries a failure itself (the spool ends it with the error).
        if (!answered) reject(error);
      });
  });
}

/**
 * A list's whole response body (`{"data":[...],"status":200}`) as bytes, with its fingerprint.
 * `tag` is the fingerprint the caller read in this request (mocListTag, beside the session): a list
 * answered before with that fingerprint is served from memory, without reading a document.
 * Otherwise the documents and the fingerprint come from one statement, so they describe the same
 * snapshot; a list of more than LIST_STREAM_ROWS MOCs is streamed from a cursor (streamMocList). Several instances each keep their own copies; the fingerprint is read from the
 * database on every request, so none is ever stale.
 */
export async function mocListBody(scope: MocScope, actorId: string, tag?: string | null): Promise<MocListBody> {
  const cached = tag ? listCache.get(tag) : undefined;
  if (cached) return { etag: tag!, body: cached };
  if (tag && listLength(tag) > LIST_STREAM_ROWS) return streamMocList(scope, actorId);
  const rows = await listBodyQuery(scope).execute({ actorId });
  const fingerprint = rows[0]?.tag ?? null;
  const docs = rows.filter((r): r is typeof r & { doc: string; stage: string } => r.doc !== null);
  const body = Buffer.from(`{"data":${documentsWithStage(docs)},"status":200}`);
  if (fingerprint) listCache.set(fingerprint, body);
  return { etag: fingerprint, body };
}

/**
 * The same list built from the tables on the spot, each document with its stage: the reference the
 * stored documents are checked against.
 */
export async function buildMocListJson(where: SQL, db: Executor = getDb()): Promise<string> {
  const rows = await db
    .select({
      body: sql<string>`coalesce(json_agg((${sql.raw(MOC_JSON)})::jsonb || jsonb_build_object('stage', ${MOC_STAGE_SQL})
        order by m.created_at desc, m.id), '[]'::json)::text`,
    })
    .from(m)
    .where(where)
    .prepare("moc_list_built")
    .execute();
  return rows[0]?.body ?? "[]";
}

const ALL_USER_IDS = sql<string[]>`coalesce((select array_agg(mu.user_id::text) from moc_users mu
  where mu.moc_id = ${m.id}), '{}')`;

/** Who is assigned today to the vessel Part A names (`isCrewOf`, docs/decisions/036-vessels-and-crew-access.md). */
const CREW_IDS = sql<string[]>`coalesce((select array_agg(va.user_id::text) from moc_forms cf
  join vessel_assignments va on va.vessel_id::text = cf.data->'vessel'->'value'->>'_id'
  where cf.moc_id = m.id and cf.kind = 'originator' and ${currentAssignmentSql("va")}), '{}')`;

const ACCESS_FIELDS = {
  id: m.id,
  status: m.status,
  completed: m.completed,
  isDeleted: m.isDeleted,
  serialNum: m.serialNum,
  chatId: m.chatId,
  targetDate: m.targetDate,
  temporary: m.temporary,
  originatorId: m.originatorId,
  implementerId: m.implementerId,
  approverId: m.approverId,
  verifierId: m.verifierId,
  hseqId: m.hseqId,
  allUserIds: ALL_USER_IDS,
  acted: ACTED_SQL,
  approval: APPROVAL_SQL,
  crewIds: CREW_IDS,
};

/** A step decides on its own rules, never on crew access: the step query leaves the crew out. */
const STEP_ACCESS_FIELDS = Object.fromEntries(
  Object.entries(ACCESS_FIELDS).filter(([key]) => key !== "crewIds"),
) as Omit<typeof ACCESS_FIELDS, "crewIds">;

/** The row fields the authorization predicates need, with the MOC row locked when `lock` is set. */
export async function loadMocAccess(
  id: string,
  db: Executor,
  options: { lock?: boolean } = {},
): Promise<
  | (MocAccess & {
      id: string;
      isDeleted: boolean;
      serialNum: string;
      chatId: string;
      targetDate: string | null;
      temporary: TemporaryChange | null;
    } & MocProgress)
  | null
> {
  const rows = await mocAccessQuery(db, Boolean(options.lock)).execute({ id });
  return rows[0] ?? null;
}

/** What decides whether a step may run besides the status, as the tables hold it (see loadMocForStep). */
export type MocStepState = {
  deviations: ExtentionsAndDeviations | null;
  temporary: TemporaryChange | null;
  implementerSubmitted: boolean;
  /** The MOC's round of approvals (read alone, unlocked; a step reads it with the locked row). */
  approval?: ApprovalState | null;
};

/**
 * Whether the implementer's form is submitted: Part B opens the later steps. (`m.id` spelled out:
 * drizzle writes a lone table's columns unqualified, and moc_forms has an `id` of its own.)
 */
const IMPLEMENTER_SUBMITTED = sql<boolean>`exists (select 1 from moc_forms f where f.moc_id = m.id
  and f.kind = 'implementer' and f.submitted_at is not null)`;

/**
 * A step's first statement: the MOC row locked (FOR UPDATE), with the fields authorization needs
 * and what opens and closes steps besides the status, read once the lock is granted.
 */
export async function loadMocForStep(id: string, tx: Executor) {
  const [row] = await mocForStepQuery(tx).execute({ id });
  if (!row) return null;
  const { deviations, implementerSubmitted, logHead, signatureHead, ...access } = row;
  return {
    access,
    state: { deviations, temporary: access.temporary, implementerSubmitted } satisfies MocStepState,
    heads: { log: parseHead(logHead), signature: parseHead(signatureHead) },
  };
}

/** The state alone, unlocked (what the tests compare with the state a document shows). */
export async function loadMocStepState(id: string, db: Executor): Promise<MocStepState | null> {
  const [row] = await mocStepStateQuery(db).execute({ id });
  return row ?? null;
}

const mocStepStateQuery = statementOnce((db) =>
  db
    .select({
      deviations: m.deviations,
      temporary: m.temporary,
      implementerSubmitted: IMPLEMENTER_SUBMITTED,
      approval: APPROVAL_SQL,
    })
    .from(m)
    .where(eq(m.id, sql.placeholder("id")))
    .prepare("moc_step_state"),
);

/**
 * The MOC locked in a subquery, then the heads of its chains locked and read (audit-chain.server.ts):
 * PostgreSQL computes the outer columns after the inner lock is granted, so every writer of a
 * MOC's chain takes the MOC's row lock before the head's (no deadlock with appendLog), and the
 * heads are read as the last writer committed them.
 */
const mocForStepQuery = statementOnce((db) => {
  const locked = db
    .select({
      ...STEP_ACCESS_FIELDS,
      allUserIds: sql<string[]>`${ALL_USER_IDS}`.as("all_user_ids"),
      acted: sql<MocAccess["acted"]>`${ACTED_SQL}`.as("acted"),
      approval: sql<ApprovalState>`${APPROVAL_SQL}`.as("approval"),
      deviations: m.deviations,
      implementerSubmitted: sql<boolean>`${IMPLEMENTER_SUBMITTED}`.as("implementer_submitted"),
    })
    .from(m)
    .where(eq(m.id, sql.placeholder("id")))
    .for("update", { of: m })
    .as("locked");
  return db
    .select({
      id: locked.id,
      status: locked.status,
      completed: locked.completed,
      isDeleted: locked.isDeleted,
      serialNum: locked.serialNum,
      chatId: locked.chatId,
      targetDate: locked.targetDate,
      temporary: locked.temporary,
      originatorId: locked.originatorId,
      implementerId: locked.implementerId,
      approverId: locked.approverId,
      verifierId: locked.verifierId,
      hseqId: locked.hseqId,
      allUserIds: locked.allUserIds,
      acted: locked.acted,
      approval: locked.approval,
      deviations: locked.deviations,
      implementerSubmitted: locked.implementerSubmitted,
      logHead: sql<string | null>`${lockedHeadSql("moc", sql.raw('"locked"."id"'))}`,
      signatureHead: sql<string | null>`${lockedHeadSql("moc-signature", sql.raw('"locked"."id"'))}`,
    })
    .from(locked)
    .prepare("moc_for_step");
});

const mocAccessQuery = statementOnceBy((db, lock: boolean) => {
  const query = db
    .select({
      ...ACCESS_FIELDS,
      deviations: m.deviations,
      implementerSubmitted: sql<boolean>`${IMPLEMENTER_SUBMITTED}`.as("implementer_submitted"),
    })
    .from(m)
    .where(eq(m.id, sql.placeholder("id")));
  return (lock ? query.for("update", { of: m }) : query).prepare(lock ? "moc_access_locked" : "moc_access");
});

const mocDocumentTextQuery = preparedOnce((db) =>
  db
    .select({
      ...ACCESS_FIELDS,
      doc: sql<string>`coalesce(${d.doc}, build_moc_document(${m.id}))`,
      stage: sql<string>`${MOC_STAGE_SQL}`,
    })
    .from(m)
    .leftJoin(d, eq(d.mocId, m.id))
    .where(eq(m.id, sql.placeholder("id")))
    .prepare("moc_document_text"),
);

/**
 * One populated MOC as JSON text, with the fields authorization needs, in one query built once
 * (GET /api/singlemoc: the stored document goes out as PostgreSQL holds it, never parsed in Node).
 */
export async function loadMocDocumentText(id: string) {
  const [row] = await mocDocumentTextQuery().execute({ id });
  if (!row) return null;
  const { stage, ...rest } = row;
  return { ...rest, doc: withStage(row.doc, stage) };
}
