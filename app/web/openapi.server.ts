/**
 * The OpenAPI 3.1 description of /api, served at /api/openapi.json (docs/decisions/031-api-contract.md).
 * Every operation is one entry of `API` below: its input schemas (the zod schemas the route
 * validates with), its success answer (app/models/api-answers.schema.ts) and the error statuses
 * it can answer beyond the ones every operation of its kind has. Everything is converted with zod's
 * `z.toJSONSchema`, so the document changes when a schema does.
 *
 * To add an operation: add its route file and one entry here (summary, `query`/`body`, `ok`).
 * To add a status to one: append it to the entry's `errors` (`errors: [404, 409, 429]`); a status
 * every write shares goes in `WRITE_ERRORS`, one every signed-in call shares in `SIGNED_IN_ERRORS`.
 * The generic error body (`Error`) and each status's response are described once, in `ERRORS`.
 * Checks: tests/integration/openapi.test.ts (every route file is here with its methods),
 * tests/integration/api-contract.test.ts (every operation's real answers match), `npm run
 * api:check` (redocly lint, and the generated client types are current).
 */
import { z } from "zod";
import {
  archiveAnswer,
  chatAnswer,
  deletedAnswer,
  envelope,
  insightsAnswer,
  loginAnswer,
  mocAnswer,
  pcrAnswer,
  pcrSummaryAnswer,
  pendingActionAnswer,
  publicUserAnswer,
  reminderRunAnswer,
  reviewAnswer,
  signatureManifestationAnswer,
  userRefAnswer,
  riskSettingsAnswer,
  vesselAnswer,
  vesselAssignmentAnswer,
} from "~/models/api-answers.schema";
import { actionDoneSchema, myActionAnswer } from "~/models/action-tasks.schema";
import { mocContextSchema } from "~/models/moc-context.server";
import {
  assignmentBodySchema,
  assignmentIdQuery,
  assignmentQuerySchema,
  optionalVesselIdQuery,
  vesselBodySchema,
  vesselIdQuery,
  vesselUpdateSchema,
} from "~/models/vessel.schema";
import { archiveFilterSchema, archiveSchemas } from "~/models/archive.schema";
import { chatPostSchema, chatQuerySchema } from "~/models/chat.schema";
import { riskSettingsBodySchema } from "~/models/risk.schema";
import {
  actionPlanSchema,
  addUserSchema,
  cancelPlanItemSchema,
  cloneMocSchema,
  deleteMocQuery,
  idQuery,
  impactSchema,
  implementerDraftSchema,
  manualPlanSchema,
  mocIdQuery,
  newMocSchema,
  reassignImplementerSchema,
  restoreMocSchema,
  riskAssessmentSchema,
} from "~/models/moc.schema";
import { mocListQuerySchema } from "~/models/moc-list.server";
import { MOC_STEPS, STEPS, stepBodyShape } from "~/models/moc-steps.server";
import {
  affectedPartiesBodySchema,
  clonePcrSchema,
  newPcrSchema,
  signaturesBodySchema,
  updatePcrSchema,
  substituteBodySchema,
  withdrawBodySchema,
} from "~/models/pcr.schema";
import { pcrListQuerySchema } from "~/models/pcr-list.server";
import { reviewBodySchema, reviewUpdateSchema } from "~/models/review.schema";
import {
  loginSchema,
  newUserSchema,
  ownProfileSchema,
  userIdBody,
  userUpdateSchema,
  verifyQuery,
} from "~/models/user.schema";
import { insightsApiQuery } from "~/models/insights.schema";
import { proxyQuery } from "~/models/image-proxy.server";
import { searchAnswer, searchQuerySchema } from "~/models/search.schema";
import { TOKEN_EXPIRED, TOKEN_INVALID, TOKEN_NOT_YET_VALID } from "~/utils/token.server";
import { SIGN_IN_FIRST } from "./auth.server";
import { MAX_PAGE, pageQuery } from "./paging.server";
import { isCredentialRoute } from "./idempotency.server";

type Method = "get" | "post" | "put" | "patch" | "delete";

/** The error statuses the document describes (each once, in ERRORS). */
export type ErrorStatus = 304 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 429 | 431 | 502 | 503 | 504;

/** One operation: what it does, its input schemas, its success answer and its other statuses. */
export type Operation = {
  summary: string;
  description?: string;
  query?: z.ZodType;
  body?: z.ZodType;
  /** No credentials needed. */
  public?: true;
  /** The success answer's JSON body (`{ status, data }` unless docs/api-contract.md says otherwise). */
  ok: z.ZodType;
  /** The success status when it is not 200. */
  okStatus?: 201;
  /** Also answers the list as CSV, with these filters (format=csv or Accept: text/csv). */
  csv?: z.ZodObject;
  /** Answers the image's bytes instead of JSON. */
  image?: true;
  /** Takes `limit` and `cursor` (keyset paging) and answers `Link: <...>; rel="next"`. */
  paged?: true;
  /** Error statuses beyond the ones every operation of its kind has (400, 401, 403, 413). */
  errors?: ErrorStatus[];
  /** An example body when the one made from the schema would not be a useful request. */
  example?: unknown;
};

/** Statuses every signed-in operation can answer. */
const SIGNED_IN_ERRORS: ErrorStatus[] = [401, 403];
/** Statuses every operation with a JSON body can answer. */
const WRITE_ERRORS: ErrorStatus[] = [413];

const MOC = envelope(mocAnswer);
const PCR = envelope(pcrAnswer);
const ONE_USER = envelope(publicUserAnswer);
/** The success body of the endpoints whose answer docs/api-contract.md leaves open: `{ status: 200, data }`. */
const okOf = envelope;

/** The /api operations by path (OpenAPI path syntax, `{id}` for a path parameter) and method. */
export const API: Record<string, Partial<Record<Method, Operation>>> = {
  "/api/verify": {
    get: {
      summary:
        "Checks an email and password without opening a session (rate limited). Kept for existing clients; " +
        "refused with 403, uncounted, when a browser says another site started it. Prefer POST.",
      query: verifyQuery,
      public: true,
      ok: z.object({ message: z.string(), status: z.literal(200), user: publicUserAnswer }),
      errors: [401, 403, 429],
    },
    post: {
      summary:
        "Checks an email and password (a JSON body) without opening a session (rate limited); " +
        "same answer as GET. Only from our own origin when a browser sends it.",
      body: verifyQuery,
      public: true,
      ok: z.object({ message: z.string(), status: z.literal(200), user: publicUserAnswer }),
      errors: [401, 403, 429],
    },
  },
  "/api/myUser": {
    get: {
      summary: "The caller's own user.",
      ok: z.object({ userData: userRefAnswer.omit({ active: true }), status: z.literal(200) }),
    },
  },
  "/api/user": {
    get: {
      summary: "The caller's user with the MOC steps waiting on them, oldest wait first.",
      ok: okOf(publicUserAnswer.extend({ actions: z.array(pendingActionAnswer) })),
    },
    patch: {
      summary: "Changes the caller's own name, email or password (currentPassword required for a password).",
      body: ownProfileSchema,
      ok: ONE_USER,
      errors: [409, 429],
    },
  },
  "/api/UserFromDatabase": {
    get: {
      summary: "The caller's own user, read from the database.",
      ok: z.object({ user: publicUserAnswer, status: z.literal(200) }),
    },
    put: {
      summary: "Same as PATCH /api/user.",
      body: ownProfileSchema,
      ok: z.object({ user: publicUserAnswer, status: z.literal(200) }),
      errors: [409, 429],
    },
  },
  "/api/users": {
    get: {
      summary: "The user directory (any signed-in user); `search` filters by name or email.",
      description:
        "The whole list by name, a page with `limit`/`cursor` (newest account first, so accounts created during a walk are neither skipped nor repeated), " +
        "or the list as CSV.",
      query: z.object({ search: z.string().optional().meta({ description: "Part of a name or email." }) }),
      ok: okOf(z.array(publicUserAnswer)),
      csv: z.object({}),
      paged: true,
    },
    post: {
      summary: "Creates a user (admins).",
      body: newUserSchema,
      ok: envelope(publicUserAnswer, 201),
      okStatus: 201,
      errors: [409],
    },
    put: {
      summary: "Updates a user (admins): only the fields sent change.",
      body: userUpdateSchema,
      ok: ONE_USER,
      errors: [404, 409],
    },
    delete: { summary: "Deletes a user (admins).", body: userIdBody, ok: okOf(deletedAnswer), errors: [404, 409] },
  },
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
      summary: "Creates a MOC with Part A submitted (status b); the implementer is emailed.",
      body: newMocSchema,
      ok: z.object({ data: mocAnswer, status: z.literal(200) }),
    },
  },
  "/api/newImplementer": {
    post: {
      summary: "Same as POST /api/newmoc.",
      body: newMocSchema,
      ok: z.object({ data: mocAnswer, status: z.literal(200) }),
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
  "/api/chat": {
    get: {
      summary:
        "A chat room's latest 100 messages, oldest first. `before=<seq>` pages back, `after=<seq>` reads on, " +
        '`limit` (1-200) sizes the page; `Link: <...>; rel="next"` names the page beyond, when there is one.',
      query: chatQuerySchema,
      ok: z.object({ chatData: chatAnswer, user: z.object({ _id: z.uuid(), name: z.string() }) }),
      errors: [404],
    },
    post: {
      summary: "Posts a message as the caller (60 a minute per person; 429 with Retry-After beyond).",
      body: chatPostSchema,
      ok: okOf(chatAnswer),
      errors: [404, 429],
    },
  },
  "/api/pcr": {
    post: {
      summary: "Creates a PCR (every signature unsigned).",
      body: newPcrSchema,
      ok: z.object({ success: z.literal(true), data: pcrAnswer }),
    },
    put: {
      summary: "Updates a PCR (originator while pending, or admin): the form's fields sent are merged.",
      query: idQuery("PCR id"),
      body: updatePcrSchema,
      ok: PCR,
      errors: [404, 409],
    },
    delete: {
      summary: "Deletes a PCR nobody has signed (originator while pending, or admin); a signed one answers 409.",
      query: idQuery("PCR id"),
      ok: okOf(deletedAnswer),
      errors: [404, 409],
    },
  },
  "/api/search": {
    get: {
      summary: "Searches the MOCs, PCRs and archive records the caller may read, grouped by kind.",
      description:
        "`q` is words (each also matches as a prefix: `pump ove`), a serial in any usual form (`14-2026`, " +
        "`MOC 14-2026`, `MOC-14-2026`, `14/2026`; a leading MOC or PCR keeps to that kind) or a person's name. " +
        "Ranked by PostgreSQL full-text search; a serial matched exactly comes first. Each group has the total " +
        "the caller may read and its 20 best results, each with a short excerpt whose `match` pieces are what was found; " +
        "a group of more than 1,000 matches shows its 20 newest instead and answers `ranked: false`.",
      query: searchQuerySchema,
      ok: okOf(searchAnswer),
    },
  },
  "/api/pcr/{id}": { get: { summary: "One PCR the caller may see.", ok: PCR, errors: [404] } },
  "/api/singlePcr": {
    get: { summary: "One PCR the caller may see.", query: idQuery("PCR id"), ok: PCR, errors: [404] },
  },
  "/api/allPcr": {
    get: {
      summary: "The PCRs the caller may see, newest first.",
      description: "The whole list, a page with `limit`/`cursor`, or the PCR list page's rows for its filters as CSV.",
      ok: okOf(z.array(pcrAnswer)),
      csv: pcrListQuerySchema,
      paged: true,
    },
  },
  "/api/getAllPcr": {
    get: {
      summary: "Same as GET /api/allPcr.",
      ok: okOf(z.array(pcrAnswer)),
      csv: pcrListQuerySchema,
      paged: true,
    },
  },
  "/api/pcr/summary": {
    get: {
      summary: "The PCRs the caller may see, each with only its list fields (a signature is true when signed).",
      description:
        "The whole list, a page with `limit`/`cursor` (newest first), or the PCR list page's rows for its filters as CSV.",
      ok: okOf(z.array(pcrSummaryAnswer)),
      csv: pcrListQuerySchema,
      paged: true,
    },
  },
  "/api/pcr/signatures": {
    post: {
      summary:
        "Signs (or comments on) the caller's slot of the signature chain. A body that signs needs the signer's password (401 without it or wrong; it spends the sign-in failure budget).",
      body: signaturesBodySchema,
      ok: PCR,
      errors: [404, 409],
    },
  },
  "/api/pcr/substitute": {
    post: {
      summary:
        "Names who signs a position slot of a PCR whose originator holds that position (admins; 400 on userId for the originator or an earlier signer).",
      body: substituteBodySchema,
      ok: PCR,
      errors: [404, 409],
    },
  },
  "/api/pcr/withdraw": {
    post: {
      summary:
        "Withdraws a PCR (status withdrawn; a PCR with any signature cannot be deleted, 409): the originator while pending, or an admin.",
      body: withdrawBodySchema,
      ok: PCR,
      errors: [404, 409],
    },
  },
  "/api/pcr/affectedParties": {
    post: {
      summary: "Records an affected party's signature or comment.",
      body: affectedPartiesBodySchema,
      ok: PCR,
      errors: [404, 409],
    },
  },
  "/api/clonePcr": { post: { summary: "Clones a PCR.", body: clonePcrSchema, ok: PCR, errors: [404] } },
  ...Object.fromEntries(
    (["moc", "pcr"] as const).flatMap((kind) => {
      const base = kind === "moc" ? "/api/oldMoc" : "/api/oldPcr";
      const what = `legacy ${kind.toUpperCase()} record`;
      const one = okOf(archiveAnswer);
      const example = {
        serial_num: "12-2014",
        title: "Bilge pump replacement",
        ...(kind === "moc"
          ? { description: "Replaced the aft bilge pump", department: "Engineering" }
          : { procedure: "Ballast water procedure 3.1" }),
        originator_name: "Jan de Vries",
        date_raised: "2014-03-02",
        date_closed: "2014-05-20",
        status: "closed",
        attachments: ["https://files.example.com/moc/12-2014.pdf"],
        notes: "Scanned from the 2014 binder",
      };
      return [
        [
          base,
          {
            get: {
              summary: `Every ${what}.`,
              description:
                "The records the filters select (`q`, `status`, `department`, `year`), in the order `sort`/`dir` ask (latest raised first by default): " +
                "the whole list, a page with `limit`/`cursor` in the same order (a cursor of another list or order is 400), " +
                "or, with format=csv or Accept: text/csv, the same rows as CSV.",
              ok: okOf(z.array(archiveAnswer)),
              csv: archiveFilterSchema,
              paged: true,
            },
            post: {
              summary: `Adds a ${what} (admins and HSEQ).`,
              body: archiveSchemas[kind].create,
              ok: one,
              errors: [409],
              example,
            },
            put: {
              summary: `Changes the fields sent of a ${what}, named by \`_id\` (admins and HSEQ); the others are kept, as with PATCH. \`status\` is derived from \`date_closed\`: one that disagrees is 400.`,
              body: archiveSchemas[kind].replace,
              ok: one,
              example: { _id: "3fa85f64-5717-4562-b3fc-2c963f66afa6", ...example },
              errors: [404, 409],
            },
            delete: {
              summary: `Deletes a ${what} (admins and HSEQ).`,
              query: idQuery(`${kind.toUpperCase()} id`),
              ok: okOf(deletedAnswer),
              errors: [404],
            },
          } satisfies Partial<Record<Method, Operation>>,
        ],
        [
          `${base}/{id}`,
          {
            get: { summary: `One ${what}.`, ok: one, errors: [404] },
            patch: {
              summary: `Changes some fields of a ${what} (admins and HSEQ). \`status\` is derived from \`date_closed\`: one that disagrees is 400.`,
              body: archiveSchemas[kind].patch,
              ok: one,
              errors: [404, 409],
            },
          } satisfies Partial<Record<Method, Operation>>,
        ],
      ];
    }),
  ),
  "/api/titleAndVessel": {
    post: {
      summary:
        "Records the title and/or the vessel (or office / fleet) of a MOC raised without them (its originator or an admin), at any stage; 409 when the MOC already records one the body names (that changes through Part A). In the MOC's trail.",
      body: mocContextSchema,
      ok: MOC,
      errors: [404, 409],
    },
  },
  "/api/vessels": {
    get: {
      summary: "The vessel register by name, or one vessel with `id` (anyone signed in).",
      query: optionalVesselIdQuery,
      ok: okOf(z.union([vesselAnswer, z.array(vesselAnswer)])),
      errors: [404],
    },
    post: {
      summary:
        "Adds a vessel (admins). `imo` is seven digits whose last is the check digit of the first six (400 otherwise; 409 when already in the register).",
      body: vesselBodySchema,
      ok: okOf(vesselAnswer),
      errors: [409],
    },
    put: {
      summary: "Changes what the body names of a vessel (admins); a new name shows on the MOCs naming it.",
      query: vesselIdQuery,
      body: vesselUpdateSchema,
      ok: okOf(vesselAnswer),
      errors: [404, 409],
    },
    delete: {
      summary: "Deletes a vessel no MOC names (admins); 409 when one does (deactivate it with PUT `active: false`).",
      query: vesselIdQuery,
      ok: okOf(deletedAnswer),
      errors: [404, 409],
    },
  },
  "/api/vessels/assignments": {
    get: {
      summary:
        "Crew assignments (a person on a vessel from `from` to `to`), latest first: of a vessel (`vessel_id`) or a person (`user_id`). Admins read any; others their own (`user_id` = themselves). People assigned today may read their vessel's MOCs (read only).",
      query: assignmentQuerySchema,
      ok: okOf(z.array(vesselAssignmentAnswer)),
    },
    post: {
      summary:
        "Assigns a person to a vessel for a period (admins); `to` absent or null is open-ended. 409 when it overlaps another period of the same person on the same vessel.",
      body: assignmentBodySchema,
      ok: okOf(vesselAssignmentAnswer),
      errors: [409],
    },
    delete: {
      summary: "Removes a crew assignment (admins).",
      query: assignmentIdQuery,
      ok: okOf(deletedAnswer),
      errors: [404],
    },
  },
  "/api/insights": {
    get: {
      summary: "The /insights figures for a period and department (admins, HSEQ, full access).",
      description: "Or one table as CSV with format=csv&table=<id>.",
      query: insightsApiQuery,
      ok: okOf(insightsAnswer),
      csv: z.object({}),
    },
  },
  "/api/year-end-review": {
    get: {
      summary: "Every year-end review, or one with `id`.",
      description:
        "Without `id`: the whole list by year, a page with `limit`/`cursor` (newest review first), or the list as CSV.",
      query: idQuery("review id").partial(),
      ok: okOf(z.union([reviewAnswer, z.array(reviewAnswer)])),
      csv: z.object({}),
      paged: true,
      errors: [404],
    },
    post: {
      summary: "Creates a year-end review (admins and HSEQ).",
      body: reviewBodySchema,
      ok: okOf(reviewAnswer),
      errors: [409],
    },
    put: {
      summary:
        "Changes the fields sent of a year-end review (admins and HSEQ); the others are kept. `moc_summary` left out is kept (counted again when `year` changes), null is counted again.",
      query: idQuery("review id"),
      body: reviewUpdateSchema,
      ok: okOf(reviewAnswer),
      errors: [404, 409],
    },
  },
  "/api/auto_reminder": {
    get: {
      summary: "Runs today's reminders (Bearer CRON_SECRET, or an admin session).",
      ok: reminderRunAnswer,
    },
  },
  "/api/proxy": {
    get: {
      summary: "Fetches an image from a public host (signed-in users).",
      query: proxyQuery,
      ok: z.string(),
      image: true,
      errors: [429, 502, 504],
    },
  },
  "/api/openapi.json": {
    get: { summary: "This document.", public: true, ok: z.looseObject({ openapi: z.literal("3.1.0") }) },
  },
  "/api/floor": {
    get: {
      summary: "Benchmarks only (BENCH_FLOOR=1): a constant JSON body; 404 otherwise.",
      public: true,
      query: z.object({ kb: z.string().optional().meta({ description: "About this many KB (1 to 1024)." }) }),
      ok: okOf(z.array(z.looseObject({ _id: z.string() }))),
      errors: [404],
    },
  },
};

/** The sign-in: not under /api, but how an API client gets its token. */
const SIGN_IN: Operation & { path: string } = {
  path: "/login",
  summary: "Signs in: a session token (also set as the `session` cookie).",
  description:
    "Send the form fields with `Accept: application/json` for this JSON answer (a browser's form post is redirected instead). Same-origin rule: a cross-site form post is refused (403).",
  public: true,
  body: loginSchema,
  ok: loginAnswer,
  errors: [401, 403, 429],
};

// ---------------------------------------------------------------------------------------------
// Building the document

const jsonSchema = (schema: z.ZodType, io: "input" | "output") =>
  JSON.parse(
    // Shared schemas (`.meta({ id })`) come out as `$defs`, which `lift` moves to the components.
    JSON.stringify(z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" })).replaceAll(
      '"#/$defs/',
      '"#/components/schemas/',
    ),
  ) as Record<string, unknown>;

/** Moves `$defs` out of a converted schema into the document's components. */
function lift(schema: Record<string, unknown>, components: Record<string, unknown>) {
  const { $defs, $schema: _drop, ...rest } = schema as { $defs?: Record<string, unknown>; $schema?: string };
  void _drop;
  for (const [name, def] of Object.entries($defs ?? {})) components[name] ??= def;
  return rest;
}

/** A plausible value of a JSON Schema, for the examples of parameters and bodies. */
export function exampleOf(schema: unknown, depth = 0, key = ""): unknown {
  const s = (schema ?? {}) as Record<string, unknown>;
  if (depth > 8) return null;
  if ("example" in s) return s.example;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if ("const" in s) return s.const;
  if (s.default !== undefined) return s.default;
  if (Array.isArray(s.enum)) return s.enum[0];
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = s[key] as unknown[] | undefined;
    if (options?.length) {
      const notNull = options.find((o) => (o as { type?: string }).type !== "null") ?? options[0];
      return exampleOf(notNull, depth + 1, key);
    }
  }
  if (Array.isArray(s.allOf) && s.allOf.length && !s.type) return exampleOf(s.allOf[0], depth + 1, key);
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== "null") : (s.type as string | undefined);
  switch (type) {
    case "object": {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      return Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, exampleOf(v, depth + 1, k)]));
    }
    case "array": {
      const count = Math.max(1, Number(s.minItems ?? 1));
      return Array.from({ length: Math.min(count, 6) }, () => exampleOf(s.items, depth + 1, key));
    }
    case "integer":
    case "number":
      return typeof s.minimum === "number"
        ? s.minimum
        : typeof s.exclusiveMinimum === "number"
          ? s.exclusiveMinimum + 1
          : 1;
    case "boolean":
      return false;
    case "null":
      return null;
    case "string":
      return stringExample(s, key);
    default:
      return null;
  }
}

const UUID_EXAMPLE = "3fa85f64-5717-4562-b3fc-2c963f66afa6";

/** Plausible text for a field by its name, where the schema says no more than "a string". */
const BY_NAME: [RegExp, string][] = [
  [/email/i, "kari.nordmann@example.com"],
  [/password/i, "a-long-passphrase-1"],
  [/^name$|_name$|-name$/i, "Kari Nordmann"],
  [/date|due|until/i, "2026-11-25"],
  [/url|risk_assessment|attachments/i, "https://files.example.com/risk-assessment.pdf"],
  [/serial/i, "12-2026"],
];

function stringExample(s: Record<string, unknown>, key = ""): string {
  switch (s.format) {
    case "uuid":
      return UUID_EXAMPLE;
    case "email":
      return "kari.nordmann@example.com";
    case "date":
      return "2026-11-25";
    case "date-time":
      return "2026-11-25T08:30:00.000Z";
    case "uri":
      return "https://images.example.com/deck.png";
  }
  const pattern = typeof s.pattern === "string" ? s.pattern : "";
  if (/^\^\\d(\{[\d,]+\}|\+)\$$/.test(pattern)) return "1";
  if (pattern.includes("\\d{4}-\\d{2}-\\d{2}")) return "2026-11-25";
  if (pattern === "^\\d+-\\d{4}$") return "12-2026";
  if (pattern.startsWith("^[0-9a-fA-F]{8}")) return UUID_EXAMPLE;
  const min = Number(s.minLength ?? 0);
  const named = BY_NAME.find(([test]) => test.test(key))?.[1];
  const text = named && named.length <= Number(s.maxLength ?? Infinity) ? named : "Checked on the bridge";
  return min > text.length ? text.padEnd(min, ".") : text;
}

function parameters(op: Operation, path: string, components: Record<string, unknown>) {
  const fromPath = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    description: "The record's id.",
    schema: { type: "string", format: "uuid" },
    example: UUID_EXAMPLE,
  }));
  const query: Record<string, { schema: unknown; required: boolean }> = {};
  const add = (schema: z.ZodType | undefined, optional = false) => {
    if (!schema) return;
    const json = lift(jsonSchema(schema, "input"), components) as {
      properties?: Record<string, unknown>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      query[name] ??= { schema: property, required: !optional && (json.required?.includes(name) ?? false) };
    }
  };
  add(op.query);
  if (op.paged) add(pageQuery);
  if (op.csv) {
    add(op.csv, true);
    query.format ??= {
      schema: { type: "string", enum: ["csv"], description: "Answer CSV (like `Accept: text/csv`)." },
      required: false,
    };
  }
  return [
    ...fromPath,
    ...Object.entries(query).map(([name, { schema, required }]) => {
      const { description, ...rest } = schema as { description?: string };
      return {
        name,
        in: "query",
        required,
        description: description ?? `The \`${name}\` filter.`,
        schema: rest,
        example: exampleOf(rest),
      };
    }),
  ];
}

const ERROR_BODY = { $ref: "#/components/schemas/Error" };
const errorResponse = (description: string, schema: object = ERROR_BODY, headers?: object) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "application/json": { schema } },
});
const REPLAYED_HEADER = {
  description: "`true` when this is the stored answer to an earlier request with the same Idempotency-Key.",
  schema: { type: "string", enum: ["true"] },
};
/** The header every signed-in write takes (docs/api-contract.md, "Idempotency keys"). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "A key new for each request (8 to 200 visible ASCII characters; a UUID, say). The first answer below 400 is kept " +
    "for this person and key for 24 hours, written with the change; the same request again gets that answer " +
    "(`Idempotent-Replayed: true`) without a second effect, and the same key with another method, path or body is 422. " +
    "A 4xx keeps no key (nothing was done); a request sent while the first is running waits for its answer.",
  schema: { type: "string", minLength: 8, maxLength: 200, pattern: "^[\\x21-\\x7e]+$" },
  example: "9f1c0e52-3b1a-4f5e-8d67-0c2f5a9b1e44",
};
const RETRY_AFTER = { "Retry-After": { description: "Seconds to wait.", schema: { type: "integer" } } };

/** Every error status's response, described once and referenced by the operations. */
const ERRORS: Record<400 | ErrorStatus, [name: string, response: object]> = {
  304: [
    "NotModified",
    {
      description: "The list has not changed since the ETag sent in If-None-Match (no body).",
      headers: { ETag: { description: "The list's version.", schema: { type: "string" } } },
    },
  ],
  400: [
    "BadRequest",
    errorResponse("The input is not valid; `issues` lists each problem (path `` for the request as a whole).", {
      $ref: "#/components/schemas/ValidationError",
    }),
  ],
  401: [
    "Unauthorized",
    errorResponse(
      `No valid credentials: none at all ("${SIGN_IN_FIRST}"; GET /api/myUser: "${TOKEN_INVALID}"), or a refused token ("${TOKEN_EXPIRED}", "${TOKEN_NOT_YET_VALID}", "${TOKEN_INVALID}").`,
    ),
  ],
  403: ["Forbidden", errorResponse("Not allowed for the caller (or a cross-site write refused).")],
  404: ["NotFound", errorResponse("No such record (or deleted).")],
  405: [
    "MethodNotAllowed",
    errorResponse(
      "Answered on this path to a method the document does not list for it (another method, or TRACE, CONNECT or an unknown one): `Allow` names the methods answered.",
      ERROR_BODY,
      { Allow: { description: "The methods answered.", schema: { type: "string" } } },
    ),
  ],
  409: [
    "Conflict",
    errorResponse("The record is not in a state that allows this (a step already taken, a signed PCR)."),
  ],
  413: ["TooLarge", errorResponse("The body is larger than 1 MiB (or a field over its limit).")],
  415: ["UnsupportedMediaType", errorResponse("The body must be sent as application/json.")],
  422: [
    "IdempotencyKeyReused",
    errorResponse(
      "The Idempotency-Key was used before, by the same person, for another request (another method, path or body); nothing was done.",
    ),
  ],
  429: [
    "TooManyRequests",
    errorResponse("Too many requests; try again after Retry-After seconds.", ERROR_BODY, RETRY_AFTER),
  ],
  431: [
    "HeadersTooLarge",
    errorResponse("The request's headers are too large (more than 16 KiB in all, cookies included)."),
  ],
  503: [
    "Unavailable",
    errorResponse(
      "The database cannot be reached just now; try again after Retry-After seconds. Nothing was changed.",
      ERROR_BODY,
      RETRY_AFTER,
    ),
  ],
  502: ["BadGateway", errorResponse("The other host answered with an error or something that is not an image.")],
  504: ["GatewayTimeout", errorResponse("The other host did not answer in time.")],
};

const TAGS: [tag: string, description: string, test: (path: string) => boolean][] = [
  ["Sign-in", "Getting a session token.", (p) => p === "/login"],
  [
    "Users",
    "People, their own profile and credentials.",
    (p) => /^\/api\/(verify|myUser|user|users|UserFromDatabase)$/.test(p),
  ],
  ["Vessels", "The vessel register and crew assignments.", (p) => p.startsWith("/api/vessels")],
  [
    "MOC pipeline",
    "The steps of a MOC, one operation each.",
    (p) => p.startsWith("/api/submit/") || p === "/api/reportCompletion",
  ],
  [
    "PCRs",
    "Procedure change requests and their signature chain.",
    (p) => /^\/api\/(pcr|singlePcr|allPcr|getAllPcr|clonePcr)\b/.test(p),
  ],
  ["Legacy archive", "Paper-era MOC and PCR records.", (p) => /^\/api\/old(Moc|Pcr)\b/.test(p)],
  ["Chat", "The chat room of each MOC and PCR.", (p) => p === "/api/chat"],
  [
    "Reports",
    "Insights, year-end reviews and reminders.",
    (p) => /^\/api\/(insights|year-end-review|auto_reminder)$/.test(p),
  ],
  [
    "Service",
    "Images from other hosts, this document, the benchmark floor.",
    (p) => /^\/api\/(proxy|openapi\.json|floor)$/.test(p),
  ],
  ["MOCs", "Management of change records.", () => true],
];
const tagOf = (path: string) => TAGS.find(([, , test]) => test(path))![0];

/** `get` + `/api/oldMoc/{id}` -> `getOldMocById`: unique, as a path and method are. */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .replace(/^\/api\//, "/")
    .split("/")
    .filter(Boolean)
    .map((segment) => (segment.startsWith("{") ? "By-" + segment.slice(1, -1) : segment))
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
}

/** The operations that answer without the database (no 503). */
const WITHOUT_DATABASE = new Set(["/api/openapi.json", "/api/floor"]);

function operation(method: string, path: string, op: Operation, components: Record<string, unknown>) {
  const errors = new Set<400 | ErrorStatus>();
  // Any request can be malformed (a URL with a bad percent-encoding is refused before the route),
  // carry too many headers (431, from the HTTP server) or use a method its path does not answer (405).
  [400, 405, 431].forEach((s) => errors.add(s as 400 | ErrorStatus));
  if (!WITHOUT_DATABASE.has(path) && path !== "/login") errors.add(503);
  if (!op.public) SIGNED_IN_ERRORS.forEach((s) => errors.add(s));
  if (op.body) WRITE_ERRORS.forEach((s) => errors.add(s));
  // A signed-in write with a session cookie takes only a JSON body (or none): anything else is 415
  // (app/web/auth.server.ts `assertJsonBody`); bearer callers are not asked.
  if (!op.public && method !== "get") errors.add(415);
  // Every signed-in write takes an Idempotency-Key (app/web/idempotency.server.ts), but the
  // credential routes, which keep nothing (docs/decisions/048-replays-keep-no-credentials.md).
  const keyed = !op.public && method !== "get" && !isCredentialRoute(new URL(path, "http://api.invalid"));
  if (keyed) errors.add(422);
  op.errors?.forEach((s) => errors.add(s));
  const okSchema = lift(jsonSchema(op.ok, "output"), components);
  const okContent: Record<string, unknown> = op.image
    ? {
        "image/*": {
          schema: { type: "string", contentMediaType: "image/*", description: "The image's bytes." },
        },
      }
    : { "application/json": { schema: okSchema } };
  if (op.csv) {
    okContent["text/csv"] = {
      schema: { type: "string", description: "UTF-8 with a byte-order mark; a header row, then one row per record." },
    };
  }
  const okHeaders: Record<string, unknown> = {};
  if (op.paged) {
    okHeaders.Link = {
      description: 'On a page that is not the last: `<address of the next page>; rel="next"`.',
      schema: { type: "string" },
    };
  }
  if (errors.has(304)) {
    okHeaders.ETag = { description: "The list's version, for If-None-Match.", schema: { type: "string" } };
  }
  let requestBody: object | undefined;
  if (op.body) {
    const schema = lift(jsonSchema(op.body, "input"), components);
    const form = path === "/login";
    requestBody = {
      required: true,
      content: {
        [form ? "application/x-www-form-urlencoded" : "application/json"]: {
          schema,
          example: op.example ?? exampleOf(schema),
        },
      },
    };
  }
  return {
    operationId: operationIdOf(method, path),
    tags: [tagOf(path)],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(op.public ? { security: [] } : {}),
    parameters: [
      ...parameters(op, path, components),
      ...(keyed ? [{ $ref: "#/components/parameters/IdempotencyKey" }] : []),
    ],
    ...(requestBody ? { requestBody } : {}),
    responses: {
      [String(op.okStatus ?? 200)]: {
        description: "Success.",
        ...(Object.keys(okHeaders).length || keyed
          ? { headers: { ...okHeaders, ...(keyed ? { "Idempotent-Replayed": REPLAYED_HEADER } : {}) } }
          : {}),
        content: okContent,
      },
      ...Object.fromEntries(
        [...errors]
          .sort((a, b) => a - b)
          .map((status) => [String(status), { $ref: `#/components/responses/${ERRORS[status][0]}` }]),
      ),
    },
  };
}

let built: Record<string, unknown> | undefined;

/** The whole document (built once: it depends on code only). */
export function openApiDocument(): Record<string, unknown> {
  if (built) return built;
  const schemas: Record<string, unknown> = {
    Error: {
      type: "object",
      description: "Every error's body.",
      required: ["status", "message"],
      properties: {
        status: { type: "integer", description: "The HTTP status again." },
        message: { type: "string", description: "What went wrong, for a person." },
        issues: { $ref: "#/components/schemas/Issues" },
      },
      additionalProperties: false,
    },
    ValidationError: {
      type: "object",
      description: "A 400's body: always with its issues.",
      required: ["status", "message", "issues"],
      properties: {
        status: { const: 400 },
        message: { type: "string" },
        issues: { $ref: "#/components/schemas/Issues" },
      },
      additionalProperties: false,
    },
    Issues: {
      type: "array",
      description: "One entry per problem: `path` is the dotted path in the body or query (`` for the whole request).",
      items: {
        type: "object",
        required: ["path", "message"],
        properties: { path: { type: "string" }, message: { type: "string" } },
        additionalProperties: false,
      },
    },
  };
  // Shared answer schemas first, so operations reference them by name.
  for (const shared of [publicUserAnswer, userRefAnswer, signatureManifestationAnswer, mocAnswer, pcrAnswer]) {
    lift(jsonSchema(shared, "output"), schemas);
  }
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, operations] of Object.entries(API)) {
    paths[path] = Object.fromEntries(
      Object.entries(operations).map(([method, op]) => [method, operation(method, path, op, schemas)]),
    );
  }
  const { path: signInPath, ...signIn } = SIGN_IN;
  paths[signInPath] = { post: operation("post", signInPath, signIn, schemas) };
  built = {
    openapi: "3.1.0",
    info: {
      title: "Change Management API",
      version: "1",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
      description:
        "Success answers are `{ status, data }` unless an operation says otherwise; errors are `{ status, message, issues? }` " +
        "(`issues` on every 400, each `{ path, message }` with `path` the dotted path in the body or query). " +
        "Sign in with POST /login (form fields, `Accept: application/json`) for a token; send it as " +
        "`Authorization: Bearer <token>` or let the browser send the `session` cookie. " +
        `A request without credentials is 401 "${SIGN_IN_FIRST}" (GET /api/myUser: "${TOKEN_INVALID}"); ` +
        `a refused token is 401 with "${TOKEN_EXPIRED}", "${TOKEN_NOT_YET_VALID}" or "${TOKEN_INVALID}". ` +
        "Any path answers a method it does not list with 405 and `Allow`, headers over 16 KiB with 431, and, while the database cannot be reached, 503 with `Retry-After`. " +
        "A write sent with the session cookie must carry its body as `Content-Type: application/json` (415 otherwise). " +
        "Every signed-in write takes an `Idempotency-Key` header: a replay of the same request gets the first answer again, applied once. " +
        `Lists with \`limit\` (1 to ${MAX_PAGE}) and \`cursor\` answer one page and a \`Link: <...>; rel="next"\` header; ` +
        "without them, the whole list.",
    },
    servers: [{ url: "/", description: "The instance serving this document (its APP_URL)." }],
    tags: TAGS.map(([name, description]) => ({ name, description })),
    security: [{ bearer: [] }, { cookie: [] }],
    paths,
    components: {
      parameters: { IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER },
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "The token POST /login answers." },
        cookie: { type: "apiKey", in: "cookie", name: "session", description: "The session cookie the sign-in sets." },
      },
      schemas,
      // The error responses some operation uses (an entry of ERRORS waits until one does).
      responses: Object.fromEntries(
        Object.values(ERRORS)
          .filter(([name]) => JSON.stringify(paths).includes(`"#/components/responses/${name}"`))
          .map(([name, response]) => [name, response]),
      ),
    },
  };
  return built;
}
