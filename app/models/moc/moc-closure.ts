/**
 * The closure gate (docs/decisions/033-closure-gates.md): what must hold before a verification
 * closes a MOC — every action-plan and manuals-plan item done or cancelled with a reason, Part E's
 * completion date, and every Part F answer "yes". One definition, read by the verifier step (409
 * with one issue per open item) and by the verifier page's checklist. No server imports: the page
 * renders the same words.
 */
import { sql, type SQL } from "drizzle-orm";
import type { ActionPlan, ManualPlan } from "#db/schema";
import { completionReportDue, TEMPORARY_STATE_LABELS, type MocDocument } from "./moc-document";

/** The badge of a MOC back at Part B after the HSEQ review returned it. */
export const RETURNED_BY_HSEQ = "Returned by HSEQ";
/**
 * The stage of a temporary change past its end with nothing recorded (a red badge, counted open and
 * overdue): the temporary state's own words, so the badge, the tiles and the lists read the same.
 */
export const EXPIRED_NOT_RESTORED = TEMPORARY_STATE_LABELS.expired;

/** The Part F questions, by form field; every one must be answered "yes" to close. */
export const VERIFIER_QUESTIONS = {
  "action-plan-correct": "Was the action plan correct and completed?",
  "manuals-changed": "Have manuals and drawings been changed?",
  "trainings-complete": "Are trainings complete?",
  "feedback-complete": "Is feedback complete?",
  "moc-effective": "Was the MOC effective?",
} as const;
export type VerifierQuestion = keyof typeof VERIFIER_QUESTIONS;

/**
 * What the closure gate reads: the plans, the completion date (Part E's, or the completion report's
 * after a deviation or extension), and whether that report is still owed (`completionReportDue`).
 */
export type PlanForClosure = {
  action: ActionPlan;
  manualPlan: ManualPlan;
  completionDate: string | null;
  completionReportDue: boolean;
};

/** The closure gate's reading of a populated MOC (the verifier page); the step reads the same in SQL. */
export const planForClosure = (moc: MocDocument): PlanForClosure => ({
  action: moc.action,
  manualPlan: moc.manual_plan,
  completionDate:
    moc.implementation?.["completion-date"]?.value ?? moc.extentionsAndDeviations?.completion?.date ?? null,
  completionReportDue: completionReportDue(moc.extentionsAndDeviations),
});

/** One thing that keeps the MOC from closing. `field`: the Part F answer it concerns, if any. */
export type ClosureBlocker = {
  kind: "action" | "manual" | "completion-date" | "answer" | "training";
  message: string;
  /** The plan item, for a link to cancel it. */
  itemId?: string;
  field?: VerifierQuestion;
};

/** An item neither done nor cancelled. */
export const isOpenItem = (item: { done: boolean; cancelled?: unknown }) => !item.done && !item.cancelled;

/**
 * `isOpenItem` over a plan item held as jsonb (`item`, an SQL expression): the one SQL spelling of
 * "an open item" that My actions, the action reminders, Insight and the vessel page read (issue 38).
 */
export const openItemSql = (item: SQL): SQL =>
  sql`(not coalesce((${item}->>'done')::boolean, false) and coalesce(${item}->'cancelled', 'null'::jsonb) = 'null'::jsonb)`;

/** How far a plan is, by the closure gate's own `isOpenItem` (issue 38 item 4: one count everywhere). */
export type PlanProgress = { total: number; done: number; cancelled: number; open: number };
export function planProgress(items: readonly { done: boolean; cancelled?: unknown }[]): PlanProgress {
  const open = items.filter(isOpenItem).length;
  const cancelled = items.filter((i) => !i.done && i.cancelled).length;
  return { total: items.length, done: items.length - open - cancelled, cancelled, open };
}

/** "2 of 3 done", "1 of 3 done, 2 cancelled", "none". */
export const progressWords = (p: PlanProgress) =>
  p.total === 0 ? "none" : `${p.done} of ${p.total} done${p.cancelled ? `, ${p.cancelled} cancelled` : ""}`;

/** What in the plans and Part E keeps the MOC from closing (the answers are `answerBlockers`'). */
export function closureBlockers(plan: PlanForClosure): ClosureBlocker[] {
  const due = (d: string | null) => (d ? `, due ${d}` : "");
  return [
    ...(plan.action?.items ?? []).filter(isOpenItem).map((item): ClosureBlocker => ({
      kind: "action",
      itemId: item._id,
      message: `Action “${item.description}”${due(item.due)} is neither done nor cancelled`,
    })),
    ...(plan.manualPlan?.items ?? []).filter(isOpenItem).map((item): ClosureBlocker => ({
      kind: "manual",
      itemId: item._id,
      message: `Manuals and drawings item “${item.document}: ${item.change}”${due(item.due)} is neither done nor cancelled`,
    })),
    ...(plan.completionDate
      ? []
      : [
          {
            kind: "completion-date" as const,
            message: plan.completionReportDue
              ? "The implementer has not reported the completion after the deviation/extension decision (when and how the change was finished)"
              : "Part E (implementation) has no completion date; return the MOC to implementation to record it",
          },
        ]),
  ];
}

/** The Part F answers that are not "yes". */
export function answerBlockers(answers: Partial<Record<VerifierQuestion, { value: string } | undefined>>) {
  return (Object.keys(VERIFIER_QUESTIONS) as VerifierQuestion[])
    .filter((field) => answers[field]?.value !== "yes")
    .map((field): ClosureBlocker => ({
      kind: "answer",
      field,
      message: `“${VERIFIER_QUESTIONS[field]}” is answered no; every answer must be yes to close the MOC`,
    }));
}

// ---------------------------------------------------------------------------------------------
// Trainings (issue 41, docs/decisions/056-training.md)

type TrainingItem = ActionPlan["items"][number];

/**
 * Where a training stands: each required attendee with their latest attendance record (a
 * correction is a later record; `attended: false` undoes a mistaken one), and who has not attended.
 */
export function trainingState(training: NonNullable<TrainingItem["training"]>) {
  const latest = new Map<string, (typeof training.attendance)[number]>();
  for (const record of training.attendance ?? []) latest.set(record.user, record);
  const attendees = training.attendees.map((person) => {
    const record = latest.get(person._id);
    return { ...person, attendedOn: record?.attended ? record.on : null };
  });
  const missing = attendees.filter((a) => !a.attendedOn);
  return { attendees, missing, complete: missing.length === 0 };
}

/** An action-plan item that is a training, neither cancelled nor attended by everyone it names. */
export const isOpenTraining = (item: TrainingItem) =>
  Boolean(item.training) && !item.cancelled && !trainingState(item.training!).complete;

/** The open trainings of an action plan, each naming who has not attended yet. */
export function openTrainings(action: ActionPlan | null | undefined): ClosureBlocker[] {
  return (action?.items ?? []).filter(isOpenTraining).map((item) => {
    const missing = trainingState(item.training!).missing.map((a) => a.name);
    return {
      kind: "training",
      itemId: item._id,
      field: "trainings-complete",
      message: `Training “${item.description}”${item.due ? `, due ${item.due}` : ""}: not attended yet by ${missing.join(", ")}`,
    };
  });
}

/**
 * The training gate: Part F's "Are trainings complete?" is answered "yes" only when no training is
 * open (every required attendee attended, or the item cancelled). The verifier step refuses such a
 * "yes" (409, one issue per open training on `trainings-complete`), whether it closes or not.
 */
export const trainingBlockers = (
  action: ActionPlan | null | undefined,
  answers: Partial<Record<VerifierQuestion, { value: string } | undefined>>,
): ClosureBlocker[] => (answers["trainings-complete"]?.value === "yes" ? openTrainings(action) : []);

/** How a plan item stands, in words (the record page and the print view): done, cancelled (who, when, why) or open. */
export function planItemState(item: {
  done: boolean;
  cancelled?: { reason: string; byName: string; at: string } | null;
  completion?: { byName: string; at: string; note: string | null; evidence: { name: string } | null } | null;
}): string {
  if (item.done && item.completion) {
    // How it was marked done (docs/decisions/038-actions-as-tasks.md).
    const c = item.completion;
    return `Done by ${c.byName} on ${c.at.slice(0, 10)}${c.note ? `: ${c.note}` : ""}${c.evidence ? ` (evidence: ${c.evidence.name})` : ""}`;
  }
  if (item.done) return "Done";
  if (item.cancelled) {
    return `Cancelled by ${item.cancelled.byName} on ${item.cancelled.at.slice(0, 10)}: ${item.cancelled.reason}`;
  }
  return "Open";
}
