/**
 * The end of a temporary change (docs/decisions/023-temporary-changes-and-delegation.md): restored
 * and confirmed, extended, or made permanent as a new MOC, declared once on the engine.
 */
import { sql } from "drizzle-orm";
import type { TemporaryChange } from "#db/schema";
import { Invalid } from "~/utils/errors";
import { isHseq } from "../../authz/authz.server";
import { EXPIRED_NOT_RESTORED } from "../moc-closure";
import {
  temporaryConfirmSchema,
  temporaryExtensionDecisionSchema,
  temporaryExtensionSchema,
  temporaryPermanentSchema,
  temporaryRestoredSchema,
} from "../moc.schema";
import { cloneMocInto, mocLabel } from "../moc-store.server";
import { independent, TRAIL_ACTIONS } from "../moc-four-eyes.server";
import { assigned, everyone, reopened, requireTemporary, step, TEMPORARY_OPEN, todayUtc } from "./shape.server";

export const TEMPORARY_STEPS = {
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
};
