/**
 * The MOC's Part A (the originator raises it) and Part B (the implementer assesses it), declared
 * once on the engine (steps/shape.server.ts).
 */
import { sql } from "drizzle-orm";
import { Invalid } from "~/utils/errors";
import { isAdmin } from "../../authz/authz.server";
import { RETURNED_BY_HSEQ } from "../moc-closure";
import { implementerFormSchema, originatorFormSchema, refId } from "../moc.schema";
import {
  addMocUsers,
  handOverRole,
  partAForm,
  requireActiveUsers,
  saveForm,
  temporaryOfPartA,
} from "../moc-store.server";
import { fourEyesAssignment, TRAIL_ACTIONS } from "../moc-four-eyes.server";
import { assigned, declined, step, todayUtc } from "./shape.server";

const BLOCKED_BY_DEVIATION =
  "A deviation or extension is waiting for the approver or HSEQ user; Part B cannot be submitted now";

export const PART_A_B_STEPS = {
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
      // The same four eyes as the steps these people will take (issue 38): the approver judged as
      // the approval step judges, the HSEQ user as the review does, each against the MOC as Part B
      // leaves it (one person does not both review and approve it).
      const after = { ...moc, approverId, hseqId };
      const notIndependent = (
        [
          { path: "approver-name", id: approverId, role: "approver" },
          { path: "hseq-name", id: hseqId, role: "hseq" },
        ] as const
      ).flatMap((pick) => {
        const message = fourEyesAssignment(after, pick.role, pick.id, people.get(pick.id)!.name);
        return message ? [{ path: pick.path, message }] : [];
      });
      if (notIndependent.length) {
        throw new Invalid(notIndependent[0]!.message, notIndependent);
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
            // The HSEQ user assigned, not the whole department (issue 38 item 8: one review, one person told).
            to: { userIds: [hseqId, approverId, ...moc.allUserIds] },
            event: `${actor.name} assessed the change and sent it for HSEQ review.`,
            expectation: `Next: HSEQ review (Part C), assigned to ${people.get(hseqId)!.name}. Then approval by ${people.get(approverId)!.name}.`,
            details: [["Target date", targetDate]],
          },
        ],
      };
    },
  }),
};
