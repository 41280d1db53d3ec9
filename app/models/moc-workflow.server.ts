/**
 * The MOC workflow as a table: for each step, the statuses it starts from, an extra guard, and
 * what it does (form, status, people, emails). `runStep` is the one way a step happens: in one
 * transaction it locks the MOC, checks the caller (403) and the status (409), applies the step,
 * moves the status with a conditional update, appends the audit entry and queues the emails.
 * Two identical submissions at the same moment move the MOC once; the other gets 409.
 */
import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { mocs, type ExtentionsAndDeviations } from "#db/schema";
import type { MocStatus } from "#db/schema/enums";
import type { z } from "zod";
import { getDb, type Transaction } from "~/utils/db.server";
import { Conflict, Forbidden, Invalid, NotFound } from "~/utils/errors";
import { sanitizeRequiredRichText } from "~/utils/sanitize.server";
import { mayActOnStep, type MocStep } from "./authz.server";
import type { Recipients } from "./email.server";
import { loadForm, loadMocAccess, loadMocDocument, type MocDocument } from "./moc-query.server";
import type {
  deviationExtensionSchema,
  approverFormSchema,
  hseqFormSchema,
  implementationSchema,
  implementerFormSchema,
  originatorFormSchema,
  verifierFormSchema,
} from "./moc.schema";
import { refId } from "./moc.schema";
import { MOC_STATUS_LABELS, MOC_STEP_PARTS } from "./moc-status";
import {
  addMocUsers,
  appendLog,
  notifyAboutMoc,
  removeMocUser,
  requireActiveUsers,
  saveForm,
} from "./moc-store.server";
import type { PublicUser } from "./user.server";

type Moc = NonNullable<Awaited<ReturnType<typeof loadMocAccess>>>;

type Notice = { to: Recipients; event: string; expectation: string | null; details?: [string, string][] };

type Outcome = {
  to: MocStatus;
  action: string;
  comment?: string | null;
  changes?: Partial<typeof mocs.$inferInsert>;
  notices?: Notice[];
};

type StepContext<I> = { tx: Transaction; actor: PublicUser; moc: Moc; input: I; now: Date };

type StepDefinition<I> = {
  from: MocStatus[];
  /** A 409 reason when the record is in the right status but not ready for this step. */
  guard?: (moc: Moc, tx: Transaction) => Promise<string | null>;
  apply: (ctx: StepContext<I>) => Promise<Outcome>;
};

const FORBIDDEN: Record<MocStep, string> = {
  originator: "Only the originator (or an admin) can change Part A",
  implementer: "Only the assigned implementer can submit the implementer assessment",
  hseq: "Only a member of the HSEQ department can submit the HSEQ review",
  approver: "Only the assigned approver can decide on this MOC",
  implementation: "Only the assigned implementer can report the implementation",
  "deviation-extension": "Only the approver or the assigned HSEQ user can resolve a deviation or extension",
  verifier: "Only the verifier (or the assigned HSEQ user when there is none) can verify this MOC",
};

const deviationsOutstanding = (moc: { deviations?: ExtentionsAndDeviations | null }) => {
  const d = moc.deviations;
  return Boolean(d && ((d.deviation && !d.deviation.resolved) || (d.extension && !d.extension.resolved)));
};

async function loadDeviations(tx: Transaction, mocId: string): Promise<ExtentionsAndDeviations | null> {
  const [row] = await tx.select({ deviations: mocs.deviations }).from(mocs).where(eq(mocs.id, mocId));
  return row?.deviations ?? null;
}

/** Everyone involved, as "all MOC users" in the Events table means. */
const everyone = (moc: Moc): Recipients => ({ userIds: [...moc.allUserIds] });

const todayUtc = (now: Date) => now.toISOString().slice(0, 10);

// ---------------------------------------------------------------------------------------------
// The steps

const originator: StepDefinition<z.infer<typeof originatorFormSchema>> = {
  from: ["a", "b"],
  async guard(moc, tx) {
    const form = await loadForm(moc.id, "implementer", tx);
    return form?.submittedAt ? "The implementer has already assessed this MOC, so Part A can no longer change" : null;
  },
  async apply({ tx, actor, moc, input }) {
    const implementerId = refId(input["implementer-name"].value);
    const people = await requireActiveUsers(tx, [{ path: "originator_form.implementer-name", id: implementerId }]);
    const implementerName = people.get(implementerId)!.name;
    await saveForm(tx, {
      mocId: moc.id,
      kind: "originator",
      actorId: actor._id,
      submitted: true,
      data: {
        ...input,
        "implementer-name": { value: { _id: implementerId, name: implementerName } },
        "description-of-change": {
          value: sanitizeRequiredRichText(
            input["description-of-change"].value,
            "originator_form.description-of-change",
            "Description of change",
          ),
        },
      },
    });
    const previous = moc.implementerId;
    if (
      previous &&
      previous !== implementerId &&
      ![moc.originatorId, moc.approverId, moc.hseqId, moc.verifierId].includes(previous)
    ) {
      await removeMocUser(tx, moc.id, previous);
    }
    await addMocUsers(tx, moc.id, [moc.originatorId, implementerId]);
    const newlyAssigned = moc.status === "a" || previous !== implementerId;
    return {
      to: "b",
      action: moc.status === "a" ? "Submitted Part A" : "Updated Part A",
      changes: { implementerId },
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
};

const implementer: StepDefinition<z.infer<typeof implementerFormSchema>> = {
  from: ["b"],
  async guard(moc, tx) {
    return deviationsOutstanding({ deviations: await loadDeviations(tx, moc.id) })
      ? "A deviation or extension is waiting for the approver or HSEQ user; Part B cannot be submitted now"
      : null;
  },
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
      return {
        to: "decline",
        action: "Declined at the implementer assessment",
        comment: reason,
        changes: { decline: { stage: "b", reason, by: actor._id, at: now.toISOString() } },
        notices: [
          {
            to: { userIds: [moc.originatorId, ...moc.allUserIds] },
            event: `${actor.name} declined this MOC at the implementer assessment (Part B).`,
            expectation: null,
            details: [["Reason", reason]],
          },
        ],
      };
    }
    const approverId = refId(input["approver-name"]!.value);
    const hseqId = refId(input["hseq-name"]!.value);
    const targetDate = input["target-date"]!.value;
    const people = await requireActiveUsers(tx, [
      { path: "implementer_form.approver-name", id: approverId },
      { path: "implementer_form.hseq-name", id: hseqId },
    ]);
    if (people.get(hseqId)!.department !== "hseq") {
      throw new Invalid("The HSEQ user must belong to the HSEQ department", [
        { path: "implementer_form.hseq-name", message: "Choose a member of the HSEQ department" },
      ]);
    }
    if (targetDate < todayUtc(now)) {
      throw new Invalid("The target date cannot be in the past", [
        { path: "implementer_form.target-date", message: "Choose today or a later date" },
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
    await addMocUsers(tx, moc.id, [approverId, hseqId]);
    return {
      to: "c",
      action: "Submitted the implementer assessment",
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
};

const hseq: StepDefinition<z.infer<typeof hseqFormSchema>> = {
  from: ["c"],
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
      notices: [
        {
          to: { userIds: [moc.approverId, moc.originatorId, moc.implementerId] },
          event: `${actor.name} (HSEQ) reviewed the change and found it adequate.`,
          expectation: "Next: the approver decides (Part D).",
        },
      ],
    };
  },
};

const approver: StepDefinition<z.infer<typeof approverFormSchema>> = {
  from: ["d"],
  async apply({ tx, actor, moc, input, now }) {
    await saveForm(tx, { mocId: moc.id, kind: "approver", actorId: actor._id, submitted: true, data: input });
    if (input["approver-moc-approved"].value === "no") {
      const reason = input["decline-reason"]!.value;
      return {
        to: "decline",
        action: "Declined by the approver",
        comment: reason,
        changes: { decline: { stage: "d", reason, by: actor._id, at: now.toISOString() } },
        notices: [
          {
            to: { userIds: [moc.originatorId, ...moc.allUserIds] },
            event: `${actor.name} declined this MOC at approval (Part D).`,
            expectation: null,
            details: [["Reason", reason]],
          },
        ],
      };
    }
    return {
      to: "e",
      action: "Approved",
      notices: [
        {
          to: { userIds: [moc.originatorId, moc.implementerId, moc.hseqId] },
          event: `${actor.name} approved this MOC.`,
          expectation: "Next: the implementer carries out the change and reports it (Part E).",
        },
      ],
    };
  },
};

const implementation: StepDefinition<z.infer<typeof implementationSchema>> = {
  from: ["e"],
  async apply({ tx, actor, moc, input, now }) {
    const deviation = input["deviation-during-implementation"].value === "yes";
    const extension = input["moc-require-extension"].value === "yes";
    const details = deviation
      ? sanitizeRequiredRichText(
          input["deviation-details"]!.value,
          "implementation.deviation-details",
          "Deviation details",
        )
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
        { path: "implementation.extension-date", message: "Choose today or a later date" },
      ]);
    }
    const tracking: ExtentionsAndDeviations = {
      _id: randomUUID(),
      requestedAt: now.toISOString(),
      requestedBy: actor._id,
      deviation: deviation
        ? {
            requested: true,
            details: details!,
            resolved: false,
            approved: null,
            comment: null,
            resolvedBy: null,
            resolvedAt: null,
          }
        : null,
      extension: extension
        ? {
            requested: true,
            new_date: newDate!,
            reason: input["extension-reason"]!.value,
            resolved: false,
            approved: null,
            comment: null,
            resolvedBy: null,
            resolvedAt: null,
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
};

const deviationExtension: StepDefinition<z.infer<typeof deviationExtensionSchema>> = {
  from: ["b"],
  // Status b alone is not enough: the step exists only while a requested item waits (409 otherwise).
  async guard(moc, tx) {
    return deviationsOutstanding({ deviations: await loadDeviations(tx, moc.id) })
      ? null
      : "No deviation or extension is waiting for a decision on this MOC";
  },
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
    const done = !deviationsOutstanding({ deviations: updated });
    const verdict = input.value.approved === "yes" ? "approved" : "rejected";
    return {
      to: done ? "f" : "b",
      action: `${verdict === "approved" ? "Approved" : "Rejected"} the ${input.type}`,
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
};

const verifier: StepDefinition<z.infer<typeof verifierFormSchema>> = {
  from: ["f"],
  async apply({ tx, actor, moc, input }) {
    await saveForm(tx, { mocId: moc.id, kind: "verifier", actorId: actor._id, submitted: true, data: input });
    const close = input["close-moc"].value === "yes";
    return {
      to: "f",
      action: close ? "Verified and closed" : "Recorded the verification; the MOC stays open",
      changes: close ? { completed: true } : {},
      notices: [
        {
          to: { userIds: [moc.originatorId, moc.implementerId, moc.hseqId, moc.approverId] },
          event: close
            ? `${actor.name} verified the change and closed this MOC.`
            : `${actor.name} recorded the verification; the MOC stays open.`,
          expectation: close ? null : "The verifier closes the MOC once every check is satisfied.",
        },
      ],
    };
  },
};

export const WORKFLOW = {
  originator,
  implementer,
  hseq,
  approver,
  implementation,
  "deviation-extension": deviationExtension,
  verifier,
} satisfies Record<MocStep, StepDefinition<never>>;

export type StepInput<S extends MocStep> = (typeof WORKFLOW)[S] extends StepDefinition<infer I> ? I : never;

/** Runs one step of one MOC for the actor; returns the populated MOC after the change. */
export async function runStep<S extends MocStep>(
  step: S,
  actor: PublicUser,
  mocId: string,
  input: StepInput<S>,
): Promise<MocDocument> {
  const definition = WORKFLOW[step] as unknown as StepDefinition<StepInput<S>>;
  return getDb().transaction(async (tx) => {
    const moc = await loadMocAccess(mocId, tx, { lock: true });
    if (!moc || moc.isDeleted) throw new NotFound("No MOC with this id");
    if (!mayActOnStep[step](actor, moc)) throw new Forbidden(FORBIDDEN[step]);
    if (moc.completed || !definition.from.includes(moc.status as MocStatus)) {
      const now = moc.completed ? "completed" : `at ${MOC_STATUS_LABELS[moc.status]?.toLowerCase() ?? moc.status}`;
      throw new Conflict(`This MOC is ${now}, so ${MOC_STEP_PARTS[step]} cannot be submitted`);
    }
    const reason = await definition.guard?.(moc, tx);
    if (reason) throw new Conflict(reason);
    const now = new Date();
    const outcome = await definition.apply({ tx, actor, moc, input, now });
    // The conditional update: only from the status this step started from.
    const moved = await tx
      .update(mocs)
      .set({ ...outcome.changes, status: outcome.to, updatedAt: now })
      .where(and(eq(mocs.id, moc.id), eq(mocs.status, moc.status as MocStatus), eq(mocs.completed, false)))
      .returning({ id: mocs.id });
    if (moved.length !== 1) throw new Conflict("This MOC changed meanwhile; reload it and try again");
    await appendLog(tx, {
      mocId: moc.id,
      userId: actor._id,
      action: outcome.action,
      from: moc.status,
      to: outcome.to,
      comment: outcome.comment ?? null,
    });
    for (const notice of outcome.notices ?? []) {
      await notifyAboutMoc(tx, moc, notice.to, {
        event: notice.event,
        expectation: notice.expectation,
        details: notice.details,
      });
    }
    return (await loadMocDocument(moc.id, tx))!;
  });
}
