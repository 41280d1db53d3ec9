/**
 * `runStep`, the one way a MOC step happens: the engine (workflow/engine.server.ts) runs the MOC's
 * workflow (moc-steps.server.ts) with the MOC's load and move given here. In one transaction it
 * locks the MOC, checks the caller (403) and whether the step is open (409; four eyes refusals
 * name why), applies the step, moves the status with a conditional update, appends the audit
 * entry and the decision's signature manifestation, and queues the emails. Two identical
 * submissions at the same moment move the MOC once; the other gets 409.
 */
import { and, eq, sql } from "drizzle-orm";
import { mocs } from "#db/schema";
import { preparedSql, statementOnce, statementOnceBy, type Executor } from "~/utils/db.server";
import type { MocDocument } from "./moc-document";
import { approvalConditions, deviationConditions } from "./steps/shape.server";
import { pendingApproval } from "../authz/risk-approval.server";
import { loadMocForStep, loadMocStepState, withStage, type MocStepState } from "./moc-query.server";
import type { Actor, MocAccess } from "../authz/authz.server";
import { APPROVAL_STAGE_ACTION } from "../risk/risk";
import {
  mayAct,
  MOC_STAGE_SQL,
  MOC_WORKFLOW,
  returnedByHseq,
  stepWaiting,
  STEPS,
  temporaryConditions,
  type MocState,
  type MocStep,
  type StepInput,
} from "./moc-steps.server";
import { mocEmailNameOf, mocLogLink, notifyAboutMoc } from "./moc-store.server";
import { signatureLink, signatureRow } from "../audit/audit.server";
import { principalsOf } from "../people/delegation.server";
import { findRecipients } from "../messages/email.server";
import type { PublicUser } from "../people/user.server";

/** What opens and closes steps, read from the tables. */
export async function loadMocState(
  db: Executor,
  moc: { id: string; status: string; completed: boolean; isDeleted: boolean },
): Promise<MocState> {
  const state = await loadMocStepState(moc.id, db);
  return stateOf(
    { ...moc, approval: state?.approval },
    state ?? { deviations: null, temporary: null, implementerSubmitted: false },
  );
}

/** What opens and closes steps, from the MOC's row fields (and its round of approvals) and its state. */
function stateOf(
  moc: { status: string; completed: boolean; isDeleted: boolean; approval?: MocAccess["approval"] },
  state: MocStepState,
): MocState {
  const conditions = {
    status: moc.status,
    completed: moc.completed,
    isDeleted: moc.isDeleted,
    ...deviationConditions(state.deviations),
    implementerSubmitted: state.implementerSubmitted,
    ...temporaryConditions(state.temporary),
    ...approvalConditions(moc.status, pendingApproval(moc.approval)),
  };
  return { ...conditions, returnedByHseq: returnedByHseq(conditions) };
}

type MocChanges = Partial<typeof mocs.$inferInsert>;

/** A move's shape: the columns its changes set (and which of them to null), and whether it signs. */
type MoveShape = { changes: MocChanges; signs: boolean };

const placeholder = (name: string, type: string) => sql`${sql.placeholder(name)}::${sql.raw(type)}`;

/**
 * The move, in one statement: the step's changes and status, only from the status (and
 * completion) the step started from; then, only for a row that moved, its audit entry and the
 * decision's signature manifestation, keyed here as the next links of the MOC's chains (whose heads
 * the step's first statement locked), and the chains' new heads; answering with the state
 * after them. No row: the MOC changed meanwhile, and nothing was written. One statement per shape
 * (nulls written as SQL nulls, as drizzle's builder writes them), each built once.
 */
const moveStatement = statementOnceBy(
  (db, shape: MoveShape) => {
    const set: Record<string, unknown> = { status: sql.placeholder("status"), updatedAt: sql.placeholder("updatedAt") };
    for (const [column, value] of Object.entries(shape.changes)) {
      if (value !== undefined) set[column] = value === null ? null : sql.placeholder(column);
    }
    const update = db
      .update(mocs)
      .set(set as MocChanges)
      .where(
        and(
          eq(mocs.id, sql.placeholder("id")),
          eq(mocs.status, sql.placeholder("from")),
          eq(mocs.completed, sql.placeholder("completedBefore")),
        ),
      )
      .returning({ id: mocs.id, deviations: mocs.deviations, temporary: mocs.temporary });
    const signed = shape.signs
      ? sql`, signed as (
          insert into signature_manifestations (record_kind, record_id, signer_id, printed_name, position, role, meaning,
            signed_at, on_behalf_of, on_behalf_of_name, seq, prev_hash, hash, key_id)
          select 'moc', id, ${placeholder("signerId", "uuid")}, ${placeholder("printedName", "text")},
            ${placeholder("position", "text")}, ${placeholder("role", "text")}, ${placeholder("meaning", "text")},
            ${placeholder("signedAt", "timestamptz")}, ${placeholder("onBehalfOf", "uuid")},
            ${placeholder("onBehalfOfName", "text")}, ${placeholder("signatureSeq", "integer")},
            ${placeholder("signaturePrevHash", "text")}, ${placeholder("signatureHash", "text")},
            ${placeholder("keyId", "text")}
          from moved)`
      : sql``;
    // The chains' new heads (audit-chain.server.ts), moved with the entries they end on.
    const signatureHead = shape.signs
      ? sql` union all select 'moc-signature', id, ${placeholder("signatureSeq", "integer")},
          ${placeholder("signatureHash", "text")}, ${placeholder("keyId", "text")},
          ${placeholder("signatureHeadMac", "text")} from moved`
      : sql``;
    return preparedSql<{ id: string } & MocStepState>(
      db,
      sql`with moved as (${update.getSQL()}),
        logged as (
          insert into moc_logs (moc_id, user_id, on_behalf_of, action, from_status, to_status, comment, at, seq,
            prev_hash, hash, key_id)
          select id, ${placeholder("userId", "uuid")}, ${placeholder("onBehalfOf", "uuid")}, ${placeholder("action", "text")},
            ${placeholder("from", "text")}, ${placeholder("status", "text")}, ${placeholder("comment", "text")},
            ${placeholder("at", "timestamptz")}, ${placeholder("logSeq", "integer")},
            ${placeholder("logPrevHash", "text")}, ${placeholder("logHash", "text")}, ${placeholder("keyId", "text")}
          from moved)${signed},
        headed as (
          insert into audit_heads (chain, record_id, seq, hash, key_id, mac)
          select 'moc', id, ${placeholder("logSeq", "integer")}, ${placeholder("logHash", "text")},
            ${placeholder("keyId", "text")}, ${placeholder("logHeadMac", "text")} from moved${signatureHead}
          on conflict (chain, record_id) do update set seq = excluded.seq, hash = excluded.hash,
            key_id = excluded.key_id, mac = excluded.mac, updated_at = now())
        select id, deviations, temporary, exists (select 1 from moc_forms f where f.moc_id = moved.id
          and f.kind = 'implementer' and f.submitted_at is not null) as "implementerSubmitted"
        from moved`,
      `move_moc${shape.signs ? "_signed" : ""}`,
    );
  },
  (shape) =>
    Object.entries(shape.changes)
      .filter(([, value]) => value !== undefined)
      .map(([column, value]) => (value === null ? `${column}=null` : column))
      .sort()
      .join(",") + (shape.signs ? ";signs" : ""),
);

/**
 * The MOC's load and move for the engine (workflow/engine.server.ts `runner`): the MOC locked with
 * its chains' heads, then the move's one statement and the notices.
 */
const runMocStep = MOC_WORKFLOW.runner({
  async load(tx, id) {
    // The MOC locked, with the state this step decides on (read once the lock is granted).
    const loaded = await loadMocForStep(id, tx);
    return loaded && { record: loaded.access, state: stateOf(loaded.access, loaded.state), heads: loaded.heads };
  },
  context: ({ tx, actor, record, now }) => ({ tx, actor, moc: record, now }),
  principals: principalsOf,
  logLink: mocLogLink,
  async commit(tx, { record: moc, actor, onBehalfOf, outcome, now, logLink: log, signs, heads }) {
    // Each email links its reader to where they act next: the step form now waiting, when they
    // may submit it, else the record.
    const changed = outcome.changes ?? {};
    // The round of approvals after the move (risk-approval.server.ts): a MOC arriving at `d` starts
    // one; an approval given at `d` counts in it. So a second approver's notice is their turn,
    // linking to the approval form (issue 38 item 6), not a notice about someone else's decision.
    const approvalGiven = moc.status === "d" && outcome.to === "d" && outcome.action.startsWith(APPROVAL_STAGE_ACTION);
    const approval: MocAccess["approval"] =
      moc.approval && outcome.to === "d" && moc.status !== "d"
        ? { ...moc.approval, given: 0, givenIds: [] }
        : moc.approval && approvalGiven
          ? {
              ...moc.approval,
              given: moc.approval.given + 1,
              givenIds: [...moc.approval.givenIds, actor._id, ...(onBehalfOf ? [onBehalfOf._id] : [])],
            }
          : moc.approval;
    const after: MocAccess = {
      ...moc,
      approval,
      status: outcome.to,
      completed: Boolean(changed.completed ?? moc.completed),
      implementerId: changed.implementerId ?? moc.implementerId,
      approverId: changed.approverId ?? moc.approverId,
      hseqId: changed.hseqId ?? moc.hseqId,
      verifierId: changed.verifierId ?? moc.verifierId,
    };
    const signature =
      signs &&
      signatureRow({
        kind: "moc",
        recordId: moc.id,
        signer: actor,
        role: signs.role,
        onBehalfOf,
        meaning: signs.meaning,
        at: now,
      });
    const signed = signature && signatureLink(signature, heads.signature);
    // One flight: the move, then (not waiting for it) who each notice reaches and the MOC's name
    // in the emails (Part A's title and vessel, which the move does not change).
    const notices = outcome.notices ?? [];
    const [[stateAfter], recipients, label] = await Promise.all([
      moveStatement(tx, { changes: changed, signs: Boolean(signature) }).execute({
        ...changed,
        status: outcome.to,
        updatedAt: now,
        id: moc.id,
        from: moc.status,
        completedBefore: moc.completed,
        userId: actor._id,
        onBehalfOf: onBehalfOf?._id ?? null,
        action: outcome.action,
        comment: outcome.comment ?? null,
        at: now.toISOString(),
        logSeq: log.seq,
        logPrevHash: log.prevHash,
        logHash: log.hash,
        logHeadMac: log.headMac,
        keyId: log.keyId,
        ...(signature && { ...signature, signedAt: signature.signedAt.toISOString() }),
        ...(signed && {
          signatureSeq: signed.seq,
          signaturePrevHash: signed.prevHash,
          signatureHash: signed.hash,
          signatureHeadMac: signed.headMac,
        }),
      }),
      // Nobody is told of their own action (docs/decisions/029-oidc-and-notifications.md).
      Promise.all(notices.map((notice) => findRecipients(tx, { ...notice.to, except: actor._id }))),
      notices.length ? mocEmailNameOf(tx, moc) : undefined,
    ]);
    if (!stateAfter) return null;
    const waiting = stepWaiting(stateOf({ ...moc, ...after }, stateAfter));
    const linkFor = (reader: Actor) =>
      waiting && mayAct(waiting, reader, after) ? `/mocs/${moc.id}/${STEPS[waiting].path}` : null;
    // One email per person per event (issue 38 item 8): a person several notices name gets the
    // first that names them (a step lists its notices most specific first).
    // The document is asked for now, in one flight with the notices (email rows and jobs, which no
    // document shows): it is still the last write to the MOC's rows. Its answer is awaited after
    // the notices, so the transaction ends only once all of them are done.
    const document = storedDocumentNow(tx, moc.id);
    document.catch(() => {});
    const told = new Set<string>();
    for (const [index, notice] of notices.entries()) {
      const reached = recipients[index]!.filter((person) => !told.has(person._id) && told.add(person._id));
      if (!reached.length) continue;
      await notifyAboutMoc(
        tx,
        moc,
        notice.to,
        { event: notice.event, expectation: notice.expectation, details: notice.details },
        { linkFor, found: reached, label },
      );
    }
    return document;
  },
});

/**
 * Runs one step of one MOC for the actor; returns the populated MOC after the change, as the JSON
 * text of its stored document. The actor is the acting person: when the step's rule does not name
 * them, they may act for an absent person who delegated to them today (`actingFor`: no chains, the
 * four-eyes rule on the acting person), and the audit entry and the emails say "A on behalf of B".
 */
export function runStep<S extends MocStep>(step: S, actor: PublicUser, mocId: string, input: StepInput<S>) {
  return runMocStep(step, actor, mocId, input);
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
 * The step's answer, and its last write to the MOC: the MOC's stored document, built now rather
 * than at commit (moc_document_now in db/derived.ts), so PostgreSQL builds it once, for both the
 * stored copy and the answer, and it goes out as the text it stores, never parsed in Node. A
 * refresh done in a transaction is not repeated at its commit, so nothing may write the MOC (its
 * row, forms, people or trail) after this: only the notices' email rows and jobs go beside it.
 */
async function storedDocumentNow(tx: Executor, mocId: string): Promise<string> {
  const [row] = await documentNowStatement(tx).execute({ id: mocId });
  if (!row?.doc) throw new Error(`MOC ${mocId} has no stored document after its step`);
  return withStage(row.doc, row.stage);
}

const documentNowStatement = statementOnce((db) =>
  preparedSql<{ doc: string | null; stage: string }>(
    db,
    sql`select moc_document_now(m.id) as doc, ${MOC_STAGE_SQL} as stage from mocs m where m.id = ${placeholder("id", "uuid")}`,
    "moc_document_now",
  ),
);
