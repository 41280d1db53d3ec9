/**
 * MOC input schemas: the contract's body keys (docs/api-contract.md) and `{ value }` fields, shared by the /api routes, the
 * page actions and the pages' browser-side validation.
 */
import { z } from "zod";
import { isoDate, MAX_HTML, MAX_TEXT, uuid } from "../shared/fields.schema";
import { DEPARTMENTS } from "#db/schema/enums";
import { withoutBidiControls } from "../shared/text-rules";
import { isScope, SCOPES } from "../fleet/vessel.constants";
import { readRecordRef } from "../records/record-refs.constants";

/**
 * Input limits (docs/security.md, "Input limits"): a rich-text field, a plain-text field, and the
 * text of one list (impact assessment, action plan, manuals plan) in all. They keep a record's
 * print and PDF within a few hundred pages.
 */
export const MAX_LIST_TEXT = 50_000;

/** The characters of text in a list's items (every string in them). */
const textLength = (value: unknown): number =>
  typeof value === "string"
    ? value.length
    : Array.isArray(value)
      ? value.reduce((n: number, v) => n + textLength(v), 0)
      : value && typeof value === "object"
        ? Object.values(value).reduce((n: number, v) => n + textLength(v), 0)
        : 0;
/** A list field's check: at most MAX_LIST_TEXT characters of text in all. */
const listTextLimit = (what: string) =>
  [
    (items: unknown[]) => textLength(items) <= MAX_LIST_TEXT,
    {
      error: `${what} may hold at most ${MAX_LIST_TEXT.toLocaleString("en")} characters of text in all; shorten it`,
    },
  ] as const;

export const yesNo = z.enum(["yes", "no"], { error: "Answer yes or no" });
const department = z.enum(DEPARTMENTS, { error: `Department must be one of: ${DEPARTMENTS.join(", ")}` });
const text = (what: string, max = MAX_TEXT) =>
  z
    .string({ error: `${what} is required` })
    .trim()
    .min(1, { error: `${what} is required` })
    .max(max, { error: `${what} must be at most ${max} characters` });
const html = (what: string) =>
  z
    .string({ error: `${what} is required` })
    .max(MAX_HTML, { error: `${what} is too long` })
    .refine((v) => v.replace(/<[^>]*>/g, "").trim().length > 0, { error: `${what} is required` });

/** A form field: `{ value: <v> }`. */
export const field = <T extends z.ZodType>(schema: T) => z.object({ value: schema }, { error: "Expected { value }" });

const isBlank = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  (typeof v === "string" && v.trim() === "") ||
  (typeof v === "object" && !Array.isArray(v) && Object.values(v).every(isBlank));

/**
 * An optional `{ value }` field. A blank one counts as absent: a page always posts its optional
 * inputs, and an empty text box or an unchosen person arrives as `{ value: "" }` (or, once
 * conform has dropped the empty string, `{ value: undefined }`).
 */
export const optionalField = <T extends z.ZodType>(schema: T) =>
  z.preprocess(
    (v) => (v && typeof v === "object" && isBlank((v as { value?: unknown }).value) ? undefined : v),
    field(schema).optional(),
  );

/** A user reference as the contract writes it: `{ _id }` (the createImplementer body also allows the bare id). */
export const userRef = z.union([z.object({ _id: uuid("user id"), name: z.string().optional() }), uuid("user id")]);
export const refId = (ref: z.infer<typeof userRef>) => (typeof ref === "string" ? ref : ref._id);

/**
 * A rule a form's `superRefine` checks, said in JSON Schema for the API document (zod's
 * `.meta()` keys go into `z.toJSONSchema`'s output): when the `{ value }` fields in `when` hold
 * those answers, the form also needs the fields `then`.
 */
export const conditions = (rules: { when: Record<string, string>; then: string[] }[]) => ({
  allOf: rules.map(({ when, then }) => ({
    if: {
      unevaluatedProperties: true,
      required: Object.keys(when),
      properties: Object.fromEntries(
        Object.entries(when).map(([key, answer]) => [
          key,
          { required: ["value"], properties: { value: { const: answer } } },
        ]),
      ),
    },
    // Open on purpose: `if`/`then` only add conditions to the form's own schema (and validators
    // that close schemas by default, such as redocly's example check, must not close these).
    then: {
      required: then,
      properties: Object.fromEntries(then.map((key) => [key, { type: "object" }])),
      unevaluatedProperties: true,
    },
  })),
});

/** `?moc_id=` (GET /api/singlemoc, GET /api/implementer). */
export const mocIdQuery = z.object({ moc_id: uuid("MOC id") });
/** `?id=` naming one record (`what`: "MOC id", "PCR id", ...). */
export const idQuery = (what: string) => z.object({ id: uuid(what) });

// ---------------------------------------------------------------------------------------------
// Part A: originator

export const CHANGE_TYPES = ["permanent", "temporary"] as const;

/** A MOC's title (docs/decisions/036-vessels-and-crew-access.md): 3-120 characters of one line of plain text. */
export const mocTitle = withoutBidiControls(
  z
    .string({ error: "Title is required" })
    .trim()
    .min(3, { error: "Title must be at least 3 characters" })
    .max(120, { error: "Title must be at most 120 characters" })
    // eslint-disable-next-line no-control-regex
    .refine((v) => !/[\u0000-\u001f\u007f-\u009f]/.test(v), { error: "Title must be one line of plain text" }),
  "The title",
);

/** Part A's scope: a vessel of the register (`{ _id }`), or "office" (office / shore) or "fleet" (fleet-wide). */
export const vesselRef = z.union([z.enum(SCOPES), z.object({ _id: uuid("vessel id"), name: z.string().optional() })], {
  error: 'Vessel must be { _id } of a vessel, "office" or "fleet"',
});

export const originatorFields = {
  /** Optional over /api (clients of the original contract); the page form requires it. */
  title: optionalField(mocTitle),
  /** Optional over /api like the title; the page form requires it. */
  vessel: optionalField(vesselRef),
  "description-of-change": field(html("Description of change")),
  "reason-for-change": field(text("Reason for change")),
  "department-of-change": field(department),
  "affected-departments": field(z.array(department).max(DEPARTMENTS.length)),
  "departments-to-inform": field(z.array(department).max(DEPARTMENTS.length)).optional(),
  /** Absent: permanent (existing clients). A temporary change names the date it must end. */
  "change-type": optionalField(z.enum(CHANGE_TYPES, { error: "Change type must be permanent or temporary" })),
  "temporary-until": optionalField(isoDate),
  /**
   * What the person raising the change saw that could go wrong (optional; issue 38 "Part A for the
   * ship"): the implementer's impact assessment starts from it.
   */
  "hazards-seen": optionalField(text("Hazards seen")),
  /** When the person raising it needs the change (optional, today or later); Part B sets the MOC's target date. */
  "target-date": optionalField(isoDate),
};

export const originatorFieldsSchema = z.object(originatorFields);
type OriginatorFields = z.infer<typeof originatorFieldsSchema>;
/**
 * Part A as the model takes it: a draft may leave out the implementer, the description, the
 * reason and the department (a submitted Part A has them all).
 */
export type NewMocInput = Omit<OriginatorFields, DraftOptional> &
  Partial<Pick<OriginatorFields, DraftOptional>> & {
    implementer?: { value: z.infer<typeof userRef> } | null;
  };
type DraftOptional = "description-of-change" | "reason-for-change" | "department-of-change";

export const originatorFormSchema = z.object({
  "implementer-name": field(userRef),
  ...originatorFields,
});
export type OriginatorForm = z.infer<typeof originatorFormSchema>;

/**
 * A follow-up's original (issue 42, docs/decisions/058-effectiveness-review.md): "moc:<id>"; the new
 * MOC is linked to it ("follow-up of").
 */
export const followUpField = z
  .string({ error: 'Expected the original MOC as "moc:<id>"' })
  .trim()
  .refine((v) => /^moc:/i.test(v) && readRecordRef(v).ok, { error: 'Expected the original MOC as "moc:<id>"' })
  .meta({
    description:
      'An added optional key (issue 42): the MOC this one follows up, as "moc:<id>" (one the caller may read, else 403); the two are linked, "follow-up of", in both trails.',
    example: "moc:0b6f2f52-8d9c-4c1e-9b8a-3a4f5e6d7c8b",
  });

/** POST /api/newmoc (and /api/newImplementer): Part A with `implementer` in place of `implementer-name`. */
export const newMocSchema = z.object({
  implementer: field(userRef),
  ...originatorFields,
  followUp: followUpField.optional(),
});

// ---------------------------------------------------------------------------------------------
// Part B: implementer assessment

const implementerFields = z.object({
  "approver-name": optionalField(userRef),
  "hseq-name": optionalField(userRef),
  "details-assessed": field(yesNo),
  "necessary-justified": field(yesNo),
  "decline-reason": optionalField(z.string().trim().max(MAX_TEXT)),
  "target-date": optionalField(isoDate),
  /**
   * What changed since the HSEQ review returned the MOC: required on the page after a return,
   * optional over /api (docs/decisions/033-closure-gates.md); goes in the trail.
   */
  "changes-since-return": optionalField(z.string().trim().max(MAX_TEXT)),
});

const APPROVAL_NEEDS = {
  "approver-name": "Choose the approver",
  "hseq-name": "Choose the HSEQ user",
  "target-date": "Set the target date",
} as const;

export const implementerFormSchema = implementerFields
  .superRefine((form, ctx) => {
    const approves = form["details-assessed"].value === "yes" && form["necessary-justified"].value === "yes";
    if (approves) {
      for (const key of ["approver-name", "hseq-name", "target-date"] as const) {
        if (!form[key]) ctx.addIssue({ code: "custom", path: [key], message: `${APPROVAL_NEEDS[key]} to go ahead` });
      }
    } else if (!form["decline-reason"]?.value) {
      ctx.addIssue({ code: "custom", path: ["decline-reason"], message: "Give the reason for declining" });
    }
  })
  .meta(
    conditions([
      {
        when: { "details-assessed": "yes", "necessary-justified": "yes" },
        then: ["approver-name", "hseq-name", "target-date"],
      },
      { when: { "details-assessed": "no" }, then: ["decline-reason"] },
      { when: { "necessary-justified": "no" }, then: ["decline-reason"] },
    ]),
  );
export type ImplementerForm = z.infer<typeof implementerFields>;

/** A saved (not submitted) implementer form: any subset of the fields. */
export const implementerDraftSchema = z.object({
  moc_id: uuid("MOC id"),
  implementer_form: implementerFields.partial(),
});

// ---------------------------------------------------------------------------------------------
// Part C: HSEQ review

export const hseqFormSchema = z
  .object({
    "hseq-change-adequately": field(yesNo),
    "hseq-justification-satisfactory": field(yesNo),
    "hseq-risk-assessment-covered": field(yesNo),
    "decline-reason": optionalField(z.string().trim().max(MAX_TEXT)),
  })
  .superRefine((form, ctx) => {
    const all = [
      form["hseq-change-adequately"],
      form["hseq-justification-satisfactory"],
      form["hseq-risk-assessment-covered"],
    ];
    if (all.some((f) => f.value === "no") && !form["decline-reason"]?.value) {
      ctx.addIssue({
        code: "custom",
        path: ["decline-reason"],
        message: "Say why the MOC goes back to the implementer",
      });
    }
  })
  .meta(
    conditions(
      ["hseq-change-adequately", "hseq-justification-satisfactory", "hseq-risk-assessment-covered"].map((key) => ({
        when: { [key]: "no" },
        then: ["decline-reason"],
      })),
    ),
  );

// ---------------------------------------------------------------------------------------------
// Part D: approver

export const approverFormSchema = z
  .object({
    "approver-changes-reviewed": field(yesNo),
    "approver-moc-approved": field(yesNo),
    "decline-reason": optionalField(z.string().trim().max(MAX_TEXT)),
  })
  .superRefine((form, ctx) => {
    if (form["approver-moc-approved"].value === "no" && !form["decline-reason"]?.value) {
      ctx.addIssue({ code: "custom", path: ["decline-reason"], message: "Give the reason for declining" });
    }
    if (form["approver-moc-approved"].value === "yes" && form["approver-changes-reviewed"].value !== "yes") {
      ctx.addIssue({
        code: "custom",
        path: ["approver-changes-reviewed"],
        message: "Review the changes before approving",
      });
    }
  })
  .meta(conditions([{ when: { "approver-moc-approved": "no" }, then: ["decline-reason"] }]));

// ---------------------------------------------------------------------------------------------
// Part E: implementation

export const implementationSchema = z
  .object({
    "deviation-during-implementation": field(yesNo),
    "moc-require-extension": field(yesNo),
    "moc-circulated": field(yesNo),
    "implementation-as-planned": field(yesNo),
    "completion-date": optionalField(isoDate),
    "deviation-details": optionalField(z.string().max(MAX_HTML)),
    "extension-date": optionalField(isoDate),
    "extension-reason": optionalField(z.string().trim().max(MAX_TEXT)),
  })
  .superRefine((form, ctx) => {
    const deviation = form["deviation-during-implementation"].value === "yes";
    const extension = form["moc-require-extension"].value === "yes";
    if (deviation && !form["deviation-details"]?.value.replace(/<[^>]*>/g, "").trim()) {
      ctx.addIssue({ code: "custom", path: ["deviation-details"], message: "Describe the deviation" });
    }
    if (extension && !form["extension-date"]) {
      ctx.addIssue({ code: "custom", path: ["extension-date"], message: "Give the new target date" });
    }
    if (extension && !form["extension-reason"]?.value) {
      ctx.addIssue({ code: "custom", path: ["extension-reason"], message: "Say why the extension is needed" });
    }
    if (!deviation && !extension && !form["completion-date"]) {
      ctx.addIssue({ code: "custom", path: ["completion-date"], message: "Give the completion date" });
    }
  })
  .meta(
    conditions([
      { when: { "deviation-during-implementation": "yes" }, then: ["deviation-details"] },
      { when: { "moc-require-extension": "yes" }, then: ["extension-date", "extension-reason"] },
      {
        when: { "deviation-during-implementation": "no", "moc-require-extension": "no" },
        then: ["completion-date"],
      },
    ]),
  );

// ---------------------------------------------------------------------------------------------
// Deviation / extension resolution

/** A rejection needs its reason: the implementer reads it in the history and the email. */
export const deviationExtensionSchema = z
  .object({
    moc_id: uuid("MOC id"),
    deviationExtentionId: uuid("deviation/extension id"),
    value: z.object({
      approved: z.enum(["yes", "no"], { error: "Choose whether to accept or reject it" }),
      comment: z.string().trim().max(MAX_TEXT).optional().default(""),
    }),
    type: z.enum(["deviation", "extension"], { error: "type must be deviation or extension" }),
  })
  .superRefine((form, ctx) => {
    if (form.value.approved === "no" && !form.value.comment) {
      ctx.addIssue({ code: "custom", path: ["value", "comment"], message: "Give the reason for rejecting it" });
    }
  });

/**
 * POST /api/reportCompletion and the completion report page (issue 38): after the deviation and
 * extension decisions, the implementer says when the change was finished and how.
 */
export const completionReportSchema = z.object({
  moc_id: uuid("MOC id"),
  completion_date: isoDate,
  note: text("The completion note", MAX_TEXT),
});

// ---------------------------------------------------------------------------------------------
// Part F: verification

export const verifierFormSchema = z.object({
  "action-plan-correct": field(yesNo),
  "manuals-changed": field(yesNo),
  "trainings-complete": field(yesNo),
  "feedback-complete": field(yesNo),
  "moc-effective": field(yesNo),
  "close-moc": field(yesNo),
  /**
   * The effectiveness review's date when this verification closes the MOC (issue 42, an added key):
   * after today, within two years; absent, the default by change type
   * (docs/decisions/058-effectiveness-review.md). Ignored when the MOC stays open.
   */
  "review-date": optionalField(isoDate),
});

/** The verifier returns the MOC to implementation instead of closing it (f -> e), saying why. */
export const verifierReturnSchema = z.object({
  "return-reason": field(
    z
      .string({ error: "Say why the MOC goes back to implementation" })
      .trim()
      .min(1, { error: "Say why the MOC goes back to implementation" })
      .max(MAX_TEXT),
  ),
});

/** A plan item cancelled with its reason, by the implementer or the assigned HSEQ user. */
export const PLAN_KINDS = ["action", "manual_plan"] as const;
export const cancelPlanItemSchema = z.object({
  moc_id: uuid("MOC id"),
  plan: z.enum(PLAN_KINDS, { error: "plan must be action or manual_plan" }),
  item_id: z.string({ error: "Expected the item's _id" }).min(1, { error: "Expected the item's _id" }).max(64),
  reason: z
    .string({ error: "Give the reason for cancelling the item" })
    .trim()
    .min(1, { error: "Give the reason for cancelling the item" })
    .max(MAX_TEXT),
});
export type CancelPlanItemInput = z.infer<typeof cancelPlanItemSchema>;
/** The page's form for the same (the MOC is the page's). */
export const cancelPlanItemPageSchema = cancelPlanItemSchema.omit({ moc_id: true });

// ---------------------------------------------------------------------------------------------
// Management

export const cloneMocSchema = z.object({ old_moc: z.object({ _id: uuid("MOC id") }).passthrough() });
/** Why a record changes outside its steps (a deletion, a reassignment while a decision is pending). */
const changeReason = z.string().trim().max(MAX_TEXT, `Keep the reason under ${MAX_TEXT} characters`);

export const addUserSchema = z.object({
  userId: uuid("user id"),
  mocId: uuid("MOC id"),
  role: z.enum(["implementer", "approver", "verifier", "hseq"], {
    error: "role must be implementer, approver, verifier or hseq",
  }),
  /** Required when the approver or HSEQ user is changed while their decision is pending. */
  reason: changeReason.optional(),
});

/** DELETE /api/deleteMoC: `id`, and `reason` (required once someone else has decided on the MOC). */
export const deleteMocQuery = z.object({ id: uuid("MOC id"), reason: changeReason.optional() });

/** POST /api/restoreMoc. */
export const restoreMocSchema = z.object({ moc_id: uuid("MOC id") });
/** A rank of the risk matrix (docs/decisions/037-risk-ranking-and-approvals.md): a whole number 1-5. */
const rank = (what: string) =>
  z
    .number({ error: `${what} must be a whole number from 1 to 5` })
    .int({ error: `${what} must be a whole number from 1 to 5` })
    .min(1, { error: `${what} must be a whole number from 1 to 5` })
    .max(5, { error: `${what} must be a whole number from 1 to 5` });
/** The ranks of an impact item: optional (old clients send none), but each pair whole or absent. */
const riskRanks = {
  likelihood: rank("Likelihood").optional(),
  severity: rank("Severity").optional(),
  controls: z
    .string({ error: "Controls must be text" })
    .trim()
    .max(2000, { error: "Controls must be at most 2000 characters" })
    .optional(),
  residualLikelihood: rank("Residual likelihood").optional(),
  residualSeverity: rank("Residual severity").optional(),
};
type Ranks = { likelihood?: number; severity?: number; residualLikelihood?: number; residualSeverity?: number };
const pairsWhole = (item: Ranks, ctx: z.RefinementCtx) => {
  const pairs = [
    ["likelihood", "severity", "before controls"],
    ["residualLikelihood", "residualSeverity", "after controls"],
  ] as const;
  for (const [a, b, when] of pairs) {
    if ((item[a] === undefined) !== (item[b] === undefined)) {
      const missing = item[a] === undefined ? a : b;
      ctx.addIssue({
        code: "custom",
        path: [missing],
        message: `Give both the likelihood and the severity ${when}, or neither`,
      });
    }
  }
};
/** Drops empty ranks and controls, so an unranked item is stored as before. */
const compactItem = <T extends Record<string, unknown>>(item: T): T =>
  Object.fromEntries(Object.entries(item).filter(([, v]) => v !== undefined && v !== "")) as T;

export const impactSchema = z.object({
  moc_id: uuid("MOC id"),
  impact_assessment: z
    .array(
      z
        .object({
          category: text("Category", 200),
          hazards: z.array(text("Hazard", 1000)).max(50),
          ...riskRanks,
        })
        .superRefine(pairsWhole)
        .transform(compactItem),
    )
    .max(50)
    .refine(...listTextLimit("The impact assessment")),
  /**
   * The implementer's "no significant hazard" declaration, with its reason (a new, optional key;
   * issue 38): ranks a MOC without impact items Low. null withdraws it; absent leaves it.
   */
  no_significant_hazard: text("The reason there is no significant hazard", MAX_TEXT).nullable().optional(),
});
export const riskAssessmentSchema = z.object({
  moc_id: uuid("MOC id"),
  risk_assessment: z
    .string({ error: "risk_assessment must be a URL" })
    .trim()
    .max(2000)
    .refine(
      (v) => /^https?:\/\//i.test(v) || /^\/uploads\/[\w\-./]+$/.test(v) || /^\/attachments\/[0-9a-f-]{36}$/.test(v),
      {
        error: "risk_assessment must be an http(s) URL or an uploaded file",
      },
    )
    .refine((v) => !/^\/uploads\/.*\.\./.test(v), { error: "risk_assessment must be an uploaded file" }),
});
const owner = uuid("user id").nullable().optional().default(null);
const due = isoDate.nullable().optional().default(null);
const itemId = z.string().max(64).optional();
export const actionPlanSchema = z.object({
  id: uuid("MOC id"),
  action: z.object({
    items: z
      .array(
        z.object({ _id: itemId, description: text("Description", 2000), owner, due, done: z.boolean().default(false) }),
      )
      .max(200)
      .refine(...listTextLimit("The action plan")),
  }),
});
export const manualPlanSchema = z.object({
  id: uuid("MOC id"),
  manual_plan: z.object({
    items: z
      .array(
        z.object({
          _id: itemId,
          document: text("Document", 500),
          change: text("Change", 2000),
          owner,
          due,
          done: z.boolean().default(false),
        }),
      )
      .max(200)
      .refine(...listTextLimit("The manuals and drawings plan")),
  }),
});
export const reassignImplementerSchema = z.object({ moc_id: uuid("MOC id"), implementer_id: uuid("user id") });

// ---------------------------------------------------------------------------------------------
// Pages

const PART_A_NEEDS = {
  "implementer-name": "Choose the implementer",
  "description-of-change": "Describe the change",
  "reason-for-change": "Give the reason for the change",
  "department-of-change": "Choose the department of the change",
  title: "Give the MOC a title",
  vessel: "Choose the vessel, or office / shore, or fleet-wide",
} as const;

/** An editor left empty posts markup without text ("<p></p>"): as blank as an empty box. */
const blankHtmlAsAbsent = (v: unknown) =>
  v && typeof v === "object" && typeof (v as { value?: unknown }).value === "string"
    ? (v as { value: string }).value.replace(/<[^>]*>/g, "").trim() === ""
      ? undefined
      : v
    : v;

/**
 * Part A as the pages post it: the API's originator fields, with unticked checkbox groups meaning
 * an empty list, and the button pressed as `intent`. A draft may be partial (only a description,
 * say); submitting needs the implementer, the description, the reason and the department.
 */
export const partAPageSchema = z
  .object({
    intent: z.enum(["draft", "submit"]),
    "implementer-name": optionalField(userRef),
    ...originatorFields,
    "description-of-change": z.preprocess(blankHtmlAsAbsent, optionalField(html("Description of change"))),
    "reason-for-change": optionalField(text("Reason for change")),
    "department-of-change": optionalField(department),
    "affected-departments": field(z.array(department).max(DEPARTMENTS.length)).default({ value: [] }),
    "departments-to-inform": field(z.array(department).max(DEPARTMENTS.length)).default({ value: [] }),
    // The page's select posts a vessel's id, "office" or "fleet".
    vessel: optionalField(z.preprocess((v) => (typeof v === "string" && !isScope(v) ? { _id: v } : v), vesselRef)),
    /** The page's "attach photos or documents next": after saving, the MOC's files page. */
    "attach-files": z.literal("on").optional(),
  })
  .superRefine(
    (form, ctx) => {
      if (form.intent !== "submit") return;
      for (const key of Object.keys(PART_A_NEEDS) as (keyof typeof PART_A_NEEDS)[]) {
        if (!form[key]) ctx.addIssue({ code: "custom", path: [key], message: PART_A_NEEDS[key] });
      }
    },
    // Also when other fields are wrong, so every error of the page shows at once.
    { when: () => true },
  );
export type PartAPage = z.infer<typeof partAPageSchema>;

export const toNewMocInput = (form: PartAPage): NewMocInput => ({
  implementer: form["implementer-name"] ? { value: form["implementer-name"].value } : null,
  "description-of-change": form["description-of-change"],
  "reason-for-change": form["reason-for-change"],
  "department-of-change": form["department-of-change"],
  "affected-departments": form["affected-departments"],
  "departments-to-inform": form["departments-to-inform"],
  "change-type": form["change-type"],
  "temporary-until": form["temporary-until"],
  "hazards-seen": form["hazards-seen"],
  "target-date": form["target-date"],
  title: form.title,
  vessel: form.vessel,
});

const lines = z
  .string()
  .max(20_000)
  .optional()
  .transform((v) =>
    (v ?? "")
      .split("\n")
      .map((s) => s.trim())
      .filter(Boolean),
  );

/** A rank as a page form sends it: "" or absent for none, else "1"-"5". */
const pageRank = (what: string) =>
  z.preprocess(
    (v) => (v === "" || v === null ? undefined : typeof v === "string" ? Number(v) : v),
    rank(what).optional(),
  );

/** The impact assessment editor: one category per row, hazards one per line, and its ranks. */
export const impactPageSchema = z.object({
  items: z
    .array(
      z
        .object({
          category: text("Category", 200),
          hazards: lines,
          likelihood: pageRank("Likelihood"),
          severity: pageRank("Severity"),
          controls: z.string().trim().max(2000, { error: "Controls must be at most 2000 characters" }).optional(),
          residualLikelihood: pageRank("Residual likelihood"),
          residualSeverity: pageRank("Residual severity"),
        })
        .superRefine(pairsWhole)
        .transform(compactItem),
    )
    .max(50)
    .refine(...listTextLimit("The impact assessment"))
    .default([]),
});
/** The impact page's "no significant hazard" form (issue 38's risk gate): a reason declares, withdraw withdraws. */
export const noHazardPageSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("declare"), reason: text("The reason there is no significant hazard", MAX_TEXT) }),
  z.object({ intent: z.literal("withdraw") }),
]);
export const actionPlanPageSchema = z.object({ items: actionPlanSchema.shape.action.shape.items.default([]) });
export const manualPlanPageSchema = z.object({ items: manualPlanSchema.shape.manual_plan.shape.items.default([]) });

// ---------------------------------------------------------------------------------------------
// Temporary changes: how one ends (docs/decisions/023-temporary-changes-and-delegation.md)

/** The implementer: what was done to restore the original condition. */
export const temporaryRestoredSchema = z.object({
  "restoration-details": field(text("What was done to restore the original condition")),
});

/** HSEQ: the restoration confirmed, or not (with the reason). */
export const temporaryConfirmSchema = z
  .object({
    "restoration-confirmed": field(yesNo),
    "confirm-comment": optionalField(z.string().trim().max(MAX_TEXT)),
  })
  .superRefine((form, ctx) => {
    if (form["restoration-confirmed"].value === "no" && !form["confirm-comment"]?.value) {
      ctx.addIssue({ code: "custom", path: ["confirm-comment"], message: "Say what is still to be restored" });
    }
  });

/** The implementer: a new end date and the reason. */
export const temporaryExtensionSchema = z.object({
  "temporary-new-until": field(isoDate),
  "temporary-extension-reason": field(text("Reason for the extension")),
});

/** The approver: the extension approved, or rejected (with the reason). */
export const temporaryExtensionDecisionSchema = z
  .object({
    "extension-approved": field(yesNo),
    "extension-comment": optionalField(z.string().trim().max(MAX_TEXT)),
  })
  .superRefine((form, ctx) => {
    if (form["extension-approved"].value === "no" && !form["extension-comment"]?.value) {
      ctx.addIssue({ code: "custom", path: ["extension-comment"], message: "Give the reason for rejecting" });
    }
  });

/** The implementer: the change is to stay, so a new MOC (cloned from this one) assesses it as permanent. */
export const temporaryPermanentSchema = z.object({
  "permanent-reason": field(text("Why the change should become permanent")),
});
