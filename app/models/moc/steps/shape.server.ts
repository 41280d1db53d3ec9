/**
 * What the MOC steps share (docs/decisions/018-layout-and-step-definitions.md): the step names in
 * order, the state the rules look at and its SQL twins over `m`, the roles, the shape of a step on
 * the engine (workflow/engine.server.ts) and the small helpers the definitions by part use.
 */
import { sql, type SQL } from "drizzle-orm";
import type { mocs, ExtentionsAndDeviations, TemporaryChange } from "#db/schema";
import type { MocStatus } from "#db/schema/enums";
import { type z } from "zod";
import type { Transaction } from "~/utils/db.server";
import { Conflict } from "~/utils/errors";
import type { Actor, MocAccess } from "../../authz/authz.server";
import type { Recipients } from "../../messages/email.server";
import {
  completionReportDue,
  deviationOutstanding,
  temporaryStateOn,
  unresolved,
  type MocDocument,
} from "../moc-document";
import { approvalLevel, approvalOwed, approvalRound, type ApprovalStage } from "../../risk/risk";
import { PENDING_APPROVAL_SQL } from "../../authz/risk-approval.server";
import type { PublicUser } from "../../people/user.server";
import type { CheckKind } from "../moc-four-eyes.server";
import type { StepDef } from "../../workflow/engine.server";

export const MOC_STEPS = [
  "originator",
  "implementer",
  "hseq",
  "approver",
  "implementation",
  "deviation-extension",
  "completion-report",
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
  /** Only the requested deviation waits for its decision (the stage reads "Deviation decision"). */
  deviationDecisionOnly: boolean;
  /** Only the requested extension waits for its decision ("Extension decision"). */
  extensionDecisionOnly: boolean;
  /** Every requested deviation and extension decided, the implementer's completion report not given yet. */
  completionReportDue: boolean;
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
  /** A High or Extreme MOC at `d` waits on its second approval, by the holder of the position set for High. */
  secondApprovalWaiting: boolean;
  /** An Extreme MOC at `d` waits on its third approval, by the holder of the position set for Extreme. */
  thirdApprovalWaiting: boolean;
};
export type Condition = Exclude<keyof MocState, "status" | "completed" | "isDeleted">;

/** A requested deviation or extension of `m` still waits for its resolution (any status). */
export const DEVIATION_OUTSTANDING = sql`(m.deviations is not null and (
      (m.deviations->'deviation' is not null and m.deviations->'deviation' <> 'null'::jsonb and not (m.deviations->'deviation'->>'resolved')::boolean)
   or (m.deviations->'extension' is not null and m.deviations->'extension' <> 'null'::jsonb and not (m.deviations->'extension'->>'resolved')::boolean)))`;

/** One requested item of `m`'s tracking (`deviation` or `extension`) waits for its decision: `unresolved` over `m`. */
const UNDECIDED = (item: "deviation" | "extension") =>
  sql`coalesce(jsonb_typeof(m.deviations->${sql.raw(`'${item}'`)}) = 'object' and not (m.deviations->${sql.raw(`'${item}'`)}->>'resolved')::boolean, false)`;

/** `completionReportDue` (moc-document.ts) over `m`. */
export const COMPLETION_REPORT_DUE = sql`(m.deviations is not null and m.deviations <> 'null'::jsonb
  and (coalesce((m.deviations->'deviation'->>'requested')::boolean, false)
    or coalesce((m.deviations->'extension'->>'requested')::boolean, false))
  and not ${DEVIATION_OUTSTANDING}
  and (m.deviations->'completion' is null or m.deviations->'completion' = 'null'::jsonb))`;

const IMPLEMENTER_SUBMITTED_SQL = sql`exists (select 1 from moc_forms f where f.moc_id = m.id and f.kind = 'implementer' and f.submitted_at is not null)`;

/**
 * A temporary change of `m` expired and not restored: recorded as expired, or in effect past its
 * end date before the daily run records it (`temporaryStateOn`'s rule, as `temporaryStateSql`).
 */
export const TEMPORARY_EXPIRED_SQL = sql`coalesce(m.temporary->>'state' = 'expired' or (m.temporary->>'state' = 'in-effect'
  and (m.temporary->>'until')::date < (now() at time zone 'UTC')::date), false)`;

export const CONDITION_SQL: Record<Condition, SQL> = {
  deviationOutstanding: DEVIATION_OUTSTANDING,
  completionReportDue: COMPLETION_REPORT_DUE,
  deviationDecisionOnly: sql`(${UNDECIDED("deviation")} and not ${UNDECIDED("extension")})`,
  extensionDecisionOnly: sql`(${UNDECIDED("extension")} and not ${UNDECIDED("deviation")})`,
  implementerSubmitted: IMPLEMENTER_SUBMITTED_SQL,
  returnedByHseq: sql`(m.status = 'b' and ${IMPLEMENTER_SUBMITTED_SQL} and not ${DEVIATION_OUTSTANDING})`,
  temporaryExpired: TEMPORARY_EXPIRED_SQL,
  temporaryOpen: sql`coalesce(m.temporary->>'state' in ('in-effect', 'expired'), false)`,
  restorationReported: sql`coalesce(m.temporary->>'state' = 'restoration-reported', false)`,
  temporaryExtensionRequested: sql`coalesce(m.temporary->>'state' = 'extension-requested', false)`,
  secondApprovalWaiting: sql`(m.status = 'd' and coalesce(${PENDING_APPROVAL_SQL} = 'high', false))`,
  thirdApprovalWaiting: sql`(m.status = 'd' and coalesce(${PENDING_APPROVAL_SQL} = 'extreme', false))`,
};

/**
 * Which of the staged approvals a MOC waits on (docs/decisions/037-risk-ranking-and-approvals.md),
 * from its status and the approval owed (`pendingApproval`, or `approvalOwed` over a document's
 * trail): the stage reads "Second approval" or "Third approval" rather than the approver's.
 */
export const approvalConditions = (status: string, owed: ApprovalStage | null) => ({
  secondApprovalWaiting: status === "d" && owed === "high",
  thirdApprovalWaiting: status === "d" && owed === "extreme",
});

/** The recorded state of a temporary change as the rules read it (one place for its conditions), on `now`. */
export const temporaryConditions = (temporary: TemporaryChange | null | undefined, now = new Date()) => ({
  temporaryOpen: temporary?.state === "in-effect" || temporary?.state === "expired",
  restorationReported: temporary?.state === "restoration-reported",
  temporaryExtensionRequested: temporary?.state === "extension-requested",
  temporaryExpired: temporaryStateOn(temporary, todayUtc(now)) === "expired",
});

/**
 * What a MOC's deviation/extension tracking opens and names, as the rules read it (one place for
 * the page's state and the step's): an item waiting, which one alone, the completion report owed.
 */
export const deviationConditions = (tracking: ExtentionsAndDeviations | null | undefined) => ({
  deviationOutstanding: deviationOutstanding(tracking),
  completionReportDue: completionReportDue(tracking),
  deviationDecisionOnly: unresolved(tracking?.deviation) && !unresolved(tracking?.extension),
  extensionDecisionOnly: unresolved(tracking?.extension) && !unresolved(tracking?.deviation),
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
    ...deviationConditions(doc.extentionsAndDeviations),
    implementerSubmitted: Boolean(doc.implementer_form?.submittedAt),
    ...temporaryConditions(doc.temporary),
    ...approvalConditions(
      doc.status,
      approvalOwed(
        approvalLevel({ level: doc.risk_level, reviewed: doc.reviewed_risk_level }),
        approvalRound(doc.logs).given.length,
      ),
    ),
  };
  return { ...state, returnedByHseq: returnedByHseq(state) };
};

/** The roles a MOC names, as document keys and columns of `m`. */
export const ROLES = {
  originator: { doc: "originator_id", column: sql`m.originator_id` },
  implementer: { doc: "implementer_id", column: sql`m.implementer_id` },
  approver: { doc: "approver_id", column: sql`m.approver_id` },
  hseq: { doc: "hseq_id", column: sql`m.hseq_id` },
  verifier: { doc: "verifier_id", column: sql`m.verifier_id` },
} as const;
export type Role = keyof typeof ROLES;

/** A constant of the code as an SQL literal, so the query text (and its plan) stays the same. */
// ---------------------------------------------------------------------------------------------
// The shape of a step

export type Moc = MocAccess & {
  id: string;
  serialNum: string;
  targetDate: string | null;
  temporary: TemporaryChange | null;
};

export type Notice = { to: Recipients; event: string; expectation: string | null; details?: [string, string][] };

export type Outcome = {
  to: MocStatus;
  action: string;
  /** What the signature of a decision means ("approved", "returned to implementer"), for `signs` steps. */
  meaning?: string;
  comment?: string | null;
  changes?: Partial<typeof mocs.$inferInsert>;
  notices?: Notice[];
};

/** The MOC as a record kind of the engine: what its rules read and what its steps are given. */
export type MocKind = {
  access: MocAccess;
  condition: Condition;
  state: MocState;
  role: Role;
  status: MocStatus;
  check: CheckKind;
  context: { tx: Transaction; actor: PublicUser; moc: Moc; now: Date };
  outcome: Outcome;
};

export type StepContext<I> = MocKind["context"] & { input: I };

/**
 * A MOC step: its path and label, who may act (with the refusal message, and the same rule as SQL
 * over `m`), when it is open, who owns it while the MOC waits on it, its form and API body key,
 * and what it does (workflow/engine.server.ts `StepDef` says each field).
 */
export type StepDefinition<Form extends z.ZodType> = StepDef<MocKind, Form>;

export const step = <Form extends z.ZodType>(definition: StepDefinition<Form>) => definition;

/** Everyone involved, as "all MOC users" in the Events table means. */
export const everyone = (moc: Moc): Recipients => ({ userIds: [...moc.allUserIds] });

export const todayUtc = (now: Date) => now.toISOString().slice(0, 10);

export const assigned = (role: Role) => ({
  may: (actor: Actor, moc: MocAccess) => moc[`${role}Id` as const] === actor._id,
  sql: (actor: Actor) => sql`${ROLES[role].column} = ${actor._id}`,
});

export async function loadDeviations(tx: Transaction, mocId: string): Promise<ExtentionsAndDeviations | null> {
  const [row] = await tx.execute<{ deviations: ExtentionsAndDeviations | null }>(
    sql`select deviations from mocs where id = ${mocId}`,
  );
  return row?.deviations ?? null;
}

/** A decline at `stage`: the reason in the log and on the MOC, everyone involved told. */
export function declined(
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

export const TEMPORARY_OPEN: [Condition, boolean, string] = [
  "temporaryOpen",
  true,
  "This MOC is not a temporary change in effect, or its ending is already recorded",
];

export function requireTemporary(moc: Moc): TemporaryChange {
  if (!moc.temporary) throw new Conflict("This MOC is not a temporary change");
  return moc.temporary;
}

/** In effect again (or expired, past its end): where a temporary change goes back to when nothing ends it. */
export const reopened = (temporary: TemporaryChange, now: Date): "in-effect" | "expired" =>
  temporary.until < todayUtc(now) ? "expired" : "in-effect";
