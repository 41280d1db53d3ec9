/**
 * `runStep`, the one way a MOC step happens (the steps themselves are declared in
 * moc-steps.server.ts): in one transaction it locks the MOC, checks the caller (403) and whether
 * the step is open (409; four eyes refusals name why), applies the step, moves the status with a
 * conditional update, appends the audit entry and the decision's signature manifestation, and
 * queues the emails. Two identical submissions at the same moment move the MOC
 * once; the other gets 409.
 */
import { and, eq, sql } from "drizzle-orm";
import { mocs, type ExtentionsAndDeviations, type TemporaryChange } from "#db/schema";
import { MOC_DOCUMENT_TRIGGERS } from "#db/derived";
import { getDb, statementOnceBy, type Executor } from "~/utils/db.server";
import { Conflict, Forbidden, NotFound } from "~/utils/errors";
import { deviationOutstanding, type MocDocument } from "./moc-document";
import { loadMocAccess } from "./moc-query.server";
import { mocStatusLabel } from "./moc-status";
import { principalsOf } from "./delegation.server";
import type { Actor, MocAccess } from "./authz.server";
import {
  actingFor,
  isIndependentOf,
  mayAct,
  refusalFor,
  stepWaiting,
  STEPS,
  temporaryConditions,
  whyClosed,
  type MocState,
  type MocStep,
  type StepDefinition,
  type StepInput,
} from "./moc-steps.server";
import { appendLog, notifyAboutMoc } from "./moc-store.server";
import { recordSignature } from "./audit.server";
import type { PublicUser } from "./user.server";
import type { z } from "zod";

type StateRow = {
  deviations: ExtentionsAndDeviations | null;
  temporary: TemporaryChange | null;
  implementer_submitted: boolean;
};

/** What opens and closes steps besides the status, as the tables hold it now. */
async function readStateRow(db: Executor, mocId: string): Promise<StateRow | undefined> {
  const [row] = await db.execute<StateRow>(sql`
    select m.deviations, m.temporary, exists (select 1 from moc_forms f where f.moc_id = m.id and f.kind = 'implementer'
      and f.submitted_at is not null) as implementer_submitted
    from mocs m where m.id = ${mocId}`);
  return row;
}

/** What opens and closes steps, read from the tables (inside the step's transaction). */
export async function loadMocState(
  db: Executor,
  moc: { id: string; status: string; completed: boolean; isDeleted: boolean },
): Promise<MocState> {
  return stateOf(moc, await readStateRow(db, moc.id));
}

/** What opens and closes steps, from the MOC's row fields and its state row. */
function stateOf(moc: { status: string; completed: boolean; isDeleted: boolean }, row: StateRow | undefined): MocState {
  return {
    status: moc.status,
    completed: moc.completed,
    isDeleted: moc.isDeleted,
    deviationOutstanding: deviationOutstanding(row?.deviations),
    implementerSubmitted: Boolean(row?.implementer_submitted),
    ...temporaryConditions(row?.temporary),
  };
}

type MocChanges = Partial<typeof mocs.$inferInsert>;

/**
 * The conditional move: the step's changes and status, only from the status (and completion) the
 * step started from. One statement per shape of changes (the columns set, and which of them are
 * null, written as SQL nulls as drizzle's builder writes them), each built once.
 */
const moveStatement = statementOnceBy(
  (db, changes: MocChanges) => {
    const set: Record<string, unknown> = { status: sql.placeholder("status"), updatedAt: sql.placeholder("updatedAt") };
    for (const [column, value] of Object.entries(changes)) {
      if (value !== undefined) set[column] = value === null ? null : sql.placeholder(column);
    }
    return db
      .update(mocs)
      .set(set as MocChanges)
      .where(
        and(
          eq(mocs.id, sql.placeholder("id")),
          eq(mocs.status, sql.placeholder("from")),
          eq(mocs.completed, sql.placeholder("completedBefore")),
        ),
      )
      .returning({ id: mocs.id })
      .prepare("move_moc");
  },
  (changes) =>
    Object.entries(changes)
      .filter(([, value]) => value !== undefined)
      .map(([column, value]) => (value === null ? `${column}=null` : column))
      .sort()
      .join(","),
);

/**
 * Runs one step of one MOC for the actor; returns the populated MOC after the change, as the JSON
 * text of its stored document. The actor is
 * the acting person: when the step's rule does not name them, they may act for an absent person
 * who delegated to them today (`actingFor`: no chains, the four-eyes rule on the acting person),
 * and the audit entry and the emails say "A on behalf of B".
 */
export async function runStep<S extends MocStep>(
  step: S,
  actor: PublicUser,
  mocId: string,
  input: StepInput<S>,
): Promise<string> {
  const definition = STEPS[step] as unknown as StepDefinition<z.ZodType<StepInput<S>>>;
  return getDb().transaction(async (tx) => {
    // Statements that do not need each other's answers go in one flight: postgres.js pipelines
    // them on the transaction's connection, in order, so each group costs one round trip. The
    // state is read after the lock is granted, so it is the state this step decides on.
    const [moc, stateBefore] = await Promise.all([loadMocAccess(mocId, tx, { lock: true }), readStateRow(tx, mocId)]);
    if (!moc || moc.isDeleted) throw new NotFound("No MOC with this id");
    const principals = mayAct(step, actor, moc) ? [] : await principalsOf(tx, actor._id);
    const acting = actingFor(step, actor, moc, principals);
    if (!acting) {
      const forSomeone = principals.find((p) => mayAct(step, p, moc));
      if (forSomeone && !isIndependentOf(actor._id, moc)) {
        throw new Forbidden(
          `${definition.who.refusal}; as the originator or implementer of this MOC you cannot take this decision on behalf of ${forSomeone.name} (four eyes)`,
        );
      }
      throw new Forbidden(refusalFor(step, actor, moc));
    }
    const onBehalfOf = acting.onBehalfOf as PublicUser | null;
    // The acting person writes; messages name them as acting for the absent person.
    const as = onBehalfOf ? { ...actor, name: `${actor.name} on behalf of ${onBehalfOf.name}` } : actor;
    const closed = whyClosed(step, stateOf(moc, stateBefore), (status) => mocStatusLabel(status).toLowerCase());
    if (closed) throw new Conflict(closed);
    const now = new Date();
    const outcome = await definition.apply({ tx, actor: as, moc, input, now });
    // Each email links its reader to where they act next: the step form now waiting, when they
    // may submit it, else the record.
    const changed = outcome.changes ?? {};
    const after: MocAccess = {
      ...moc,
      status: outcome.to,
      completed: Boolean(changed.completed ?? moc.completed),
      implementerId: changed.implementerId ?? moc.implementerId,
      approverId: changed.approverId ?? moc.approverId,
      hseqId: changed.hseqId ?? moc.hseqId,
      verifierId: changed.verifierId ?? moc.verifierId,
    };
    // One flight: the conditional status move (only from the status this step started from), its
    // audit entry, the decision's signature manifestation, and the state after them. A move that
    // finds the MOC changed meanwhile throws below, and the transaction takes all of them back.
    const [moved, , , stateAfter] = await Promise.all([
      moveStatement(tx, changed).execute({
        ...changed,
        status: outcome.to,
        updatedAt: now,
        id: moc.id,
        from: moc.status,
        completedBefore: moc.completed,
      }),
      appendLog(tx, {
        mocId: moc.id,
        userId: actor._id,
        action: outcome.action,
        from: moc.status,
        to: outcome.to,
        comment: outcome.comment ?? null,
        onBehalfOf: onBehalfOf?._id ?? null,
      }),
      definition.signs && outcome.meaning
        ? recordSignature(tx, {
            kind: "moc",
            recordId: moc.id,
            signer: actor,
            role: definition.signs(onBehalfOf ?? actor, moc),
            onBehalfOf,
            meaning: outcome.meaning,
            at: now,
          })
        : null,
      readStateRow(tx, moc.id),
    ]);
    if (moved.length !== 1) throw new Conflict("This MOC changed meanwhile; reload it and try again");
    const waiting = stepWaiting(stateOf({ ...moc, ...after }, stateAfter));
    const linkFor = (reader: Actor) =>
      waiting && mayAct(waiting, reader, after) ? `/mocs/${moc.id}/${STEPS[waiting].path}` : null;
    for (const notice of outcome.notices ?? []) {
      await notifyAboutMoc(
        tx,
        moc,
        notice.to,
        { event: notice.event, expectation: notice.expectation, details: notice.details },
        linkFor,
      );
    }
    return storedDocumentNow(tx, moc.id);
  });
}

/** `runStep` for callers that read the document it answers with (the step pages, the demo seed). */
export async function runStepForDocument<S extends MocStep>(
  step: S,
  actor: PublicUser,
  mocId: string,
  input: StepInput<S>,
): Promise<MocDocument> {
  return JSON.parse(await runStep(step, actor, mocId, input)) as MocDocument;
}

/**
 * The step's answer, and its last statements: the MOC's stored document, built now rather than at
 * commit. `set constraints ... immediate` runs the deferred refresh the step's writes queued
 * (db/derived.ts), so PostgreSQL builds the document once, for both the stored copy and the
 * answer, and it goes out as the text it stores, never parsed in Node. A refresh already done in
 * a transaction is not repeated at its commit, so nothing may write the MOC after this: it is the
 * end of `runStep`'s transaction.
 */
async function storedDocumentNow(tx: Executor, mocId: string): Promise<string> {
  const [, [row]] = await Promise.all([
    tx.execute(sql.raw(`set constraints ${MOC_DOCUMENT_TRIGGERS.join(", ")} immediate`)),
    tx.execute<{ doc: string }>(sql`select doc from moc_documents where moc_id = ${mocId}`),
  ]);
  if (!row) throw new Error(`MOC ${mocId} has no stored document after its step`);
  return row.doc;
}
