/**
 * What the /api operations answer, as zod schemas: the OpenAPI document (app/web/openapi.server.ts)
 * converts them to JSON Schema like the input schemas, and tests/integration/api-contract.test.ts
 * validates every real answer against the document. A key a route starts to answer, or a type it
 * changes, must be written here too, or the contract test fails (and, through the generated types
 * in tests/helpers/api-types.ts, the type check of the API tests).
 *
 * Objects are closed (no other keys) where the shape is the model's own; the forms and documents
 * whose keys follow the clients' input stay open (`looseObject`), with their known keys typed.
 */
import { z } from "zod";
import { ACCESS_LEVELS, DEPARTMENTS, LEGACY_STATUSES, PCR_ROLES, POSITIONS, ROLES } from "#db/schema/enums";
import { effectivenessReviewAnswer } from "../../models/moc/effectiveness.schema";
import { INSIGHT_MOC_FIGURES } from "../../models/insights/insights.constants";

const id = z.uuid();
const at = z.iso.datetime({ offset: true }).meta({ description: "A moment, ISO 8601 (UTC)." });
const day = z.iso.date().meta({ description: "A day, YYYY-MM-DD." });
const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();

// ---------------------------------------------------------------------------------------------
// People

/** A user as every answer carries them (never a password or its hash). */
export const publicUserAnswer = z
  .object({
    _id: id,
    name: z.string(),
    email: z.email(),
    role: z.enum(ROLES),
    department: z.enum(DEPARTMENTS),
    access: z.enum(ACCESS_LEVELS),
    position: z.enum(POSITIONS).nullable(),
    rank: z.string().nullable().meta({ description: "Rank on board (GET /api/ranks lists them), null for none." }),
    active: z.boolean(),
    onboarded: z.boolean(),
  })
  .meta({ id: "User" });

/** A user as MOC documents populate them (built in SQL: db/moc-document.ts). */
export const userRefAnswer = z
  .object({
    _id: id,
    name: z.string(),
    email: z.string(),
    role: z.enum(ROLES),
    department: z.enum(DEPARTMENTS),
    access: z.enum(ACCESS_LEVELS),
    position: z.string().nullable(),
    active: z.boolean(),
  })
  .meta({ id: "UserRef" });

const personName = z.object({ _id: id, name: z.string() });

export const signatureManifestationAnswer = z
  .object({
    signerId: id,
    printedName: z.string(),
    accountName: z
      .string()
      .nullable()
      .optional()
      .meta({ description: "The signing account's name now, when it was renamed after signing (else null)." }),
    position: z.string().nullable(),
    role: z.string(),
    meaning: z.string(),
    signedAt: at,
    onBehalfOf: personName.nullable(),
  })
  .meta({ id: "SignatureManifestation" });

// ---------------------------------------------------------------------------------------------
// MOCs

/** A stored form of a MOC: its `{ value }` fields (as the client sent them) and its stamps. */
const storedForm = z
  .looseObject({
    _id: id,
    submittedAt: nullable(at),
    submittedBy: z
      .object({ _id: id, name: z.string() })
      .nullable()
      .optional()
      .meta({ description: "Who submitted the form last (null for a draft)." }),
    createdAt: at,
    updatedAt: at,
  })
  .catchall(z.unknown())
  .meta({ id: "MocForm", description: "The form's fields, each `{ value }`, with the form's stamps." });

const mocLog = z.object({
  _id: id,
  userId: userRefAnswer.nullable(),
  onBehalfOf: userRefAnswer.nullable(),
  action: z.string(),
  from: z.string().nullable(),
  to: z.string(),
  comment: z.string().nullable(),
  at,
});

const deviationItem = z.looseObject({
  requested: z.boolean(),
  details: z.string(),
  resolved: z.boolean(),
  approved: z.enum(["yes", "no"]).nullable(),
});
const extensionItem = z.looseObject({ requested: z.boolean(), new_date: z.string(), resolved: z.boolean() });

/** A plan item cancelled with its reason (docs/decisions/033-closure-gates.md); absent or null while it is not. */
const planItemCancelled = z
  .object({ reason: z.string(), by: id, byName: z.string(), at: z.string() })
  .nullable()
  .optional()
  .meta({ description: "Who cancelled the item, when and why; a cancelled item does not hold up closing." });

/** How a plan item was marked done (docs/decisions/038-actions-as-tasks.md); absent or null while it is not. */
const planItemCompletion = z
  .object({
    by: id,
    byName: z.string(),
    at: z.string(),
    note: z.string().nullable(),
    evidence: z.object({ _id: id, name: z.string(), sha256: z.string(), size: z.number() }).nullable(),
  })
  .nullable()
  .optional()
  .meta({ description: "Who marked the item done, when, with which note and evidence file." });

/** A training's people and attendance (docs/decisions/056-training.md); absent or null on an action that is not one. */
const planItemTraining = z
  .object({
    attendees: z.array(z.object({ _id: id, name: z.string() })),
    attendance: z.array(
      z.object({
        _id: id,
        user: id,
        name: z.string(),
        attended: z.boolean(),
        on: z.string(),
        note: z.string().nullable(),
        by: id,
        byName: z.string(),
        at: z.string(),
      }),
    ),
  })
  .nullable()
  .optional()
  .meta({
    description:
      "A training (a new key): who must attend, and each attendance record as added (a person's latest decides; `attended: false` is a correction).",
  });

export const mocAnswer = z
  .object({
    _id: id,
    serial_num: z.string(),
    status: z.string().meta({ description: "The step it waits for: a to f, or decline." }),
    completed: z.boolean(),
    isDeleted: z.boolean(),
    cloned: z.boolean(),
    previous_moc: z.string().nullable(),
    originator_form: storedForm.nullable(),
    implementer_form: storedForm.nullable(),
    hseq_form: storedForm.nullable(),
    approver_form: storedForm.nullable(),
    implementation: storedForm.nullable(),
    verifier_form: storedForm.nullable(),
    originator_id: userRefAnswer.nullable(),
    implementer_id: userRefAnswer.nullable(),
    approver_id: userRefAnswer.nullable(),
    verifier_id: userRefAnswer.nullable(),
    hseq_id: userRefAnswer.nullable(),
    all_users: z.array(userRefAnswer),
    logs: z.array(mocLog),
    signatureManifestations: z.array(signatureManifestationAnswer),
    decline: z.object({ stage: z.string(), reason: z.string(), by: z.string(), at: z.string() }).nullable(),
    extentionsAndDeviations: z
      .looseObject({
        _id: id,
        deviation: deviationItem.nullable(),
        extension: extensionItem.nullable(),
        requestedAt: z.string(),
        requestedBy: z.string(),
        completion: z
          .object({
            date: z.string(),
            note: z.string(),
            by: id,
            byName: z.string(),
            at: z.string(),
            via: z.enum(["report", "implementation"]).optional(),
          })
          .nullable()
          .optional()
          .meta({
            description:
              "The implementer's completion report after the deviation and extension decisions (POST /api/reportCompletion; a new key): when the change was finished and how. Null or absent until reported.",
          }),
      })
      .nullable(),
    impact_assessment: z.array(
      z.object({
        category: z.string(),
        hazards: z.array(z.string()),
        likelihood: z.number().int().optional(),
        severity: z.number().int().optional(),
        controls: z.string().optional(),
        residualLikelihood: z.number().int().optional(),
        residualSeverity: z.number().int().optional(),
      }),
    ),
    risk_assessment: z.string().nullable(),
    risk_level: z
      .enum(["low", "medium", "high", "extreme"])
      .nullable()
      .optional()
      .meta({ description: "The MOC's risk: the highest residual level of its impact items; null when not ranked." }),
    reviewed_risk_level: z.enum(["low", "medium", "high", "extreme"]).nullable().optional().meta({
      description:
        "The highest level HSEQ reviewed the MOC at; its approvals follow the higher of this and risk_level. Null before the HSEQ review.",
    }),
    effectiveness_review: effectivenessReviewAnswer.nullable().optional().meta({
      description:
        "Its effectiveness review (issue 42, a new key): set when the verification closed it, null before (or for a MOC closed before reviews were asked).",
    }),
    stage: z.string().meta({
      description:
        'Where the MOC stands, in words, as every page, list, CSV, print and email names it: the status\'s own ("Approval", "Verification") or the step it waits on ("Deviation decision", "Second approval (High risk)", "Completion report", "Returned by HSEQ", "Expired, not restored"). Read live with every answer (GET /api/singlemoc, the lists, every step and write), never stored.',
    }),
    no_significant_hazard: z
      .object({ reason: z.string(), by: id, byName: z.string(), at: z.string() })
      .nullable()
      .optional()
      .meta({
        description:
          "The implementer's declaration that the change has no significant hazard, with their reason: it ranks a MOC without impact items Low (issue 38's risk gate). Null when not declared.",
      }),
    action: z.looseObject({
      items: z.array(
        z.looseObject({
          _id: z.string(),
          description: z.string(),
          cancelled: planItemCancelled,
          completion: planItemCompletion,
          training: planItemTraining,
        }),
      ),
    }),
    manual_plan: z.looseObject({
      items: z.array(
        z.looseObject({
          _id: z.string(),
          document: z.string(),
          cancelled: planItemCancelled,
          completion: planItemCompletion,
        }),
      ),
    }),
    plan_owners: z
      .array(z.object({ _id: id, name: z.string() }))
      .optional()
      .meta({ description: "The people the plans name as owners, by name." }),
    chat: id,
    target_date: day.nullable(),
    temporary: z.looseObject({ until: day, state: z.string() }).nullable(),
    createdAt: at,
    updatedAt: at,
  })
  .meta({ id: "Moc", description: "A MOC with every reference populated." });

export const pendingActionAnswer = z.object({
  type: z.string(),
  moc: z.looseObject({ _id: id, serial_num: z.string(), status: z.string(), completed: z.boolean() }),
  waitingSince: at,
  stage: z.string().nullable().meta({
    description: 'How the MOC reads while it waits: "Returned by HSEQ", "Expired, not restored", or null.',
  }),
  mayAct: z.boolean().meta({
    description:
      "The caller may submit the step; false when it waits on them to see it done (an expired temporary change).",
  }),
});

// ---------------------------------------------------------------------------------------------
// PCRs

const pcrPerson = z.object({
  _id: id,
  name: z.string(),
  email: z.email(),
  position: z.string().nullable(),
  department: z.enum(DEPARTMENTS),
});
const signature = z
  .union([z.string(), z.literal(false), z.null()])
  .meta({ description: "The signature (typed name or PNG data URL), `false` unsigned, `null` commented only." });

export const pcrAnswer = z
  .object({
    _id: id,
    serial_num: z.string(),
    status: z.string(),
    chatId: id,
    createdAt: at,
    updatedAt: at,
    finishedAt: at.nullable(),
    withdrawnAt: at.nullable().meta({ description: "When it was withdrawn (status `withdrawn`)." }),
    substitutes: z
      .array(z.object({ role: z.string(), userId: id, namedBy: id, namedAt: at }))
      .meta({ description: "People an admin named to sign a position slot the originator holds." }),
    cloned: z.boolean(),
    previous_serial_num: z.string().nullable(),
    originator_id: id,
    originator: pcrPerson.nullable(),
    form: z.looseObject({
      originator: id.optional(),
      "new-suggestion": z.boolean(),
      "procedure-change": z.boolean(),
      "safety-critical": z.boolean(),
      "manual-procedure": z.string(),
      "suggestion-details": z.string(),
      "reason-for-change": z.string(),
    }),
    signatures: z.array(
      z.object({
        Name: z.enum(PCR_ROLES),
        Signature: signature,
        signatureDate: day.nullable(),
        signedAt: at.nullable(),
        Comments: z.string(),
        signedBy: pcrPerson.nullable(),
      }),
    ),
    affectedParties: z.array(
      z.object({
        Name: z.object({ value: id }),
        Signature: signature,
        signatureDate: day.nullable(),
        signedAt: at.nullable(),
        Comments: z.string(),
        user: pcrPerson.nullable(),
      }),
    ),
    signatureManifestations: z.array(signatureManifestationAnswer),
  })
  .meta({ id: "Pcr", description: "A PCR with the people it names populated." });

export const pcrSummaryAnswer = z.object({
  _id: id,
  serial_num: z.string(),
  chatId: id,
  status: z.string(),
  createdAt: at,
  cloned: z.boolean(),
  signatures: z.array(
    z.object({
      Name: z.enum(PCR_ROLES),
      Signature: z.union([z.boolean(), z.null()]).meta({ description: "true signed, false unsigned, null commented" }),
      signatureDate: day.nullable(),
      Comments: z.string(),
    }),
  ),
  affectedParties: z.array(
    z.object({ Name: z.object({ value: id }), Signature: z.union([z.boolean(), z.null()]), Comments: z.string() }),
  ),
  originator: z.object({ _id: id, name: z.string(), email: z.email(), department: z.enum(DEPARTMENTS) }).nullable(),
});

// ---------------------------------------------------------------------------------------------
// Chat, archive, reviews, insights, reminders

export const chatAnswer = z
  .object({
    _id: id,
    messages: z.array(
      z.object({ _id: id, seq: z.number().int(), sender: userRefAnswer, message: z.string(), timestamp: at }),
    ),
  })
  .meta({ id: "Chat" });

export const archiveAnswer = z
  .object({
    _id: id,
    serial_num: z.string(),
    title: z.string(),
    description: z.string().optional(),
    department: z.string().optional(),
    procedure: z.string().optional(),
    originator_name: z.string(),
    date_raised: day,
    date_closed: day.nullable(),
    status: z.enum(LEGACY_STATUSES),
    attachments: z.array(z.string()),
    notes: z.string(),
    createdAt: at,
    updatedAt: at,
    created_by: personName.nullable(),
    updated_by: personName.nullable(),
  })
  .meta({ id: "LegacyRecord" });

export const reviewAnswer = z
  .object({
    _id: id,
    year: z.number().int(),
    title: z.string(),
    sections: z.array(z.object({ heading: z.string(), body: z.string() })),
    participants: z.array(publicUserAnswer),
    moc_summary: z.looseObject({ total: z.number().int() }),
    effectiveness: z.string(),
    improvements: z.string(),
    issues: z.string(),
    actions: z.array(
      z.object({ description: z.string(), owner: publicUserAnswer.nullable(), due: z.string(), status: z.string() }),
    ),
    createdBy: publicUserAnswer.nullable(),
    updatedBy: publicUserAnswer.nullable(),
    createdAt: at,
    updatedAt: at,
  })
  .meta({ id: "YearEndReview" });

export const insightsAnswer = z
  .looseObject({
    period: z.object({ from: day, to: day, department: z.string().nullable(), asOf: day }),
    totals: z.looseObject({ opened: z.number(), completed: z.number(), declined: z.number() }),
    monthly: z.array(z.looseObject({ month: z.string() })),
    acknowledgementCompliance: z
      .array(
        z.object({
          vessel: z.string(),
          recipients: z.number().int(),
          acknowledged: z.number().int(),
          onTime: z.number().int(),
          overdue: z.number().int(),
          left: z.number().int(),
          compliance: z.number().nullable(),
        }),
      )
      .meta({
        description:
          "Acknowledgement compliance by vessel (issue 41): recipients due in the period, acknowledged, on time, overdue, left the vessel; compliance = on time in percent of acknowledged + overdue.",
      }),
  })
  .meta({ id: "Insights", description: "The /insights figures (docs/decisions/017-insights.md)." });

/** GET /api/reviewPack (issue 42, docs/decisions/059-management-review-pack.md). */
export const reviewPackAnswer = z
  .object({
    figures: insightsAnswer,
    bottleneck: z
      .object({
        step: z.string(),
        label: z.string(),
        median: z.number(),
        p90: z.number().nullable(),
        count: z.number().int(),
      })
      .nullable()
      .meta({ description: "The step whose stays ended in the period took longest (median, then 90th percentile)." }),
    lists: z
      .array(
        z.object({
          figure: z.enum([...INSIGHT_MOC_FIGURES, "step"]),
          key: z.string().meta({
            description: "The figure's row: a state, type, risk level, vessel or step; empty for one-number figures.",
          }),
          count: z.number().int().meta({ description: "The figure's own count." }),
          mocs: z.array(
            z.object({
              id,
              number: z.string(),
              title: z.string().nullable(),
              vessel: z.string(),
              state: z.string(),
              risk: z.enum(["low", "medium", "high", "extreme"]).nullable(),
            }),
          ),
          more: z
            .number()
            .int()
            .meta({ description: "How many of the figure's MOCs are not listed (at most 10 are, newest first)." }),
        }),
      )
      .meta({ description: "The MOCs behind each figure." }),
    filter: z.object({
      from: day,
      to: day,
      department: z.enum(DEPARTMENTS).nullable(),
      vessel: z
        .string()
        .nullable()
        .optional()
        .meta({ description: 'A vessel id, "office", "fleet" or "none"; null for all.' }),
    }),
    generatedAt: z.string(),
  })
  .meta({ id: "ReviewPack", description: "The management review pack: Insight's figures with the MOCs behind each." });

export const reminderRunAnswer = z.object({
  message: z.string(),
  totalReminders: z.number().int(),
  results: z.array(
    z.object({
      moc_id: id,
      serial_num: z.string(),
      urgency: z.enum(["CRITICAL", "URGENT", "HIGH", "MEDIUM", "LOW"]),
      emailsSent: z.number().int(),
    }),
  ),
});

export const deletedAnswer = z.object({ _id: id });

/** The sign-in's JSON answer (POST /login with `Accept: application/json`). */
export const loginAnswer = z.object({ token: z.string(), admin: z.boolean(), onboarded: z.boolean() });

// ---------------------------------------------------------------------------------------------
// Envelopes

/** `{ status, data }`: the default success body. */
export const envelope = <T extends z.ZodType>(data: T, status = 200) => z.object({ status: z.literal(status), data });

/** The risk matrix's settings and the risk gate (GET/PUT /api/riskSettings; docs/decisions/037). */
export const riskSettingsAnswer = z.object({
  lowMax: z.number().int(),
  mediumMax: z.number().int(),
  highMax: z.number().int(),
  highPosition: z.string(),
  extremePosition: z.string(),
  rankingRequired: z.boolean().meta({
    description:
      "A MOC passes the HSEQ review only once ranked (every impact item ranked before and after its controls, or the implementer's no-significant-hazard declaration), and a High or Extreme one only with its risk assessment file attached. On for a new database.",
  }),
});

/** A vessel of the register (GET/POST/PUT /api/vessels; docs/decisions/036-vessels-and-crew-access.md). */
export const vesselAnswer = z.object({
  _id: id,
  name: z.string(),
  imo: z.string().meta({ description: "Seven digits, the last the check digit." }),
  ship_type: z.string(),
  flag: z.string(),
  active: z.boolean(),
  createdAt: at,
  updatedAt: at,
});

/** A crew assignment of a person to a vessel for a period (GET/POST /api/vessels/assignments). */
export const vesselAssignmentAnswer = z.object({
  _id: id,
  vessel: z.object({ _id: id, name: z.string() }),
  user: z.object({ _id: id, name: z.string() }),
  from: z.iso.date(),
  to: z.iso.date().nullable().meta({ description: "Null: open-ended." }),
  current: z.boolean().meta({ description: "The period holds today (UTC)." }),
});
