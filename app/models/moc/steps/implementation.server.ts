/**
 * The implementation (Part E) with its deviations and extensions, and the verification (Part F)
 * that closes the MOC or returns it, declared once on the engine.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { mocs, ExtentionsAndDeviations } from "#db/schema";
import type { Transaction } from "~/utils/db.server";
import { Conflict, Invalid, NotFound } from "~/utils/errors";
import { sanitizeRequiredRichText } from "~/utils/sanitize.server";
import type { Actor, MocAccess } from "../../authz/authz.server";
import { completionReportDue, deviationOutstanding } from "../moc-document";
import { answerBlockers, closureBlockers, trainingBlockers, type PlanForClosure } from "../moc-closure";
import {
  completionReportSchema,
  deviationExtensionSchema,
  implementationSchema,
  verifierFormSchema,
  verifierReturnSchema,
} from "../moc.schema";
import { saveForm } from "../moc-store.server";
import { reviewDateOnClosure, reviewOnClosure } from "../effectiveness-closure.server";
import { independent } from "../moc-four-eyes.server";
import { assigned, COMPLETION_REPORT_DUE, everyone, loadDeviations, reopened, step, todayUtc } from "./shape.server";

/**
 * The audit action of the step that completes a MOC (a verification that closes it, `f` -> `f`):
 * what the insight figures read as the moment a MOC was completed.
 */
export const MOC_CLOSED_ACTION = "Verified and closed";

/** Who verifies: the verifier, or the assigned HSEQ user when there is none (closing or returning alike). */
const VERIFIER_WHO = {
  may: (actor: Actor, moc: MocAccess) => (moc.verifierId ? moc.verifierId === actor._id : moc.hseqId === actor._id),
  sql: (actor: Actor) => sql`(m.verifier_id = ${actor._id} or (m.verifier_id is null and m.hseq_id = ${actor._id}))`,
};

/** The trail's words for the verifier's return (f -> e). */
export const RETURNED_TO_IMPLEMENTATION = "Returned to implementation by the verifier";

/**
 * The trail's words for a decision on a requested deviation or extension; `DEVIATION_DECISION`
 * recognises them (the printed trail's stages and the print's signatures read it).
 */
export const deviationDecisionAction = (approved: boolean, item: "deviation" | "extension") =>
  `${approved ? "Approved" : "Rejected"} the ${item}`;
export const DEVIATION_DECISION = /^(Approved|Rejected) the (deviation|extension)$/;

/** What the closure gate reads of the MOC, inside the step's transaction (the row is locked). */
async function loadPlanForClosure(tx: Transaction, mocId: string): Promise<PlanForClosure> {
  const [row] = await tx.execute<PlanForClosure>(sql`
    select m.action, m.manual_plan as "manualPlan",
      coalesce((select f.data->'completion-date'->>'value' from moc_forms f
        where f.moc_id = m.id and f.kind = 'implementation' and f.submitted_at is not null),
        m.deviations->'completion'->>'date') as "completionDate",
      ${COMPLETION_REPORT_DUE} as "completionReportDue"
    from mocs m where m.id = ${mocId}`);
  if (!row) throw new NotFound("No MOC with this id");
  return row;
}

export const IMPLEMENTATION_STEPS = {
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
        // A Part E reported again (after a return) with its completion date answers an earlier
        // deviation's completion report too.
        const tracking = await loadDeviations(tx, moc.id);
        const answered: ExtentionsAndDeviations | null =
          tracking && completionReportDue(tracking)
            ? {
                ...tracking,
                completion: {
                  date: input["completion-date"]!.value,
                  note: "Reported in Part E (implementation)",
                  by: actor._id,
                  byName: actor.name,
                  at: now.toISOString(),
                  via: "implementation",
                },
              }
            : null;
        return {
          to: "f",
          ...(answered ? { changes: { deviations: answered } } : {}),
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
    stage: { label: "Deviation and extension decision", part: "e" },
    // One item waiting reads as its own decision; both, as the stage's label.
    flagged: [
      ["deviationDecisionOnly", "Deviation decision"],
      ["extensionDecisionOnly", "Extension decision"],
    ],
    form: deviationExtensionSchema,
    bodyKey: null,
    apiPath: "/api/submit/deviation-extention",
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
        action: deviationDecisionAction(verdict === "approved", input.type),
        meaning: `${verdict} the ${input.type}`,
        comment: input.value.comment || null,
        changes,
        notices: [
          {
            to: { userIds: [moc.implementerId, moc.originatorId, moc.approverId, moc.hseqId] },
            event: `${actor.name} ${verdict} the ${input.type}.`,
            expectation: done
              ? "Next: the implementer reports the completion (when and how the change was finished), then verification (Part F)."
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

  // After the decisions the implementer reports how the change was finished (issue 38): Part E's
  // answers stay as given with the request; the closure gate reads this report's date.
  "completion-report": step({
    path: "completion",
    part: "the completion report",
    button: "Report completion",
    who: { ...assigned("implementer"), refusal: "Only the assigned implementer can report the completion" },
    open: {
      statuses: ["f"],
      requires: [
        [
          "completionReportDue",
          true,
          "This MOC is not waiting for a completion report: it is given after the deviation and extension decisions, once",
        ],
      ],
    },
    owner: { roles: ["implementer"] },
    stage: { label: "Completion report", part: "e" },
    form: completionReportSchema,
    bodyKey: null,
    apiPath: "/api/reportCompletion",
    apiNote:
      "After the deviation and extension decisions (status `f`), before verification can close the MOC: when the change was finished (`completion_date`, not in the future) and how (`note`, e.g. done as approved with the deviation). Part E's answers stay as given. 409 when the MOC is not waiting for it.",
    async apply({ tx, actor, moc, input, now }) {
      if (input.completion_date > todayUtc(now)) {
        throw new Invalid("The completion date cannot be in the future", [
          { path: "completion_date", message: "Give the day the change was finished (today or earlier)" },
        ]);
      }
      const tracking = (await loadDeviations(tx, moc.id))!;
      const completion = {
        date: input.completion_date,
        note: input.note,
        by: actor._id,
        byName: actor.name,
        at: now.toISOString(),
        via: "report" as const,
      };
      return {
        to: "f",
        action: "Reported the completion after the deviation/extension decision",
        comment: `Completed on ${input.completion_date}: ${input.note}`,
        changes: { deviations: { ...tracking, completion } },
        notices: [
          {
            to: everyone(moc),
            event: `${actor.name} reported the change complete on ${input.completion_date}.`,
            expectation: "Next: verification (Part F) by the verifier or the assigned HSEQ user.",
            details: [["How it was done", input.note]],
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
      "closing",
    ),
    signs: (_actor, moc) => (moc.verifierId ? "Verifier" : "HSEQ reviewer (verifying)"),
    open: { statuses: ["f"] },
    owner: { roles: ["verifier", "hseq"] },
    form: verifierFormSchema,
    bodyKey: "verifier_form",
    apiNote:
      '`close-moc` "yes" closes the MOC only when every action-plan and manuals-plan item is done or cancelled, ' +
      'Part E has a completion date and every other answer is "yes"; otherwise 409 with `issues`, one per open ' +
      'item (path `verifier_form.close-moc`, or the answer\'s own field). `trainings-complete` "yes" is refused (409, ' +
      "one issue per open training on `verifier_form.trainings-complete`, naming who has not attended) while a training " +
      "item is open. `/api/submit/verifier-return` sends it back instead.",
    async apply({ tx, actor, moc, input, now }) {
      const close = input["close-moc"].value === "yes";
      const plan = await loadPlanForClosure(tx, moc.id);
      // "Are trainings complete?" is not "yes" while a training is open (docs/decisions/056-training.md).
      const trainings = trainingBlockers(plan.action, input);
      if (trainings.length && !close) {
        throw new Conflict(
          `“Are trainings complete?” cannot be answered yes: ${trainings.length === 1 ? "a training is" : `${trainings.length} trainings are`} still open. Record the attendance, or cancel the training with a reason`,
          trainings.map((b) => ({ path: b.field!, message: b.message })),
        );
      }
      if (close) {
        // The closure gate (docs/decisions/033-closure-gates.md): every open item is named.
        const blockers = [...closureBlockers(plan), ...answerBlockers(input), ...trainings];
        if (blockers.length) {
          throw new Conflict(
            `This MOC cannot be closed yet: ${blockers.length === 1 ? "one thing is" : `${blockers.length} things are`} still open. Finish or cancel them, or return the MOC to implementation`,
            blockers.map((b) => ({ path: b.field ?? "close-moc", message: b.message })),
          );
        }
      }
      // Closing sets the effectiveness review's date (issue 42, docs/decisions/058-effectiveness-review.md):
      // the one given, or the default by change type; a date that stays open is not kept.
      const { "review-date": reviewDate, ...answers } = input;
      const reviewDue = close
        ? reviewDateOnClosure(reviewDate?.value, todayUtc(now), moc.temporary ? "temporary" : "permanent")
        : null;
      await saveForm(tx, { mocId: moc.id, kind: "verifier", actorId: actor._id, submitted: true, data: answers });
      if (reviewDue) await reviewOnClosure(tx, { mocId: moc.id, dueOn: reviewDue, setBy: actor._id });
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
};
