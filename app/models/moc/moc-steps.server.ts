/**
 * The MOC steps, each declared once (docs/decisions/018-layout-and-step-definitions.md), as a
 * workflow of the engine (workflow/engine.server.ts, docs/decisions/046-workflow-engine.md): the
 * definitions by part live in steps/, four eyes in moc-four-eyes.server.ts. Authorization, the
 * workflow (`runStep`), the step pages, the record's owner line, the list's "waiting on" column,
 * the pending actions and the dashboard all read what this module gives; adding a rule to a step
 * is one edit in its part's file.
 */
import { sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { UserJson, MocDocument } from "./moc-document";
import { dependenceOf, independentSql, type CheckKind } from "./moc-four-eyes.server";
import { uuid } from "../shared/fields.schema";
import { MOC_STATUS_LABELS, mocStatusLabel } from "./moc-status";
import type { MocState } from "./steps/shape.server";
import { APPROVAL_STEPS } from "./steps/approval.server";
import { IMPLEMENTATION_STEPS } from "./steps/implementation.server";
import { PART_A_B_STEPS } from "./steps/part-a-b.server";
import { CONDITION_SQL, MOC_STEPS, ROLES, stateOfDocument, type MocKind, type MocStep } from "./steps/shape.server";
import { TEMPORARY_STEPS } from "./steps/temporary.server";
import { defineWorkflow } from "../workflow/engine.server";

export {
  DEVIATION_OUTSTANDING,
  MOC_STEPS,
  returnedByHseq,
  stateOfDocument,
  TEMPORARY_EXPIRED_SQL,
  temporaryConditions,
  type MocState,
  type MocStep,
  type Outcome,
  type StepContext,
  type StepDefinition,
} from "./steps/shape.server";
export {
  ACTED_SQL,
  dependenceOf,
  FOUR_EYES_ASSIGNMENT,
  fourEyesAssignment,
  fourEyesConflicts,
  independentSql,
  isIndependentOf,
  NOBODY_ACTED,
  TRAIL_ACTIONS,
  type CheckKind,
} from "./moc-four-eyes.server";
import { DEVIATION_DECISION, MOC_CLOSED_ACTION } from "./steps/implementation.server";
export { DEVIATION_DECISION, MOC_CLOSED_ACTION, RETURNED_TO_IMPLEMENTATION } from "./steps/implementation.server";

/** Every MOC step, by name; `MOC_STEPS` orders them (the first open one is what the MOC waits for). */
export const STEPS = {
  ...PART_A_B_STEPS,
  ...APPROVAL_STEPS,
  ...IMPLEMENTATION_STEPS,
  ...TEMPORARY_STEPS,
} satisfies Record<MocStep, unknown>;

/** The MOC's workflow: its rules over `mocs m`; moc-workflow.server.ts gives it its load and move. */
export const MOC_WORKFLOW = defineWorkflow<MocKind, typeof STEPS>(
  {
    kind: "moc",
    noun: "MOC",
    alias: "m",
    roles: {
      originator: { holder: (moc) => moc.originatorId, column: ROLES.originator.column },
      implementer: { holder: (moc) => moc.implementerId, column: ROLES.implementer.column },
      approver: { holder: (moc) => moc.approverId, column: ROLES.approver.column },
      hseq: { holder: (moc) => moc.hseqId, column: ROLES.hseq.column },
      verifier: { holder: (moc) => moc.verifierId, column: ROLES.verifier.column },
    },
    conditions: CONDITION_SQL,
    restingSql: sql`m.is_deleted or m.status = 'decline'`,
    independence: { dependenceOf, independentSql, defaultCheck: "check" satisfies CheckKind },
    statusLabel: (status) => mocStatusLabel(status).toLowerCase(),
  },
  MOC_STEPS,
  STEPS,
);

/** The form a step's page posts and its API body carries. */
export type StepInput<S extends MocStep> = z.output<(typeof STEPS)[S]["form"]>;

/** A step's API body: its form under `bodyKey` beside `moc_id`, or the form itself; read as `{ moc_id, form }`. */
export function stepBodySchema<S extends MocStep>(s: S): z.ZodType<{ moc_id: string; form: StepInput<S> }> {
  const { bodyKey } = STEPS[s];
  return stepBodyShape(s).transform((body) => {
    const record = body as Record<string, unknown> & { moc_id: string };
    return { moc_id: record.moc_id, form: (bodyKey === null ? record : record[bodyKey]) as StepInput<S> };
  });
}

/** The raw API body schema of a step (the OpenAPI document describes it). */
export function stepBodyShape(s: MocStep): z.ZodType {
  const { form, bodyKey } = STEPS[s];
  return bodyKey === null ? form : z.object({ moc_id: uuid("MOC id"), [bodyKey]: form });
}

// ---------------------------------------------------------------------------------------------
// What the definitions give everyone else (workflow/engine.server.ts says each)

export const {
  /** Who may submit the step (its status is `whyClosed`'s business). */
  mayAct,
  /** The 403 message for someone `mayAct` refuses: why four eyes refuses them, or the step's refusal. */
  refusalFor,
  /**
   * Whether `acting` may take the step, and for whom: themselves, else an absent person who
   * delegated to them today (docs/decisions/023-temporary-changes-and-delegation.md) whose own
   * assignment it is, provided the acting person passes four eyes as a person.
   */
  actingFor,
  /**
   * The step is the person's own assignment: what a delegate may take for them
   * (docs/decisions/026-four-eyes-by-record.md).
   */
  ownsStep,
  /** Why the step cannot be submitted now (a 409 reason naming the step), or null when it is open. */
  whyClosed,
  isStepOpen,
  /** The step the MOC waits for now, or null when nothing is open. */
  stepWaiting,
  /** Steps this actor can submit right now. */
  openStepsFor,
  /** The step waits on this actor now ("waiting on me"): `pendingStepSql`'s twin. */
  waitsOnActor,
  /** Where the MOC stands, for its badge and the stepper. */
  currentStage,
  /** Four eyes for the acting person as SQL over `m`, for the step named by a SQL text value. */
  actingIndependentSql,
  /** `ownsStep` as SQL over `m`, for the step named by a SQL text value. */
  ownedStepSql,
  /** `mayAct` as SQL over `m`, for the step named by a SQL text value. */
  mayActSql,
  /** The steps that wait on the actor, as a SQL `case` over `m` naming the step (null for none). */
  pendingStepSql,
  /** The pages' view of the steps: path and label, for links and buttons. */
  stepLink,
} = MOC_WORKFLOW;

/** `currentOwner` as SQL over `m` (the list's "waiting on" column, the reminders). */
export const OWNER_SQL: SQL = MOC_WORKFLOW.ownerSql;

/** The step the MOC waits for now, as SQL over `m` naming it (null for none): `stepWaiting`'s twin. */
export const WAITING_STEP_SQL: SQL = MOC_WORKFLOW.waitingStepSql;

/** `currentStage`'s label as SQL over `m` (null: the status's own), for the list's status column and the dashboard. */
export const STAGE_LABEL_SQL: SQL = MOC_WORKFLOW.stageLabelSql;

/**
 * The stages a move of the trail left and reached, in words (the printed trail): the statuses',
 * except on the deviation path, where the status (`b`, then `f`) does not say what the MOC waited
 * on: a request waits on the deviation and extension decision, and the decisions on the completion
 * report (issue 38 item 3).
 */
export function trailStages(log: { from: string; to: string; action: string }): [from: string, to: string] {
  const decision = STEPS["deviation-extension"].stage!.label;
  const report = STEPS["completion-report"].stage!.label;
  const decided = DEVIATION_DECISION.test(log.action);
  const from = decided && log.from === "b" ? decision : mocStatusLabel(log.from);
  const to =
    log.from === "e" && log.to === "b"
      ? decision
      : decided && log.to === "f"
        ? report
        : mocStatusLabel(log.to, log.action === MOC_CLOSED_ACTION);
  return [from, to];
}

/**
 * Where a MOC stands, in words: the one name of its stage (issue 38 "stages named once") that the
 * record, lists, CSV, print, reminders and My actions read: the waiting step's own label
 * ("Deviation decision", "Completion report", "Returned by HSEQ", "Expired, not restored"), else
 * the status's. `MOC_STAGE_SQL` is its twin over `m`.
 */
export const mocStage = (state: MocState): string =>
  currentStage(state).label ?? mocStatusLabel(state.status, state.completed);

export const MOC_STAGE_SQL: SQL = sql`coalesce(${STAGE_LABEL_SQL}, case when m.completed then 'Completed' else (case m.status ${sql.join(
  Object.entries(MOC_STATUS_LABELS).map(
    ([status, label]) => sql`when ${sql.raw(`'${status}'`)} then ${sql.raw(`'${label}'`)}`,
  ),
  sql` `,
)} else m.status end) end)`;

/**
 * Every stage a MOC can be in (the names `mocStage` gives), in the order of the process: each
 * status's own, followed by the stages its steps name while they wait, then "Completed" and
 * "Declined". The dashboard's tiles and the list's stage filter read it; nothing lists them by hand.
 */
export const MOC_STAGES: readonly string[] = (() => {
  const stages = new Set<string>();
  for (const status of ["a", "b", "c", "d", "e", "f"]) {
    stages.add(mocStatusLabel(status));
    for (const step of MOC_STEPS) {
      const { open, flagged, stage } = STEPS[step] as {
        open: { statuses: readonly string[]; completed?: boolean };
        flagged?: [string, string][];
        stage?: { label: string };
      };
      if (!open.statuses.includes(status) || open.completed) continue;
      if (stage) stages.add(stage.label);
      for (const [, label] of flagged ?? []) stages.add(label);
    }
  }
  stages.add(mocStatusLabel("f", true));
  for (const step of MOC_STEPS) {
    const { open, flagged } = STEPS[step] as { open: { completed?: boolean }; flagged?: [string, string][] };
    if (open.completed) for (const [, label] of flagged ?? []) stages.add(label);
  }
  stages.add(mocStatusLabel("decline"));
  return [...stages];
})();

/** Who owns the step the MOC waits for, in words (the record's owner line and stepper). */
export function currentOwner(doc: MocDocument): string | null {
  const waiting = stepWaiting(stateOfDocument(doc));
  if (!waiting) return null;
  const owner = STEPS[waiting].owner;
  const names = owner.roles.map((role) => (doc[ROLES[role].doc] as UserJson | null)?.name ?? null);
  const named = owner.all ? names.filter(Boolean).join(" or ") || null : (names.find(Boolean) ?? null);
  return named ? named + (owner.suffix ?? "") : (owner.otherwise ?? null);
}
