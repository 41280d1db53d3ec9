/**
 * The MOC steps, each declared once (docs/decisions/018-layout-and-step-definitions.md): its path
 * and label, who may act (with the refusal message, and the same rule as SQL), when it is open, who
 * owns it while the MOC waits on it, its form schema and the API body key around it, and what it
 * does (writes, status, notices). Authorization, the workflow (`runStep`), the step pages, the
 * record's owner line, the list's "waiting on" column, the pending actions and the dashboard all
 * read these; adding a rule to a step is one edit here.
 */
import { randomUUID } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import type { mocs, ExtentionsAndDeviations, TemporaryChange } from "#db/schema";
import type { MocStatus } from "#db/schema/enums";
import { z } from "zod";
import type { Transaction } from "~/utils/db.server";
import { Conflict, Invalid, NotFound } from "~/utils/errors";
import { sanitizeRequiredRichText } from "~/utils/sanitize.server";
import { isAdmin, isDecisionPending, isHseq, type Actor, type MocAccess, type MocProgress } from "./authz.server";
import type { Recipients } from "./email.server";
import { deviationOutstanding, temporaryStateOn, type MocDocument, type UserJson } from "./moc-document";
import {
  answerBlockers,
  closureBlockers,
  EXPIRED_NOT_RESTORED,
  RETURNED_BY_HSEQ,
  type PlanForClosure,
} from "./moc-closure";
import {
  approverFormSchema,
  deviationExtensionSchema,
  hseqFormSchema,
  implementationSchema,
  implementerFormSchema,
  originatorFormSchema,
  refId,
  temporaryConfirmSchema,
  temporaryExtensionDecisionSchema,
  temporaryExtensionSchema,
  temporaryPermanentSchema,
  temporaryRestoredSchema,
  uuid,
  verifierFormSchema,
  verifierReturnSchema,
} from "./moc.schema";
import {
  addMocUsers,
  cloneMocInto,
  handOverRole,
  mocLabel,
  partAForm,
  requireActiveUsers,
  saveForm,
  temporaryOfPartA,
} from "./moc-store.server";
import type { PublicUser } from "./user.server";
import { APPROVAL_STAGE_ACTION, approvalStages, riskLabel, RISK_LEVEL_LABEL, type ApprovalStage } from "./risk";
import {
  approvalName,
  mayGiveApproval,
  mayGiveApprovalSql,
  PENDING_APPROVAL_SQL,
  pendingApproval,
  positionOf,
  SECOND_APPROVER_SQL,
} from "./risk-approval.server";

export const MOC_STEPS = [
  "originator",
  "implementer",
  "hseq",
  "approver",
  "implementation",
  "deviation-extension",
  "verifier",
  "verifier-return",
  "temporary-restored",
  "temporary-confirm",
  "temporary-extension",
  "temporary-extension-decision",
  "temporary-permanent",
] as const;
export type MocStep = (typeof MOC_STEPS)[number];

// ---------------------------------------------------------------------------------------------
// What the rules look at

/** What decides whether a step is open, beyond the status: each has its SQL twin over `m` below. */
export type MocState = {
  status: string;
  completed: boolean;
  isDeleted: boolean;
  /** A requested deviation or extension waits for its resolution. */
  deviationOutstanding: boolean;
  /** Part B has been submitted at least once. */
  implementerSubmitted: boolean;
  /** A temporary change in effect (or past its end) with nothing recorded about its ending. */
  temporaryOpen: boolean;
  /** The implementer reported the original condition restored; HSEQ has not confirmed it yet. */
  restorationReported: boolean;
  /** The implementer asked to extend the temporary change; the approver has not decided yet. */
  temporaryExtensionRequested: boolean;
  /** Returned by the HSEQ review: back at Part B after its submission, with no deviation waiting. */
  returnedByHseq: boolean;
  /** A temporary change past its end date with nothing recorded about its ending (expired, not restored). */
  temporaryExpired: boolean;
};
type Condition = Exclude<keyof MocState, "status" | "completed" | "isDeleted">;

/** A requested deviation or extension of `m` still waits for its resolution (any status). */
export const DEVIATION_OUTSTANDING = sql`(m.deviations is not null and (
      (m.deviations->'deviation' is not null and m.deviations->'deviation' <> 'null'::jsonb and not (m.deviations->'deviation'->>'resolved')::boolean)
   or (m.deviations->'extension' is not null and m.deviations->'extension' <> 'null'::jsonb and not (m.deviations->'extension'->>'resolved')::boolean)))`;

const IMPLEMENTER_SUBMITTED_SQL = sql`exists (select 1 from moc_forms f where f.moc_id = m.id and f.kind = 'implementer' and f.submitted_at is not null)`;

/**
 * A temporary change of `m` expired and not restored: recorded as expired, or in effect past its
 * end date before the daily run records it (`temporaryStateOn`'s rule, as `temporaryStateSql`).
 */
export const TEMPORARY_EXPIRED_SQL = sql`coalesce(m.temporary->>'state' = 'expired' or (m.temporary->>'state' = 'in-effect'
  and (m.temporary->>'until')::date < (now() at time zone 'UTC')::date), false)`;

const CONDITION_SQL: Record<Condition, SQL> = {
  deviationOutstanding: DEVIATION_OUTSTANDING,
  implementerSubmitted: IMPLEMENTER_SUBMITTED_SQL,
  returnedByHseq: sql`(m.status = 'b' and ${IMPLEMENTER_SUBMITTED_SQL} and not ${DEVIATION_OUTSTANDING})`,
  temporaryExpired: TEMPORARY_EXPIRED_SQL,
  temporaryOpen: sql`coalesce(m.temporary->>'state' in ('in-effect', 'expired'), false)`,
  restorationReported: sql`coalesce(m.temporary->>'state' = 'restoration-reported', false)`,
  temporaryExtensionRequested: sql`coalesce(m.temporary->>'state' = 'extension-requested', false)`,
};

/** The recorded state of a temporary change as the rules read it (one place for its conditions), on `now`. */
export const temporaryConditions = (temporary: TemporaryChange | null | undefined, now = new Date()) => ({
  temporaryOpen: temporary?.state === "in-effect" || temporary?.state === "expired",
  restorationReported: temporary?.state === "restoration-reported",
  temporaryExtensionRequested: temporary?.state === "extension-requested",
  temporaryExpired: temporaryStateOn(temporary, todayUtc(now)) === "expired",
});

/**
 * Back at Part B after its submission with no deviation waiting: only the HSEQ review's return
 * leads there (a deviation request waits at `b` with its items outstanding).
 */
export const returnedByHseq = (state: Pick<MocState, "status" | "implementerSubmitted" | "deviationOutstanding">) =>
  state.status === "b" && state.implementerSubmitted && !state.deviationOutstanding;

/** The state of a populated document (pages). */
export const stateOfDocument = (doc: MocDocument): MocState => {
  const state = {
    status: doc.status,
    completed: doc.completed,
    isDeleted: doc.isDeleted,
    deviationOutstanding: deviationOutstanding(doc.extentionsAndDeviations),
    implementerSubmitted: Boolean(doc.implementer_form?.submittedAt),
    ...temporaryConditions(doc.temporary),
  };
  return { ...state, returnedByHseq: returnedByHseq(state) };
};

/** The roles a MOC names, as document keys and columns of `m`. */
const ROLES = {
  originator: { doc: "originator_id", column: sql`m.originator_id` },
  implementer: { doc: "implementer_id", column: sql`m.implementer_id` },
  approver: { doc: "approver_id", column: sql`m.approver_id` },
  hseq: { doc: "hseq_id", column: sql`m.hseq_id` },
  verifier: { doc: "verifier_id", column: sql`m.verifier_id` },
} as const;
type Role = keyof typeof ROLES;

/** A constant of the code as an SQL literal, so the query text (and its plan) stays the same. */
const literal = (text: string) => sql.raw(`'${text.replace(/'/g, "''")}'`);

// ---------------------------------------------------------------------------------------------
// Four eyes (docs/decisions/021-records-people-can-trust.md, 026-four-eyes-by-record.md)

/**
 * What a check is judged against: a plain check (a deviation decision, a verification, the end of
 * a temporary change) against the makers of the change; the HSEQ review also against its approval
 * and the approval also against its review (one person may not take both).
 */
export type CheckKind = "check" | "review" | "approval";

/** The words of the trail entries (moc_logs.action) the four-eyes rule reads, written by the steps below. */
export const TRAIL_ACTIONS = {
  partAUpdated: "Updated Part A",
  restored: "Reported the original condition restored",
  extensionAsked: "Asked to extend the temporary change to ",
  permanent: "Made the temporary change permanent",
} as const;

/**
 * The trail entries `l` (moc_logs) that make their author, and the absent person they acted for,
 * a maker of the change: the MOC created (or cloned), Part A submitted or updated, Part B submitted (or declined), Part E
 * reported, and the implementer's ends of a temporary change. Step moves are told apart by the
 * status they left; the few that stay in place by their words.
 */
const MAKER_ENTRY = sql`(l.from_status is null or (l.from_status = 'a' and l.to_status = 'b')
  or (l.from_status = 'b' and l.to_status in ('c', 'decline'))
  or (l.from_status = 'e' and l.to_status in ('f', 'b'))
  or l.action = ${literal(TRAIL_ACTIONS.partAUpdated)} or l.action = ${literal(TRAIL_ACTIONS.restored)}
  or l.action like ${literal(`${TRAIL_ACTIONS.extensionAsked}%`)} or l.action like ${literal(`${TRAIL_ACTIONS.permanent}%`)})`;
/** The trail entries of the HSEQ review (Part C): the only step that leaves `c`. */
const REVIEW_ENTRY = sql`(l.from_status = 'c' and l.to_status in ('d', 'b'))`;
/**
 * The trail entries of the approval (Part D): the only step that leaves `d`, and the approvals it
 * records at `d` on a High or Extreme MOC (docs/decisions/037-risk-ranking-and-approvals.md).
 */
const APPROVAL_ENTRY = sql`(l.from_status = 'd' and (l.to_status in ('e', 'decline')
  or (l.to_status = 'd' and l.action like ${literal(`${APPROVAL_STAGE_ACTION}%`)})))`;

/**
 * Everyone who acted on the MOC so far, from its trail and its signature manifestations (the
 * acting person and the absent person they acted for alike), as SQL over `m`: a JSON object of
 * `MocAccess["acted"]`. Read with the MOC's row, in the statement that loads it.
 */
export const ACTED_SQL = sql<MocAccess["acted"]>`(select json_build_object(
    'makerIds', coalesce(json_agg(distinct x.person) filter (where x.kind = 'maker'), '[]'::json),
    'reviewerIds', coalesce(json_agg(distinct x.person) filter (where x.kind = 'review'), '[]'::json),
    'approverIds', coalesce(json_agg(distinct x.person) filter (where x.kind = 'approval'), '[]'::json))
  from (
    select case when ${MAKER_ENTRY} then 'maker' when ${REVIEW_ENTRY} then 'review'
        when ${APPROVAL_ENTRY} then 'approval' end as kind, p.person
      from moc_logs l cross join lateral (values (l.user_id), (l.on_behalf_of)) p(person)
      where l.moc_id = m.id and p.person is not null
    union all
    select 'maker', p.person from signature_manifestations s
      cross join lateral (values (s.signer_id), (s.on_behalf_of)) p(person)
      where s.record_kind = 'moc' and s.record_id = m.id and s.role = 'Implementer' and p.person is not null
  ) x where x.kind is not null)`;

type Independence = Pick<MocAccess, "originatorId" | "implementerId" | "approverId" | "acted">;

/**
 * Why the person is not independent of the MOC for a check of `kind`, in words ("the
 * originator"), or null when they are. Judged against everyone who acted on the record (its trail
 * and manifestations), not only the people it names now: a reassignment cannot turn a maker into
 * a checker.
 */
export function dependenceOf(userId: string, moc: Independence, kind: CheckKind = "check"): string | null {
  const acted = moc.acted ?? NOBODY_ACTED;
  const roles = [
    userId === moc.originatorId ? "the originator" : null,
    userId === moc.implementerId ? "the implementer" : null,
    userId !== moc.originatorId && userId !== moc.implementerId && acted.makerIds.includes(userId)
      ? "an author of Part A, B or E"
      : null,
    kind === "review" && (userId === moc.approverId || acted.approverIds.includes(userId)) ? "the approver" : null,
    kind === "approval" && acted.reviewerIds.includes(userId) ? "the HSEQ reviewer" : null,
  ].filter(Boolean);
  return roles.length ? roles.join(" and ") : null;
}

/** Nobody acted yet (a record read without its trail). */
export const NOBODY_ACTED: MocAccess["acted"] = { makerIds: [], reviewerIds: [], approverIds: [] };

/**
 * The person is independent of the MOC for a check of `kind`: neither its originator nor its
 * implementer nor anyone who made the change (from the trail), and for the review and the approval
 * not the one who took the other. The one rule for every check-step, every assignment path and
 * (through `independentSql`) every list; a delegate is held to it too.
 */
export const isIndependentOf = (userId: string, moc: Independence, kind: CheckKind = "check") =>
  dependenceOf(userId, moc, kind) === null;

/** `isIndependentOf` as SQL over `m` for the person whose id is `userId` (a value or a placeholder). */
export const independentSql = (userId: unknown, kind: CheckKind = "check"): SQL => {
  const entries = [MAKER_ENTRY, ...(kind === "review" ? [APPROVAL_ENTRY] : kind === "approval" ? [REVIEW_ENTRY] : [])];
  return sql`(m.originator_id <> ${userId} and m.implementer_id is distinct from ${userId}
    ${kind === "review" ? sql`and m.approver_id is distinct from ${userId}` : sql``}
    and not exists (select 1 from moc_logs l where l.moc_id = m.id and ${userId} in (l.user_id, l.on_behalf_of)
      and (${sql.join(entries, sql` or `)}))
    and not exists (select 1 from signature_manifestations s where s.record_kind = 'moc' and s.record_id = m.id
      and s.role = 'Implementer' and ${userId} in (s.signer_id, s.on_behalf_of)))`;
};

/** The 400 message and field issue when an assignment would break four eyes. */
export const FOUR_EYES_ASSIGNMENT = (who: string, role: string) =>
  `${who} cannot be the ${role}: nobody reviews, approves or verifies their own change, and one person does not both review and approve it (four eyes)`;

/** The check of each assignable checker role. */
const CHECK_OF_ROLE = { approver: "approval", verifier: "check", hseq: "check" } as const;

/**
 * Whether putting `userId` in `role` of the MOC would break four eyes: the 400 message, or null.
 * A checker (approver, verifier, HSEQ reviewer) must be independent of the MOC, judged against
 * everyone who acted on it; an implementer must be none of its checkers, now or before.
 */
export function fourEyesAssignment(
  moc: Pick<MocAccess, "originatorId" | "implementerId" | "approverId" | "verifierId" | "hseqId" | "acted">,
  role: "implementer" | "approver" | "verifier" | "hseq",
  userId: string,
  name: string,
): string | null {
  if (role === "implementer") {
    const acted = moc.acted ?? NOBODY_ACTED;
    const checker =
      (["approver", "verifier", "hseq"] as const).find((r) => moc[`${r}Id`] === userId) ??
      (acted.reviewerIds.includes(userId) ? "hseq" : acted.approverIds.includes(userId) ? "approver" : undefined);
    return checker
      ? `${name}, the ${checker === "hseq" ? "HSEQ reviewer" : checker} of this MOC, cannot also be its implementer: nobody reviews, approves or verifies their own change (four eyes)`
      : null;
  }
  const dependence = dependenceOf(userId, moc, CHECK_OF_ROLE[role]);
  return dependence
    ? FOUR_EYES_ASSIGNMENT(`${name}, ${dependence} of this MOC,`, role === "hseq" ? "HSEQ reviewer" : role)
    : null;
}

type Who = { may: (actor: Actor, moc: MocAccess) => boolean; sql: (actor: Actor) => SQL; refusal: string };

/**
 * A check-step's `who`: the rule `base` and independence of the MOC for a check of `kind`, for
 * admins too. `conflict` names why someone `base` alone would allow is refused (the 403 message).
 */
const independent = (
  base: Who,
  doing: string,
  kind: CheckKind = "check",
): Who & { independent: CheckKind; conflict: (actor: Actor, moc: MocAccess) => string | null } => ({
  independent: kind,
  may: (actor, moc) => base.may(actor, moc) && isIndependentOf(actor._id, moc, kind),
  sql: (actor) => sql`(${base.sql(actor)} and ${independentSql(actor._id, kind)})`,
  refusal: base.refusal,
  conflict: (actor, moc) => {
    const dependence = base.may(actor, moc) ? dependenceOf(actor._id, moc, kind) : null;
    return dependence
      ? `You are ${dependence} of this MOC, so you cannot ${doing} it: nobody reviews, approves or verifies their own change, and one person does not both review and approve it (four eyes)`
      : null;
  },
});

// ---------------------------------------------------------------------------------------------
// The shape of a step

type Moc = MocAccess & {
  id: string;
  serialNum: string;
  targetDate: string | null;
  temporary: TemporaryChange | null;
};

type Notice = { to: Recipients; event: string; expectation: string | null; details?: [string, string][] };

export type Outcome = {
  to: MocStatus;
  action: string;
  /** What the signature of a decision means ("approved", "returned to implementer"), for `signs` steps. */
  meaning?: string;
  comment?: string | null;
  changes?: Partial<typeof mocs.$inferInsert>;
  notices?: Notice[];
};

export type StepContext<I> = { tx: Transaction; actor: PublicUser; moc: Moc; input: I; now: Date };

type StepDefinition<Form extends z.ZodType> = {
  /** The URL segment of the step's page, `/mocs/:id/<path>`. */
  path: string;
  /** How messages and buttons name the step. */
  part: string;
  /** The record's button, when "Open <part>" does not read well. */
  button?: string;
  who: {
    may: (actor: Actor, moc: MocAccess) => boolean;
    /** `may` as SQL over `m` for the actor (the pending actions). */
    sql: (actor: Actor) => SQL;
    /** The 403 message, on the API and the pages. */
    refusal: string;
    /**
     * A check-step (four eyes, set by `independent`): whoever takes it, in person or on someone
     * else's behalf, must be independent of the MOC (`isIndependentOf`, applied to the acting person).
     */
    independent?: CheckKind;
    /**
     * Whom the step waits on ("waiting on me"), when not everyone who `may` act: a draft waits on
     * its originator, though an admin may finish it too.
     */
    waitsOn?: { may: (actor: Actor, moc: MocAccess) => boolean; sql: (actor: Actor) => SQL };
    /** A more precise 403 message when the actor is refused for four eyes (see `independent`). */
    conflict?: (actor: Actor, moc: MocAccess) => string | null;
  };
  /** The signature manifestation of a submission: the MOC role it is signed as. */
  signs?: (actor: Actor, moc: MocAccess) => string;
  open: {
    /** The statuses it may be submitted in (409 otherwise). */
    statuses: MocStatus[];
    /** Conditions that must hold too, each with its 409 reason when it does not. */
    requires?: [condition: Condition, holds: boolean, reason: string][];
    /** Open but not what the MOC waits for in these statuses (Part A revised at `b`). */
    notWaitingIn?: MocStatus[];
    /** Open on a completed MOC only (the end of a temporary change); the others never are. */
    completed?: true;
    /** Open, but the MOC does not wait on it (a temporary change in effect until its end). */
    notWaiting?: true;
    /** Open, but the MOC waits on it only while this holds (a temporary change past its end). */
    waitsWhen?: Condition;
  };
  /**
   * How the MOC's status reads while it waits on this step, when not the status's own label, and
   * the stepper's part it belongs to (a deviation decision is part of the implementation, though
   * the status is back at `b`).
   */
  stage?: { label: string; part: MocStatus };
  /**
   * How the MOC reads while it waits on this step when a condition holds, before `stage` (its
   * badge, the list and the dashboard): "Returned by HSEQ", "Expired — not restored".
   */
  flagged?: [condition: Condition, label: string][];
  /**
   * Who owns it while the MOC waits on it: the first named of `roles` (or all, joined by "or");
   * `sql`, when it names someone, before them (a second approval's position holders).
   */
  owner: { roles: Role[]; all?: true; suffix?: string; otherwise?: string; sql?: SQL };
  /** The form the page posts and the API carries under `bodyKey` (or as the whole body when null). */
  form: Form;
  bodyKey: string | null;
  /** What the step does; issues are keyed by form field (the API adds `bodyKey`). */
  apply: (ctx: StepContext<z.output<Form>>) => Promise<Outcome>;
  /** What the API description (`/api/openapi.json`) says of the step beyond who and when. */
  apiNote?: string;
};

const step = <Form extends z.ZodType>(definition: StepDefinition<Form>) => definition;

/** Everyone involved, as "all MOC users" in the Events table means. */
const everyone = (moc: Moc): Recipients => ({ userIds: [...moc.allUserIds] });

const todayUtc = (now: Date) => now.toISOString().slice(0, 10);

const assigned = (role: Role) => ({
  may: (actor: Actor, moc: MocAccess) => moc[`${role}Id` as const] === actor._id,
  sql: (actor: Actor) => sql`${ROLES[role].column} = ${actor._id}`,
});

async function loadDeviations(tx: Transaction, mocId: string): Promise<ExtentionsAndDeviations | null> {
  const [row] = await tx.execute<{ deviations: ExtentionsAndDeviations | null }>(
    sql`select deviations from mocs where id = ${mocId}`,
  );
  return row?.deviations ?? null;
}

/** A decline at `stage`: the reason in the log and on the MOC, everyone involved told. */
function declined(
  { actor, moc, now }: Pick<StepContext<unknown>, "actor" | "moc" | "now">,
  reason: string,
  how: { stage: "b" | "d"; action: string; where: string },
): Outcome {
  return {
    to: "decline",
    action: how.action,
    meaning: "declined",
    comment: reason,
    changes: { decline: { stage: how.stage, reason, by: actor._id, at: now.toISOString() } },
    notices: [
      {
        to: { userIds: [moc.originatorId, ...moc.allUserIds] },
        event: `${actor.name} declined this MOC ${how.where}.`,
        expectation: null,
        details: [["Reason", reason]],
      },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Risk decides who approves (docs/decisions/037-risk-ranking-and-approvals.md)

/**
 * The approver step's `who`: the approver's own rule (`base`) while the MOC waits for the
 * approver, then for each second approval its position's holder (`mayGiveApproval`), independent
 * of the MOC as an approver is. Unchanged for a MOC that needs only the approver.
 */
const secondApprovals = (base: ReturnType<typeof independent>): ReturnType<typeof independent> => ({
  independent: "approval",
  may: (actor, moc) =>
    pendingApproval(moc.approval) === "approver"
      ? base.may(actor, moc)
      : mayGiveApproval(actor, moc) && isIndependentOf(actor._id, moc, "approval"),
  sql: (actor) => sql`(${mayGiveApprovalSql(actor)} and ${independentSql(actor._id, "approval")})`,
  refusal: base.refusal,
  conflict: (actor, moc) => {
    const stage = pendingApproval(moc.approval);
    if (stage === "approver") return base.conflict(actor, moc);
    if (!stage) return null;
    if (!mayGiveApproval(actor, moc)) {
      return (moc.approval?.givenIds ?? []).includes(actor._id)
        ? `You have already approved this MOC; ${approvalName(stage, moc.approval)} must come from someone else (four eyes)`
        : `This MOC waits on ${approvalName(stage, moc.approval)}; only the holder of that position can give it`;
    }
    const dependence = dependenceOf(actor._id, moc, "approval");
    return dependence
      ? `You are ${dependence} of this MOC, so you cannot approve it: nobody reviews, approves or verifies their own change, and one person does not both review and approve it (four eyes)`
      : null;
  },
});

/** The active holders of a position (who a second approval waits on). */
async function positionHolders(tx: Transaction, position: string | null): Promise<string[]> {
  if (!position) return [];
  const rows = await tx.execute<{ id: string }>(sql`select id from users where position = ${position} and active`);
  return rows.map((r) => r.id);
}

const levelWords = (moc: Moc) => `${riskLabel(moc.approval?.level)} risk`;

/** An approval given while another is still needed: the MOC stays at `d`, the next approver is told. */
async function approvalGiven(
  { tx, actor, moc }: StepContext<unknown>,
  stage: ApprovalStage,
  next: ApprovalStage,
): Promise<Outcome> {
  const who = stage === "approver" ? "approver" : positionOf(stage, moc.approval)!;
  const holders = await positionHolders(tx, positionOf(next, moc.approval));
  // The next approvers read the MOC as people involved in it (canViewMoc), and are reminded with them.
  await addMocUsers(tx, moc.id, holders);
  return {
    to: "d",
    action: `${APPROVAL_STAGE_ACTION}${who} (${levelWords(moc)}); next: ${approvalName(next, moc.approval)}`,
    meaning: "approved",
    notices: [
      {
        to: { userIds: [...holders, moc.originatorId, moc.implementerId] },
        event: `${actor.name} approved this MOC as the ${who} (${levelWords(moc)}).`,
        expectation: `Next: ${approvalName(next, moc.approval)} (Part D).`,
      },
    ],
  };
}

/** A second approval's decision: declined, given with another still to come, or the last one (`d` -> `e`). */
async function secondApproval(
  context: StepContext<z.output<typeof approverFormSchema>>,
  stage: ApprovalStage,
): Promise<Outcome> {
  const { actor, moc, input, now } = context;
  const position = positionOf(stage, moc.approval)!;
  if (input["approver-moc-approved"].value === "no") {
    return declined({ actor, moc, now }, input["decline-reason"]!.value, {
      stage: "d",
      action: `Declined as the ${position} (${levelWords(moc)})`,
      where: `at the ${levelWords(moc)} approval by the ${position} (Part D)`,
    });
  }
  const stages = approvalStages(moc.approval?.level);
  const next = stages[stages.indexOf(stage) + 1];
  if (next) return approvalGiven(context, stage, next);
  return {
    to: "e",
    action:
      `Approved as the ${position} (${levelWords(moc)})` +
      (moc.temporary ? `, as a temporary change until ${moc.temporary.until}` : ""),
    meaning: "approved",
    notices: [
      {
        to: { userIds: [moc.originatorId, moc.implementerId, moc.hseqId, moc.approverId] },
        event: `${actor.name} gave the last approval this MOC needs (${levelWords(moc)}).`,
        expectation: "Next: the implementer carries out the change and reports it (Part E).",
        details: moc.temporary ? [["Temporary until", moc.temporary.until]] : [],
      },
    ],
  };
}

/**
 * The audit action of the step that completes a MOC (a verification that closes it, `f` -> `f`):
 * what the insight figures read as the moment a MOC was completed.
 */
export const MOC_CLOSED_ACTION = "Verified and closed";

const TEMPORARY_OPEN: [Condition, boolean, string] = [
  "temporaryOpen",
  true,
  "This MOC is not a temporary change in effect, or its ending is already recorded",
];

function requireTemporary(moc: Moc): TemporaryChange {
  if (!moc.temporary) throw new Conflict("This MOC is not a temporary change");
  return moc.temporary;
}

/** In effect again (or expired, past its end): where a temporary change goes back to when nothing ends it. */
const reopened = (temporary: TemporaryChange, now: Date): "in-effect" | "expired" =>
  temporary.until < todayUtc(now) ? "expired" : "in-effect";

/** Who verifies: the verifier, or the assigned HSEQ user when there is none (closing or returning alike). */
const VERIFIER_WHO = {
  may: (actor: Actor, moc: MocAccess) => (moc.verifierId ? moc.verifierId === actor._id : moc.hseqId === actor._id),
  sql: (actor: Actor) => sql`(m.verifier_id = ${actor._id} or (m.verifier_id is null and m.hseq_id = ${actor._id}))`,
};

/** The trail's words for the verifier's return (f -> e). */
export const RETURNED_TO_IMPLEMENTATION = "Returned to implementation by the verifier";

/** What the closure gate reads of the MOC, inside the step's transaction (the row is locked). */
async function loadPlanForClosure(tx: Transaction, mocId: string): Promise<PlanForClosure> {
  const [row] = await tx.execute<PlanForClosure>(sql`
    select m.action, m.manual_plan as "manualPlan",
      (select f.data->'completion-date'->>'value' from moc_forms f
        where f.moc_id = m.id and f.kind = 'implementation' and f.submitted_at is not null) as "completionDate"
    from mocs m where m.id = ${mocId}`);
  if (!row) throw new NotFound("No MOC with this id");
  return row;
}

const BLOCKED_BY_DEVIATION =
  "A deviation or extension is waiting for the approver or HSEQ user; Part B cannot be submitted now";

// ---------------------------------------------------------------------------------------------
// The steps

export const STEPS = {
  originator: step({
    path: "originator",
    part: "Part A (originator)",
    who: {
      may: (actor, moc) => isAdmin(actor) || moc.originatorId === actor._id,
      sql: (actor) => (isAdmin(actor) ? sql`true` : sql`m.originator_id = ${actor._id}`),
      refusal: "Only the originator (or an admin) can change Part A",
      waitsOn: {
        may: (actor, moc) => moc.originatorId === actor._id,
        sql: (actor) => sql`m.originator_id = ${actor._id}`,
      },
    },
    open: {
      statuses: ["a", "b"],
      requires: [
        [
          "implementerSubmitted",
          false,
          "The implementer has already assessed this MOC, so Part A can no longer change",
        ],
      ],
      notWaitingIn: ["b"],
    },
    owner: { roles: ["originator"] },
    form: originatorFormSchema,
    bodyKey: "originator_form",
    async apply({ tx, actor, moc, input, now }) {
      const implementerId = refId(input["implementer-name"].value);
      const people = await requireActiveUsers(tx, [{ path: "implementer-name", id: implementerId }]);
      const breaks = fourEyesAssignment(moc, "implementer", implementerId, people.get(implementerId)!.name);
      if (breaks) throw new Invalid(breaks, [{ path: "implementer-name", message: breaks }]);
      await saveForm(tx, {
        mocId: moc.id,
        kind: "originator",
        actorId: actor._id,
        submitted: true,
        data: await partAForm(tx, input, { _id: implementerId, name: people.get(implementerId)!.name }),
      });
      const temporary = temporaryOfPartA(input, { submit: true, now });
      const previous = moc.implementerId;
      await handOverRole(tx, moc, "implementerId", implementerId);
      await addMocUsers(tx, moc.id, [moc.originatorId]);
      const newlyAssigned = moc.status === "a" || previous !== implementerId;
      return {
        to: "b",
        action: moc.status === "a" ? "Submitted Part A" : TRAIL_ACTIONS.partAUpdated,
        changes: { implementerId, temporary },
        notices: newlyAssigned
          ? [
              {
                to: { userIds: [implementerId] },
                event: `${actor.name} raised this MOC and assigned you as its implementer.`,
                expectation: "Assess the change (Part B): name the approver and HSEQ user, and set the target date.",
              },
            ]
          : [],
      };
    },
  }),

  implementer: step({
    path: "implementer",
    part: "Part B (implementer assessment)",
    who: { ...assigned("implementer"), refusal: "Only the assigned implementer can submit the implementer assessment" },
    signs: () => "Implementer",
    open: { statuses: ["b"], requires: [["deviationOutstanding", false, BLOCKED_BY_DEVIATION]] },
    owner: { roles: ["implementer"] },
    flagged: [["returnedByHseq", RETURNED_BY_HSEQ]],
    form: implementerFormSchema,
    bodyKey: "implementer_form",
    async apply({ tx, actor, moc, input, now }) {
      const approves = input["details-assessed"].value === "yes" && input["necessary-justified"].value === "yes";
      if (!approves) {
        const reason = input["decline-reason"]!.value;
        await saveForm(tx, {
          mocId: moc.id,
          kind: "implementer",
          actorId: actor._id,
          submitted: true,
          data: input,
          merge: true,
        });
        return declined({ actor, moc, now }, reason, {
          stage: "b",
          action: "Declined at the implementer assessment",
          where: "at the implementer assessment (Part B)",
        });
      }
      const approverId = refId(input["approver-name"]!.value);
      const hseqId = refId(input["hseq-name"]!.value);
      const targetDate = input["target-date"]!.value;
      const people = await requireActiveUsers(tx, [
        { path: "approver-name", id: approverId },
        { path: "hseq-name", id: hseqId },
      ]);
      const notIndependent = [
        { path: "approver-name", id: approverId, role: "approver" },
        { path: "hseq-name", id: hseqId, role: "HSEQ reviewer" },
      ].filter((pick) => !isIndependentOf(pick.id, moc));
      if (notIndependent.length) {
        const message = (pick: (typeof notIndependent)[number]) =>
          FOUR_EYES_ASSIGNMENT(`${people.get(pick.id)!.name}, ${dependenceOf(pick.id, moc)} of this MOC,`, pick.role);
        throw new Invalid(
          message(notIndependent[0]!),
          notIndependent.map((pick) => ({ path: pick.path, message: message(pick) })),
        );
      }
      if (people.get(hseqId)!.department !== "hseq") {
        throw new Invalid("The HSEQ user must belong to the HSEQ department", [
          { path: "hseq-name", message: "Choose a member of the HSEQ department" },
        ]);
      }
      if (targetDate < todayUtc(now)) {
        throw new Invalid("The target date cannot be in the past", [
          { path: "target-date", message: "Choose today or a later date" },
        ]);
      }
      await saveForm(tx, {
        mocId: moc.id,
        kind: "implementer",
        actorId: actor._id,
        submitted: true,
        merge: true,
        data: {
          ...input,
          "approver-name": { value: { _id: approverId, name: people.get(approverId)!.name } },
          "hseq-name": { value: { _id: hseqId, name: people.get(hseqId)!.name } },
        },
      });
      // An approver or HSEQ user named in a draft and replaced now stops reading the MOC.
      await handOverRole(tx, moc, "approverId", approverId);
      await handOverRole(tx, { ...moc, approverId }, "hseqId", hseqId);
      // After an HSEQ return, what the implementer changed goes in the trail beside the resubmission.
      const changed = input["changes-since-return"]?.value || null;
      return {
        to: "c",
        action: "Submitted the implementer assessment",
        meaning: "assessed the change and sent it for HSEQ review",
        comment: changed ? `Changed since the HSEQ return: ${changed}` : null,
        changes: { approverId, hseqId, targetDate },
        notices: [
          {
            to: { userIds: [hseqId, approverId, ...moc.allUserIds], departments: ["hseq"] },
            event: `${actor.name} assessed the change and sent it for HSEQ review.`,
            expectation: `Next: HSEQ review (Part C), assigned to ${people.get(hseqId)!.name}. Then approval by ${people.get(approverId)!.name}.`,
            details: [["Target date", targetDate]],
          },
        ],
      };
    },
  }),

  hseq: step({
    path: "hseq",
    part: "Part C (HSEQ review)",
    who: independent(
      {
        may: (actor) => isHseq(actor),
        sql: (actor) => (isHseq(actor) ? sql`true` : sql`false`),
        refusal: "Only members of the HSEQ department can submit the HSEQ review",
      },
      "review",
      "review",
    ),
    signs: () => "HSEQ reviewer",
    open: { statuses: ["c"] },
    owner: { roles: ["hseq"], suffix: " (HSEQ)", otherwise: "HSEQ department" },
    form: hseqFormSchema,
    bodyKey: "hseq_form",
    async apply({ tx, actor, moc, input }) {
      await saveForm(tx, { mocId: moc.id, kind: "hseq", actorId: actor._id, submitted: true, data: input });
      const passes = [
        input["hseq-change-adequately"],
        input["hseq-justification-satisfactory"],
        input["hseq-risk-assessment-covered"],
      ].every((f) => f.value === "yes");
      if (!passes) {
        const reason = input["decline-reason"]!.value;
        return {
          to: "b",
          action: "Returned to the implementer by HSEQ",
          meaning: "returned to implementer",
          comment: reason,
          notices: [
            {
              to: { userIds: [moc.implementerId, moc.originatorId] },
              event: `${actor.name} (HSEQ) returned this MOC to the implementer.`,
              expectation: "Next: the implementer revises the assessment (Part B).",
              details: [["Reason", reason]],
            },
          ],
        };
      }
      return {
        to: "d",
        action: "HSEQ review passed",
        meaning: "reviewed and found adequate",
        notices: [
          {
            to: { userIds: [moc.approverId, moc.originatorId, moc.implementerId] },
            event: `${actor.name} (HSEQ) reviewed the change and found it adequate.`,
            expectation: "Next: the approver decides (Part D).",
          },
        ],
      };
    },
  }),

  approver: step({
    path: "approver",
    part: "Part D (approval)",
    // The approver, then on a High or Extreme MOC the holders of the positions its risk names
    // (docs/decisions/037-risk-ranking-and-approvals.md): risk-approval.server.ts.
    who: secondApprovals(
      independent(
        { ...assigned("approver"), refusal: "Only the assigned approver can decide on this MOC" },
        "approve",
        "approval",
      ),
    ),
    signs: (actor, moc) => {
      const stage = pendingApproval(moc.approval);
      return stage && stage !== "approver" ? `${RISK_LEVEL_LABEL[stage]}-risk approver` : "Approver";
    },
    open: { statuses: ["d"] },
    owner: {
      roles: ["approver"],
      sql: sql`case when ${PENDING_APPROVAL_SQL} in ('high', 'extreme') then ${SECOND_APPROVER_SQL} end`,
    },
    form: approverFormSchema,
    bodyKey: "approver_form",
    apiNote:
      "On a MOC whose `risk_level` is `high` or `extreme` the MOC stays at `d` after the approver's yes, and this same call serves each further approval in turn: a holder of the position configured for High, then (Extreme) of the one for Extreme; each must be independent of the MOC and of the other approvers (docs/decisions/037-risk-ranking-and-approvals.md).",
    async apply(context) {
      const { tx, actor, moc, input, now } = context;
      const stage = pendingApproval(moc.approval);
      if (stage && stage !== "approver") return secondApproval(context, stage);
      const stages = approvalStages(moc.approval?.level);
      if (input["approver-moc-approved"].value === "yes" && stages.length > 1) {
        await saveForm(tx, { mocId: moc.id, kind: "approver", actorId: actor._id, submitted: true, data: input });
        return approvalGiven(context, "approver", stages[1]!);
      }
      await saveForm(tx, { mocId: moc.id, kind: "approver", actorId: actor._id, submitted: true, data: input });
      if (input["approver-moc-approved"].value === "no") {
        const reason = input["decline-reason"]!.value;
        return declined({ actor, moc, now }, reason, {
          stage: "d",
          action: "Declined by the approver",
          where: "at approval (Part D)",
        });
      }
      return {
        to: "e",
        action: moc.temporary ? `Approved as a temporary change until ${moc.temporary.until}` : "Approved",
        meaning: "approved",
        notices: [
          {
            to: { userIds: [moc.originatorId, moc.implementerId, moc.hseqId] },
            event: moc.temporary
              ? `${actor.name} approved this MOC as a temporary change, to end by ${moc.temporary.until}.`
              : `${actor.name} approved this MOC.`,
            expectation: "Next: the implementer carries out the change and reports it (Part E).",
            details: moc.temporary ? [["Temporary until", moc.temporary.until]] : [],
          },
        ],
      };
    },
  }),

  implementation: step({
    path: "implementation",
    part: "Part E (implementation)",
    who: { ...assigned("implementer"), refusal: "Only the assigned implementer can report the implementation" },
    open: { statuses: ["e"] },
    owner: { roles: ["implementer"] },
    form: implementationSchema,
    bodyKey: "implementation",
    async apply({ tx, actor, moc, input, now }) {
      const deviation = input["deviation-during-implementation"].value === "yes";
      const extension = input["moc-require-extension"].value === "yes";
      const details = deviation
        ? sanitizeRequiredRichText(input["deviation-details"]!.value, "deviation-details", "Deviation details")
        : undefined;
      await saveForm(tx, {
        mocId: moc.id,
        kind: "implementation",
        actorId: actor._id,
        submitted: true,
        data: { ...input, ...(details !== undefined ? { "deviation-details": { value: details } } : {}) },
      });
      if (!deviation && !extension) {
        return {
          to: "f",
          action: "Reported the implementation complete",
          notices: [
            {
              to: everyone(moc),
              event: `${actor.name} reported the implementation complete.`,
              expectation: "Next: verification (Part F) by the verifier or the assigned HSEQ user.",
            },
          ],
        };
      }
      const newDate = input["extension-date"]?.value;
      if (extension && newDate! < todayUtc(now)) {
        throw new Invalid("The new target date cannot be in the past", [
          { path: "extension-date", message: "Choose today or a later date" },
        ]);
      }
      const pending = { resolved: false, approved: null, comment: null, resolvedBy: null, resolvedAt: null };
      const tracking: ExtentionsAndDeviations = {
        _id: randomUUID(),
        requestedAt: now.toISOString(),
        requestedBy: actor._id,
        deviation: deviation ? { requested: true, details: details!, ...pending } : null,
        extension: extension
          ? {
              requested: true,
              new_date: newDate!,
              previous_date: moc.targetDate,
              reason: input["extension-reason"]!.value,
              ...pending,
            }
          : null,
      };
      const what = deviation && extension ? "a deviation and an extension" : deviation ? "a deviation" : "an extension";
      return {
        to: "b",
        action: `Requested ${what}`,
        changes: { deviations: tracking },
        notices: [
          {
            to: { userIds: [moc.approverId, moc.hseqId] },
            event: `${actor.name} reported ${what} during implementation.`,
            expectation: "Resolve it: the approver or the assigned HSEQ user approves or rejects each item.",
            details: extension ? [["Requested target date", newDate!]] : [],
          },
        ],
      };
    },
  }),

  "deviation-extension": step({
    path: "deviation",
    part: "the deviation/extension resolution",
    who: independent(
      {
        may: (actor, moc) => moc.approverId === actor._id || moc.hseqId === actor._id,
        sql: (actor) => sql`(m.approver_id = ${actor._id} or m.hseq_id = ${actor._id})`,
        refusal: "Only the approver or the assigned HSEQ user can resolve deviations and extensions",
      },
      "resolve deviations and extensions of",
    ),
    signs: (actor, moc) => (moc.approverId === actor._id ? "Approver" : "HSEQ reviewer"),
    // Status b alone is not enough: the step exists only while a requested item waits.
    open: {
      statuses: ["b"],
      requires: [["deviationOutstanding", true, "No deviation or extension is waiting for a decision on this MOC"]],
    },
    owner: { roles: ["approver", "hseq"], all: true },
    stage: { label: "Deviation/extension decision", part: "e" },
    form: deviationExtensionSchema,
    bodyKey: null,
    async apply({ tx, actor, moc, input, now }) {
      const tracking = await loadDeviations(tx, moc.id);
      if (!tracking || tracking._id !== input.deviationExtentionId)
        throw new NotFound("No such deviation or extension on this MOC");
      const item = input.type === "deviation" ? tracking.deviation : tracking.extension;
      if (!item?.requested) throw new Conflict(`No ${input.type} was requested on this MOC`);
      if (item.resolved) throw new Conflict(`This ${input.type} is already resolved`);
      const resolution = {
        resolved: true,
        approved: input.value.approved,
        comment: input.value.comment || null,
        resolvedBy: actor._id,
        resolvedAt: now.toISOString(),
      };
      const updated: ExtentionsAndDeviations =
        input.type === "deviation"
          ? { ...tracking, deviation: { ...tracking.deviation!, ...resolution } }
          : { ...tracking, extension: { ...tracking.extension!, ...resolution } };
      const changes: Partial<typeof mocs.$inferInsert> = { deviations: updated };
      if (input.type === "extension" && input.value.approved === "yes") {
        const newDate = tracking.extension!.new_date;
        changes.targetDate = newDate;
        await tx.execute(sql`
          update moc_forms set data = jsonb_set(data, '{target-date}', ${JSON.stringify({ value: newDate })}::jsonb, true),
            updated_at = now()
          where moc_id = ${moc.id} and kind = 'implementer'`);
      }
      const done = !deviationOutstanding(updated);
      const verdict = input.value.approved === "yes" ? "approved" : "rejected";
      return {
        to: done ? "f" : "b",
        action: `${verdict === "approved" ? "Approved" : "Rejected"} the ${input.type}`,
        meaning: `${verdict} the ${input.type}`,
        comment: input.value.comment || null,
        changes,
        notices: [
          {
            to: { userIds: [moc.implementerId, moc.originatorId, moc.approverId, moc.hseqId] },
            event: `${actor.name} ${verdict} the ${input.type}.`,
            expectation: done
              ? "Next: verification (Part F) by the verifier or the assigned HSEQ user."
              : "The other requested item is still waiting for a decision.",
            details:
              input.type === "extension" && input.value.approved === "yes"
                ? [["New target date", tracking.extension!.new_date]]
                : [],
          },
        ],
      };
    },
  }),

  verifier: step({
    path: "verifier",
    part: "Part F (verification)",
    who: independent(
      {
        ...VERIFIER_WHO,
        refusal: "Only the verifier (or the assigned HSEQ user when there is none) can verify this MOC",
      },
      "verify",
    ),
    signs: (_actor, moc) => (moc.verifierId ? "Verifier" : "HSEQ reviewer (verifying)"),
    open: { statuses: ["f"] },
    owner: { roles: ["verifier", "hseq"] },
    form: verifierFormSchema,
    bodyKey: "verifier_form",
    apiNote:
      '`close-moc` "yes" closes the MOC only when every action-plan and manuals-plan item is done or cancelled, ' +
      'Part E has a completion date and every other answer is "yes"; otherwise 409 with `issues`, one per open ' +
      "item (path `verifier_form.close-moc`, or the answer's own field). `/api/submit/verifier-return` sends it back instead.",
    async apply({ tx, actor, moc, input, now }) {
      const close = input["close-moc"].value === "yes";
      if (close) {
        // The closure gate (docs/decisions/033-closure-gates.md): every open item is named.
        const blockers = [...closureBlockers(await loadPlanForClosure(tx, moc.id)), ...answerBlockers(input)];
        if (blockers.length) {
          throw new Conflict(
            `This MOC cannot be closed yet: ${blockers.length === 1 ? "one thing is" : `${blockers.length} things are`} still open. Finish or cancel them, or return the MOC to implementation`,
            blockers.map((b) => ({ path: b.field ?? "close-moc", message: b.message })),
          );
        }
      }
      await saveForm(tx, { mocId: moc.id, kind: "verifier", actorId: actor._id, submitted: true, data: input });
      const inEffect = close && moc.temporary ? { ...moc.temporary, state: reopened(moc.temporary, now) } : null;
      return {
        to: "f",
        action: close ? MOC_CLOSED_ACTION : "Recorded the verification; the MOC stays open",
        meaning: close ? "verified and closed" : "verified; the MOC stays open",
        changes: close ? { completed: true, ...(inEffect ? { temporary: inEffect } : {}) } : {},
        notices: [
          {
            to: { userIds: [moc.originatorId, moc.implementerId, moc.hseqId, moc.approverId] },
            event: close
              ? `${actor.name} verified the change and closed this MOC.`
              : `${actor.name} recorded the verification; the MOC stays open.`,
            expectation: close
              ? inEffect
                ? `The temporary change is now in effect until ${inEffect.until}; before then the implementer records it restored, extended or made permanent.`
                : null
              : "The verifier closes the MOC once every check is satisfied.",
          },
        ],
      };
    },
  }),

  // Instead of closing, the verifier sends the MOC back to the implementer (docs/decisions/033).
  "verifier-return": step({
    path: "verifier-return",
    part: "the return to implementation",
    button: "Return to implementation",
    who: independent(
      {
        ...VERIFIER_WHO,
        refusal:
          "Only the verifier (or the assigned HSEQ user when there is none) can return this MOC to implementation",
      },
      "return to implementation",
    ),
    signs: (_actor, moc) => (moc.verifierId ? "Verifier" : "HSEQ reviewer (verifying)"),
    open: { statuses: ["f"], notWaiting: true },
    owner: { roles: ["verifier", "hseq"] },
    form: verifierReturnSchema,
    bodyKey: "verifier_return",
    apiNote:
      "Instead of closing: status `f` -> `e` with the reason, signed as the verification's role, emailed to the " +
      "implementer, who then reports Part E again through `/api/submit/implementation`.",
    async apply({ actor, moc, input }) {
      const reason = input["return-reason"].value;
      return {
        to: "e",
        action: RETURNED_TO_IMPLEMENTATION,
        meaning: "returned to implementation",
        comment: reason,
        notices: [
          {
            to: { userIds: [moc.implementerId, moc.originatorId] },
            event: `${actor.name} returned this MOC to implementation instead of closing it.`,
            expectation: "Next: the implementer finishes the implementation and reports it again (Part E).",
            details: [["Reason", reason]],
          },
        ],
      };
    },
  }),

  // The end of a temporary change (docs/decisions/023-temporary-changes-and-delegation.md): open on
  // the verified and closed MOC, in effect or past its end with nothing recorded yet.
  "temporary-restored": step({
    path: "temporary-restored",
    part: "the restoration of the temporary change",
    button: "Report the original condition restored",
    who: {
      ...assigned("implementer"),
      refusal: "Only the assigned implementer can report the original condition restored",
      // Expired and not restored, it is the open work of its originator and of the HSEQ department
      // too (docs/decisions/033-closure-gates.md), until restored, extended or made permanent.
      waitsOn: {
        may: (actor, moc) => isHseq(actor) || moc.implementerId === actor._id || moc.originatorId === actor._id,
        sql: (actor) =>
          isHseq(actor) ? sql`true` : sql`(m.implementer_id = ${actor._id} or m.originator_id = ${actor._id})`,
      },
    },
    open: { statuses: ["f"], completed: true, requires: [TEMPORARY_OPEN], waitsWhen: "temporaryExpired" },
    owner: { roles: ["implementer"] },
    flagged: [["temporaryExpired", EXPIRED_NOT_RESTORED]],
    form: temporaryRestoredSchema,
    bodyKey: "temporary_restoration",
    async apply({ actor, moc, input, now }) {
      const temporary = requireTemporary(moc);
      const details = input["restoration-details"].value;
      return {
        to: "f",
        action: TRAIL_ACTIONS.restored,
        comment: details,
        changes: {
          temporary: {
            ...temporary,
            state: "restoration-reported",
            restoration: {
              details,
              reportedBy: actor._id,
              reportedAt: now.toISOString(),
              confirmed: null,
              comment: null,
              confirmedBy: null,
              confirmedAt: null,
            },
          },
        },
        notices: [
          {
            to: { userIds: [moc.hseqId] },
            event: `${actor.name} reported the original condition restored after the temporary change.`,
            expectation: "Confirm the restoration, or say what is still to be restored.",
            details: [["What was done", details]],
          },
        ],
      };
    },
  }),

  "temporary-confirm": step({
    path: "temporary-confirm",
    part: "the HSEQ confirmation of the restoration",
    button: "Confirm the restoration",
    who: independent(
      { ...assigned("hseq"), refusal: "Only the assigned HSEQ user can confirm the restoration" },
      "confirm the restoration of",
    ),
    open: {
      statuses: ["f"],
      completed: true,
      requires: [["restorationReported", true, "No restoration is waiting for confirmation on this MOC"]],
    },
    owner: { roles: ["hseq"], suffix: " (HSEQ)" },
    form: temporaryConfirmSchema,
    bodyKey: "temporary_confirmation",
    async apply({ actor, moc, input, now }) {
      const temporary = requireTemporary(moc);
      const confirmed = input["restoration-confirmed"].value === "yes";
      const comment = input["confirm-comment"]?.value || null;
      const restoration = {
        ...temporary.restoration!,
        confirmed,
        comment,
        confirmedBy: actor._id,
        confirmedAt: now.toISOString(),
      };
      return {
        to: "f",
        action: confirmed ? "Confirmed the original condition restored" : "Did not confirm the restoration",
        comment,
        changes: {
          temporary: { ...temporary, state: confirmed ? "restored" : reopened(temporary, now), restoration },
        },
        notices: [
          {
            to: { userIds: [moc.implementerId, moc.originatorId, moc.approverId] },
            event: confirmed
              ? `${actor.name} (HSEQ) confirmed the original condition restored; the temporary change has ended.`
              : `${actor.name} (HSEQ) did not confirm the restoration.`,
            expectation: confirmed
              ? null
              : `Restore the original condition and report it again, or record an extension or a permanent change (end date ${temporary.until}).`,
            details: comment ? [["Comment", comment]] : [],
          },
        ],
      };
    },
  }),

  "temporary-extension": step({
    path: "temporary-extension",
    part: "the extension of the temporary change",
    button: "Ask to extend the temporary change",
    who: {
      ...assigned("implementer"),
      refusal: "Only the assigned implementer can ask to extend the temporary change",
    },
    open: { statuses: ["f"], completed: true, requires: [TEMPORARY_OPEN], notWaiting: true },
    owner: { roles: ["implementer"] },
    form: temporaryExtensionSchema,
    bodyKey: "temporary_extension",
    async apply({ actor, moc, input, now }) {
      const temporary = requireTemporary(moc);
      const newDate = input["temporary-new-until"].value;
      if (newDate <= temporary.until || newDate < todayUtc(now)) {
        throw new Invalid("The new end date must be after the current one and not in the past", [
          { path: "temporary-new-until", message: `Choose a date after ${temporary.until}, today or later` },
        ]);
      }
      const reason = input["temporary-extension-reason"].value;
      return {
        to: "f",
        action: `${TRAIL_ACTIONS.extensionAsked}${newDate}`,
        comment: reason,
        changes: {
          temporary: {
            ...temporary,
            state: "extension-requested",
            extension: {
              new_date: newDate,
              previous_date: temporary.until,
              reason,
              requestedBy: actor._id,
              requestedAt: now.toISOString(),
              approved: null,
              comment: null,
              resolvedBy: null,
              resolvedAt: null,
            },
          },
        },
        notices: [
          {
            to: { userIds: [moc.approverId] },
            event: `${actor.name} asked to extend the temporary change from ${temporary.until} to ${newDate}.`,
            expectation: "Approve or reject the extension.",
            details: [
              ["Requested end date", newDate],
              ["Reason", reason],
            ],
          },
        ],
      };
    },
  }),

  "temporary-extension-decision": step({
    path: "temporary-extension-decision",
    part: "the decision on extending the temporary change",
    button: "Decide on the extension",
    who: independent(
      { ...assigned("approver"), refusal: "Only the assigned approver can decide on extending the temporary change" },
      "decide on extending",
    ),
    open: {
      statuses: ["f"],
      completed: true,
      requires: [
        ["temporaryExtensionRequested", true, "No extension of the temporary change is waiting for a decision"],
      ],
    },
    owner: { roles: ["approver"] },
    form: temporaryExtensionDecisionSchema,
    bodyKey: "temporary_extension_decision",
    async apply({ actor, moc, input, now }) {
      const temporary = requireTemporary(moc);
      const approved = input["extension-approved"].value === "yes";
      const comment = input["extension-comment"]?.value || null;
      const extension = {
        ...temporary.extension!,
        approved: input["extension-approved"].value,
        comment,
        resolvedBy: actor._id,
        resolvedAt: now.toISOString(),
      };
      const until = approved ? extension.new_date : temporary.until;
      const next: TemporaryChange = {
        ...temporary,
        until,
        extension,
        expired_since: approved ? null : temporary.expired_since,
      };
      next.state = reopened(next, now);
      return {
        to: "f",
        action: approved
          ? `Extended the temporary change to ${until}`
          : "Rejected the extension of the temporary change",
        comment,
        changes: { temporary: next },
        notices: [
          {
            to: { userIds: [moc.implementerId, moc.originatorId, moc.hseqId] },
            event: approved
              ? `${actor.name} extended the temporary change to ${until}.`
              : `${actor.name} rejected extending the temporary change.`,
            expectation: approved
              ? `Before ${until}, restore the original condition or make the change permanent.`
              : `Restore the original condition by ${until}, or make the change permanent.`,
            details: [["End date", until], ...(comment ? ([["Comment", comment]] as [string, string][]) : [])],
          },
        ],
      };
    },
  }),

  "temporary-permanent": step({
    path: "temporary-permanent",
    part: "making the temporary change permanent",
    button: "Make the change permanent",
    who: {
      ...assigned("implementer"),
      refusal: "Only the assigned implementer can make the temporary change permanent",
    },
    open: { statuses: ["f"], completed: true, requires: [TEMPORARY_OPEN], notWaiting: true },
    owner: { roles: ["implementer"] },
    form: temporaryPermanentSchema,
    bodyKey: "temporary_permanent",
    async apply({ tx, actor, moc, input }) {
      const temporary = requireTemporary(moc);
      const reason = input["permanent-reason"].value;
      const clone = await cloneMocInto(tx, actor, moc, { permanent: { reason } });
      return {
        to: "f",
        action: `${TRAIL_ACTIONS.permanent}: continued as ${mocLabel(clone.serialNum)}`,
        comment: reason,
        changes: { temporary: { ...temporary, state: "made-permanent", permanent_moc: clone.id } },
        notices: [
          {
            to: everyone(moc),
            event: `${actor.name} is making the temporary change permanent: ${mocLabel(clone.serialNum)}, cloned from this MOC, assesses it.`,
            expectation: `The temporary change is no longer tracked here; ${mocLabel(clone.serialNum)} goes through assessment, approval and verification.`,
            details: [
              ["New MOC", mocLabel(clone.serialNum)],
              ["Reason", reason],
            ],
          },
        ],
      };
    },
  }),
} satisfies Record<MocStep, unknown>;

/** The form a step's page posts and its API body carries. */
export type StepInput<S extends MocStep> = z.output<(typeof STEPS)[S]["form"]>;

type AnyStep = StepDefinition<z.ZodType>;
const definition = (s: MocStep) => STEPS[s] as unknown as AnyStep;

/** A step's API body: its form under `bodyKey` beside `moc_id`, or the form itself; read as `{ moc_id, form }`. */
export function stepBodySchema<S extends MocStep>(s: S): z.ZodType<{ moc_id: string; form: StepInput<S> }> {
  const { bodyKey } = definition(s);
  return stepBodyShape(s).transform((body) => {
    const record = body as Record<string, unknown> & { moc_id: string };
    return { moc_id: record.moc_id, form: (bodyKey === null ? record : record[bodyKey]) as StepInput<S> };
  });
}

/** The raw API body schema of a step (the OpenAPI document describes it). */
export function stepBodyShape(s: MocStep): z.ZodType {
  const { form, bodyKey } = definition(s);
  return bodyKey === null ? form : z.object({ moc_id: uuid("MOC id"), [bodyKey]: form });
}

// ---------------------------------------------------------------------------------------------
// What the definitions give everyone else

/** Who may submit the step (its status is `whyClosed`'s business). */
export const mayAct = (s: MocStep, actor: Actor, moc: MocAccess) => STEPS[s].who.may(actor, moc);

/** The 403 message for someone `mayAct` refuses: why four eyes refuses them, or the step's refusal. */
export const refusalFor = (s: MocStep, actor: Actor, moc: MocAccess): string => {
  const who = definition(s).who;
  return who.conflict?.(actor, moc) ?? who.refusal;
};

/**
 * Assignments of this MOC that already break four eyes (records from before the rule): one
 * sentence each, naming who may reassign. The record page shows them; the step refuses meanwhile.
 */
export function fourEyesConflicts(moc: MocAccess & MocProgress): string[] {
  const checkers: [Role, string, string | null][] = [
    ["approver", "approve it", moc.approverId],
    ["verifier", "verify it", moc.verifierId],
    ["hseq", moc.verifierId ? "resolve its deviations and extensions" : "verify it", moc.hseqId],
  ];
  return checkers.flatMap(([role, doing, id]) => {
    const dependence = id ? dependenceOf(id, moc, role === "approver" ? "approval" : "check") : null;
    if (!dependence) return [];
    const label = role === "hseq" ? "assigned HSEQ user" : role;
    const fix =
      role === "hseq"
        ? "The implementer names another HSEQ user in Part B while the MOC is at the assessment; otherwise an admin assigns a verifier."
        : role === "approver" && isDecisionPending("approver", moc)
          ? // docs/decisions/034-approved-content-and-deleting.md: a pending decider changes by admins or HSEQ.
            "An admin or the HSEQ department can assign another approver below, giving the reason."
          : `The originator or an admin can assign another ${role} below.`;
    return [`The ${label} is also ${dependence} of this MOC, so they cannot ${doing} (four eyes). ${fix}`];
  });
}

/**
 * Four eyes for the acting person: a check-step (`independent`) taken on someone's behalf needs
 * the delegate, too, to be independent of the MOC (`isIndependentOf`, the one rule).
 */
const actingIndependent = (s: MocStep, acting: Actor, moc: MocAccess) => {
  const kind = (STEPS[s] as AnyStep).who.independent;
  return !kind || isIndependentOf(acting._id, moc, kind);
};

/** `actingIndependent` as SQL over `m`, for the step named by `step` (a SQL text value). */
export const actingIndependentSql = (step: SQL, acting: Actor): SQL => {
  const checks = MOC_STEPS.filter((s) => (STEPS[s] as AnyStep).who.independent);
  return sql`(case ${step} ${sql.join(
    checks.map(
      (s) => sql`when ${literal(s)} then ${independentSql(acting._id, (STEPS[s] as AnyStep).who.independent)}`,
    ),
    sql` `,
  )} else true end)`;
};

/**
 * Whether `acting` may take the step, and for whom: themselves (`onBehalfOf` null) when the step's
 * rule names them, else the first of `principals` (the absent people who delegated to them today,
 * docs/decisions/023-temporary-changes-and-delegation.md) whom it names as the step's owner
 * (`ownsStep`: their own assignment), provided the acting person passes the four-eyes rule as a
 * person. Null when neither.
 */
export function actingFor(
  s: MocStep,
  acting: Actor,
  moc: MocAccess,
  principals: readonly Actor[] = [],
): { onBehalfOf: Actor | null } | null {
  if (mayAct(s, acting, moc)) return { onBehalfOf: null };
  if (!actingIndependent(s, acting, moc)) return null;
  const principal = principals.find((p) => mayAct(s, p, moc) && ownsStep(s, p, moc));
  return principal ? { onBehalfOf: principal } : null;
}

/**
 * The step is the person's own assignment: the MOC names them in one of the roles that own it
 * (`owner.roles`). What a delegate may take for them (docs/decisions/026-four-eyes-by-record.md): not what a department
 * (any HSEQ member's review) or an account (an admin finishing a draft) would allow.
 */
export const ownsStep = (s: MocStep, person: Actor, moc: MocAccess) =>
  STEPS[s].owner.roles.some((role) => moc[`${role}Id` as const] === person._id);

/** `ownsStep` as SQL over `m`, for the step named by `step` (a SQL text value). */
export const ownedStepSql = (step: SQL, person: Actor): SQL =>
  sql`(case ${step} ${sql.join(
    MOC_STEPS.map(
      (s) =>
        sql`when ${literal(s)} then (${sql.join(
          STEPS[s].owner.roles.map((role) => sql`${ROLES[role].column} is not distinct from ${person._id}::uuid`),
          sql` or `,
        )})`,
    ),
    sql` `,
  )} else false end)`;

/**
 * Why the step cannot be submitted now (a 409 reason), or null when it is open. The status
 * message names the step: "This MOC is at approval, so Part E (implementation) cannot be submitted".
 */
export function whyClosed(s: MocStep, state: MocState, statusLabel: (status: string) => string): string | null {
  const { open, part } = STEPS[s];
  if (
    state.completed !== Boolean(open.completed) ||
    state.isDeleted ||
    !open.statuses.includes(state.status as MocStatus)
  ) {
    const now = state.completed ? "completed" : `at ${statusLabel(state.status)}`;
    if (open.completed && !state.completed && !state.isDeleted) {
      return `This MOC is ${now}, so ${part} cannot be recorded until it is verified and closed`;
    }
    return `This MOC is ${now}, so ${part} cannot be submitted`;
  }
  for (const [condition, holds, reason] of open.requires ?? []) {
    if (state[condition] !== holds) return reason;
  }
  return null;
}

export const isStepOpen = (s: MocStep, state: MocState) => whyClosed(s, state, String) === null;

const waitsIn = (s: MocStep, state: MocState) => {
  const open = (STEPS[s] as AnyStep).open;
  return (
    !open.notWaiting &&
    !(open.notWaitingIn ?? []).includes(state.status as MocStatus) &&
    (!open.waitsWhen || state[open.waitsWhen])
  );
};

/** The step the MOC waits for now, or null when nothing is open. */
export const stepWaiting = (state: MocState): MocStep | null =>
  MOC_STEPS.find((s) => isStepOpen(s, state) && waitsIn(s, state)) ?? null;

/** Steps this actor can submit right now. */
export const openStepsFor = (
  actor: Actor,
  access: MocAccess,
  state: MocState,
  principals: readonly Actor[] = [],
): MocStep[] => MOC_STEPS.filter((s) => isStepOpen(s, state) && actingFor(s, actor, access, principals) !== null);

/** The step waits on this actor now ("waiting on me"): `pendingStepSql`'s twin. */
export function waitsOnActor(s: MocStep, actor: Actor, access: MocAccess, state: MocState): boolean {
  const who = STEPS[s].who as AnyStep["who"];
  return isStepOpen(s, state) && waitsIn(s, state) && (who.waitsOn ?? who).may(actor, access);
}

/**
 * Where the MOC stands, for its badge and the stepper: the waiting step's own stage when it has
 * one (a deviation decision reads as such, at E), else the status's.
 */
export function currentStage(state: MocState): { label: string | null; part: string } {
  const waiting = stepWaiting(state);
  const definition = waiting ? (STEPS[waiting] as AnyStep) : undefined;
  const flag = definition?.flagged?.find(([condition]) => state[condition]);
  const stage = definition?.stage;
  if (flag) return { label: flag[1], part: stage?.part ?? state.status };
  return stage ? { label: stage.label, part: stage.part } : { label: null, part: state.status };
}

/** Who owns the step the MOC waits for, in words (the record's owner line and stepper). */
export function currentOwner(doc: MocDocument): string | null {
  const waiting = stepWaiting(stateOfDocument(doc));
  if (!waiting) return null;
  const owner = STEPS[waiting].owner;
  const names = owner.roles.map((role) => (doc[ROLES[role].doc] as UserJson | null)?.name ?? null);
  const named = owner.all ? names.filter(Boolean).join(" or ") || null : (names.find(Boolean) ?? null);
  return named ? named + (owner.suffix ?? "") : (owner.otherwise ?? null);
}

const nameSql = (role: Role) => sql`(select name from users where id = ${ROLES[role].column})`;

/** `currentOwner` as SQL over `m` (the list's "waiting on" column, the reminders). */
export const OWNER_SQL: SQL = sql`case
  when m.is_deleted or m.status = 'decline' then null
  ${sql.join(
    MOC_STEPS.filter((s) => !STEPS[s].open.notWaiting).map((s) => {
      const owner = STEPS[s].owner;
      const names = owner.roles.map(nameSql);
      const named = owner.all
        ? sql`nullif(concat_ws(' or ', ${sql.join(names, sql`, `)}), '')`
        : sql`coalesce(${sql.join(names, sql`, `)})`;
      const withSuffix = owner.suffix ? sql`${named} || ${literal(owner.suffix)}` : named;
      const first = (owner as AnyStep["owner"]).sql;
      const full = owner.otherwise ? sql`coalesce(${withSuffix}, ${literal(owner.otherwise)})` : withSuffix;
      return sql`when ${waitingSql(s)} then ${first ? sql`coalesce(${first}, ${full})` : full}`;
    }),
    sql` `,
  )}
end`;

/** The step is open and the MOC waits on it, as SQL over `m` (not deleted or declined is the caller's). */
function waitingSql(s: MocStep): SQL {
  const open = STEPS[s].open;
  const statuses = open.statuses.filter((status) => !(open.notWaitingIn ?? []).includes(status));
  const conditions = (open.requires ?? []).map(([condition, holds]) =>
    holds ? CONDITION_SQL[condition] : sql`not ${CONDITION_SQL[condition]}`,
  );
  const waitsWhen = (open as AnyStep["open"]).waitsWhen;
  if (waitsWhen) conditions.push(CONDITION_SQL[waitsWhen]);
  return sql.join(
    [
      open.completed ? sql`m.completed` : sql`not m.completed`,
      sql`m.status in (${sql.join(statuses.map(literal), sql`, `)})`,
      ...conditions,
    ],
    sql` and `,
  );
}

/** The step the MOC waits for now, as SQL over `m` naming it (null for none): `stepWaiting`'s twin. */
export const WAITING_STEP_SQL: SQL = sql`case
  when m.is_deleted or m.status = 'decline' then null
  ${sql.join(
    MOC_STEPS.filter((s) => !STEPS[s].open.notWaiting).map((s) => sql`when ${waitingSql(s)} then ${literal(s)}`),
    sql` `,
  )}
end`;

/**
 * `currentStage`'s label as SQL over `m` (null: the status's own), for the list's status column
 * and the dashboard: a step's `flagged` labels first, then its `stage`.
 */
export const STAGE_LABEL_SQL: SQL = sql`case
  when m.is_deleted or m.status = 'decline' then null
  ${sql.join(
    MOC_STEPS.flatMap((s) => {
      const definition = STEPS[s] as AnyStep;
      if (definition.open.notWaiting) return [];
      return [
        ...(definition.flagged ?? []).map(
          ([condition, label]) => sql`when ${waitingSql(s)} and ${CONDITION_SQL[condition]} then ${literal(label)}`,
        ),
        ...(definition.stage ? [sql`when ${waitingSql(s)} then ${literal(definition.stage.label)}`] : []),
      ];
    }),
    sql` `,
  )}
end`;

/** Whether the actor may submit the step named by `step` (a SQL text value), as SQL over `m`: `mayAct`'s twin. */
export const mayActSql = (step: SQL, actor: Actor): SQL =>
  sql`(case ${step} ${sql.join(
    MOC_STEPS.map((s) => sql`when ${literal(s)} then ${STEPS[s].who.sql(actor)}`),
    sql` `,
  )} else false end)`;

/** The steps that wait on the actor, as a SQL `case` over `m` naming the step (null for none). */
export const pendingStepSql = (actor: Actor): SQL => sql`case
  ${sql.join(
    MOC_STEPS.filter((s) => !STEPS[s].open.notWaiting).map((s) => {
      const who = STEPS[s].who as AnyStep["who"];
      return sql`when ${waitingSql(s)} and ${(who.waitsOn ?? who).sql(actor)} then ${literal(s)}`;
    }),
    sql` `,
  )}
end`;

/** The pages' view of the steps: path and label, for links and buttons. */
export const stepLink = (s: MocStep) => ({
  step: s,
  path: STEPS[s].path,
  part: STEPS[s].part,
  button: (STEPS[s] as AnyStep).button ?? null,
});

export type { StepDefinition };
