/**
 * MOCs: creating, listing, reading, assigning, their parts and plans, and the pipeline (one operation per step, from the step definitions).
 * Part of the OpenAPI description of /api (app/web/openapi.server.ts, docs/decisions/031-api-contract.md).
 */
import { z } from "zod";
import { deletedAnswer, mocAnswer, riskSettingsAnswer } from "~/web/openapi/answers.schema";
import { actionDoneSchema, myActionAnswer } from "~/models/moc/action-tasks.schema";
import { trainingAttendanceSchema, trainingSchema } from "~/models/moc/training.schema";
import { riskSettingsBodySchema } from "~/models/risk/risk.schema";
import {
  actionPlanSchema,
  addUserSchema,
  cancelPlanItemSchema,
  cloneMocSchema,
  deleteMocQuery,
  impactSchema,
  implementerDraftSchema,
  manualPlanSchema,
  mocIdQuery,
  newMocSchema,
  reassignImplementerSchema,
  restoreMocSchema,
  riskAssessmentSchema,
} from "~/models/moc/moc.schema";
import { mocListQuerySchema } from "~/models/moc/moc-list.server";
import { MOC_STEPS, STEPS, stepBodyShape } from "~/models/moc/moc-steps.server";
import { MOC, okOf, type Operation, type Operations } from "./operation";

export const MOC_OPERATIONS: Operations = {
  "/api/newmoc": {
    get: {
      summary: "The MOCs the caller works on (all for admins and HSEQ).",
      description:
        "The list page's filters and `sort` select and order the JSON list, its pages (a cursor of another list or order is 400) and its CSV alike. " +
        "Without them the whole list answers with an ETag (304 to If-None-Match).",
      ok: okOf(z.array(mocAnswer)),
      csv: mocListQuerySchema,
      paged: true,
      errors: [304],
    },
    post: {
      summary:
        'Creates a MOC with Part A submitted (status b); the implementer is emailed. With `followUp` ("moc:<id>", issue 42) it is a follow-up of that MOC, linked "follow-up of" in both trails (403 when the caller may not read it, 404 when there is no such MOC).',
      body: newMocSchema,
      ok: z.object({ data: mocAnswer, status: z.literal(200) }),
      errors: [404],
    },
  },
  "/api/newImplementer": {
    post: {
      summary: "Same as POST /api/newmoc.",
      body: newMocSchema,
      ok: z.object({ data: mocAnswer, status: z.literal(200) }),
      errors: [404],
    },
  },
  "/api/getAllMoc": {
    get: {
      summary: "All MOCs for admins, HSEQ and full access; otherwise the completed ones.",
      description:
        "The MOC list page's filters and `sort` select and order the JSON list and its pages (a cursor of another list or order is 400), " +
        "and the CSV of the list page's rows. Without them the whole list answers with an ETag (304 to If-None-Match).",
      ok: okOf(z.array(mocAnswer)),
      csv: mocListQuerySchema,
      paged: true,
      errors: [304],
    },
  },
  "/api/singlemoc": {
    get: { summary: "One populated MOC the caller may see.", query: mocIdQuery, ok: mocAnswer, errors: [404] },
  },
  "/api/deleteMoC": {
    delete: {
      summary:
        "Soft-deletes a MOC (`isDeleted` true): its originator before anyone else has decided on it (a draft, or at Part B before the implementer's first submission); afterwards an admin, with `reason` (400 without). A completed MOC is never deleted (409). The MOC's trail records who, when and why.",
      query: deleteMocQuery,
      ok: okOf(deletedAnswer),
      errors: [404, 409],
    },
  },
  "/api/restoreMoc": {
    post: {
      summary: "Restores a deleted MOC where it was (admins); an entry of the MOC's trail. 409 when it is not deleted.",
      body: restoreMocSchema,
      ok: MOC,
      errors: [404, 409],
    },
  },
  "/api/cloneMoc": {
    post: {
      summary: "Clones a MOC into a new one the caller originates.",
      body: cloneMocSchema,
      ok: z.object({ status: z.literal(200), body: z.string(), moc: mocAnswer }),
      errors: [404],
    },
  },
  "/api/addUser": {
    post: {
      summary:
        "Puts a person in a role of a MOC (originator or admin). The HSEQ user (`hseq`), and the approver or HSEQ user while their decision is pending: admins and the HSEQ department only, with `reason` (400 without), recorded in the trail. 409 on a completed or declined MOC.",
      body: addUserSchema,
      ok: MOC,
      errors: [404, 409],
    },
  },
  "/api/createImplementer": {
    post: {
      summary: "Saves Part B as a draft (implementer).",
      body: implementerDraftSchema,
      ok: MOC,
      errors: [404, 409],
    },
  },
  "/api/implementer": {
    get: {
      summary: "The implementer form of a MOC the caller may see (null before Part B).",
      query: mocIdQuery,
      ok: okOf(z.looseObject({ _id: z.uuid() }).nullable()),
      errors: [404],
    },
    post: {
      summary: "Same as POST /api/createImplementer.",
      body: implementerDraftSchema,
      ok: MOC,
      errors: [404, 409],
    },
    put: {
      summary: "Re-assigns the implementer (originator or admin).",
      body: reassignImplementerSchema,
      ok: MOC,
      errors: [404, 409],
    },
  },
  "/api/impact": {
    post: {
      summary:
        "Replaces the impact assessment. `no_significant_hazard` (optional): the implementer's reason the change has no significant hazard, which ranks a MOC without impact items Low (400 with items; 403 for anyone but the implementer); null withdraws it, and saving items clears it.",
      body: impactSchema,
      ok: MOC,
      errors: [404, 409],
    },
  },
  "/api/riskSettings": {
    get: {
      summary:
        "The risk matrix's thresholds, the positions giving the second approvals, and the risk gate (anyone signed in).",
      ok: okOf(riskSettingsAnswer),
    },
    put: {
      summary:
        "Changes what the body names (admins), audited. New thresholds re-rank the MOCs not yet approved. `rankingRequired` switches the risk gate: HSEQ's `hseq-risk-assessment-covered: yes` is a 400 on a MOC not ranked, or High or Extreme without its risk assessment file.",
      body: riskSettingsBodySchema,
      ok: okOf(riskSettingsAnswer),
    },
  },
  "/api/risk_assessment": {
    post: { summary: "Attaches the risk assessment link.", body: riskAssessmentSchema, ok: MOC, errors: [404, 409] },
  },
  "/api/actionTable": {
    post: { summary: "Replaces the action plan.", body: actionPlanSchema, ok: MOC, errors: [404, 409] },
  },
  "/api/manualsPlan": {
    post: { summary: "Replaces the manuals and drawings plan.", body: manualPlanSchema, ok: MOC, errors: [404, 409] },
  },
  "/api/cancelPlanItem": {
    post: {
      summary: "Cancels an open action-plan or manuals-plan item with a reason.",
      description:
        "The implementer or the assigned HSEQ user, while the MOC is open. The item keeps who, when and why " +
        "(`cancelled`), the audit trail records it, and it no longer holds up closing the MOC. 404 for an unknown " +
        "item; 409 for one already done or cancelled, or a closed MOC.",
      body: cancelPlanItemSchema,
      ok: MOC,
      errors: [404, 409],
    },
  },
  "/api/training": {
    post: {
      summary: "Makes an action-plan item a training, naming who must attend.",
      description:
        "docs/decisions/056-training.md. The originator, the implementer, the assigned HSEQ user or an admin, while " +
        "the MOC is open. `attendees` is the whole list of user ids (active users; 400 otherwise); the item's " +
        "description says what and its `due` by when. Before approval an empty list makes it a plain action again; " +
        "from approval on people are only added (409 when one is left out). The item gains `training` " +
        "(`attendees`, `attendance`); those newly named are told. 404 for an unknown item; 409 for a cancelled one " +
        "or a closed MOC.",
      body: trainingSchema,
      ok: MOC,
      errors: [404, 409],
    },
  },
  "/api/trainingAttendance": {
    post: {
      summary: "Records who attended a training on a date.",
      description:
        "docs/decisions/056-training.md. The item's owner, the implementer, the assigned HSEQ user or the HSEQ " +
        "department, once the MOC is approved and while it is open. Each of `attendees` must be one of those who " +
        "must attend, and `date` not later than today (400 otherwise, on `attendees.N` or `date`). Records are " +
        "added, never changed: `attended: false` records a correction (they did not attend after all); a person's " +
        "latest record decides. The item's `training.attendance` gains the records (who recorded them and when), " +
        "the audit trail an entry, and the item is done exactly when everyone who must attend has attended. While a " +
        "training is open, Part F's `trainings-complete` cannot be answered yes (409). 404 for an unknown item; 409 " +
        "for an item that is not a training, a cancelled one, a MOC not yet approved or a closed MOC.",
      body: trainingAttendanceSchema,
      ok: MOC,
      errors: [404, 409],
    },
  },
  "/api/myActions": {
    get: {
      summary: "The caller's open action-plan and manuals-plan items across open MOCs, soonest due first.",
      description:
        "Items owned by the caller, neither done nor cancelled, on MOCs neither completed nor declined " +
        "(docs/decisions/038-actions-as-tasks.md), with how many there are.",
      ok: okOf(z.object({ actions: z.array(myActionAnswer), total: z.number().int() })),
    },
  },
  "/api/actionDone": {
    post: {
      summary: "Marks one open action-plan or manuals-plan item done, with a note and optional evidence.",
      description:
        "The item's owner, the implementer, the assigned HSEQ user or an admin, once the MOC is approved " +
        "(before, its plan editors). `evidence_id` names a file already attached to the MOC. The item keeps who, " +
        "when, the note and the evidence's name, size and SHA-256 (`completion`); the audit trail records it. 404 " +
        "for an unknown item; 409 for one already done or cancelled, a MOC not yet approved, or a closed MOC.",
      body: actionDoneSchema,
      ok: MOC,
      errors: [404, 409],
    },
  },
  // The pipeline: one operation per step, all of it from the step's definition.
  ...Object.fromEntries(
    MOC_STEPS.map((step) => [
      STEPS[step].apiPath ?? `/api/submit/${step}`,
      {
        post: {
          summary: `Submits ${STEPS[step].part}.`,
          description: `${STEPS[step].who.refusal}. The MOC must be at this step (409 otherwise).${STEPS[step].apiNote ? ` ${STEPS[step].apiNote}` : ""}`,
          body: stepBodyShape(step),
          ok: MOC,
          errors: [404, 409],
        } satisfies Operation,
      },
    ]),
  ),
};
