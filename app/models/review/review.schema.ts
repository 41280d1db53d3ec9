/**
 * Year-end review input (docs/decisions/011-year-end-reviews.md), shared by /api/year-end-review and the
 * review pages. The API body and the page form differ only in how people are referenced (the API
 * also takes a populated user object back, so a document read with GET can be sent to PUT) and in
 * `moc_summary`, which the pages never post.
 */
import { z } from "zod";
import { REVIEW_ACTION_STATUSES } from "#db/schema/enums";
import { MAX_HTML } from "../shared/fields.schema";
import { partialUpdate } from "../shared/partial-update";
import { bidiControlMessage, hasBidiControl } from "../shared/text-rules";

export const MAX_SECTIONS = 50;
export const MAX_ACTIONS = 100;
export const MAX_PARTICIPANTS = 200;
export const MIN_YEAR = 1900;
export const MAX_YEAR = 2200;

export { REVIEW_ACTION_LABELS, SUMMARY_STATUSES } from "./review.constants";

const text = (what: string, max: number) =>
  z
    .string({ error: `${what} is required` })
    .trim()
    .min(1, { error: `${what} is required` })
    .max(max, { error: `${what} must be at most ${max} characters` })
    .refine((v) => !hasBidiControl(v), { error: bidiControlMessage(what) });

const html = (what: string) =>
  z.string({ error: `${what} must be text` }).max(MAX_HTML, { error: `${what} is too long` });

const year = z
  .number({ error: "Year must be a whole number such as 2025" })
  .int({ error: "Year must be a whole number such as 2025" })
  .min(MIN_YEAR, { error: `Year must be between ${MIN_YEAR} and ${MAX_YEAR}` })
  .max(MAX_YEAR, { error: `Year must be between ${MIN_YEAR} and ${MAX_YEAR}` });

const actionStatus = z.enum(REVIEW_ACTION_STATUSES, {
  error: `Status must be one of: ${REVIEW_ACTION_STATUSES.join(", ")}`,
});

/** A user id; `missing` is the message when there is none. */
const userId = (missing: string) =>
  z.uuid({ error: (issue) => (issue.input === undefined ? missing : "Expected a user id") });

/** A person as the API takes them: the id, or the populated user object a GET returned. */
const apiUserRef = (missing: string) =>
  z
    .union([userId(missing), z.object({ _id: userId(missing) }).passthrough()], {
      error: (issue) => (issue.input === undefined ? missing : "Expected a user id"),
    })
    .transform((ref) => (typeof ref === "string" ? ref : ref._id));

const dueDate = z.iso.date({
  error: (issue) => (issue.input === undefined ? "Due date is required" : "Expected a date (YYYY-MM-DD)"),
});

function noDuplicates(ids: readonly string[], ctx: z.RefinementCtx) {
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    if (seen.has(id)) ctx.addIssue({ code: "custom", path: [index], message: "This person is listed twice" });
    seen.add(id);
  });
}

function reviewShape<Ref extends z.ZodType<string, unknown>>(ref: (missing: string) => Ref) {
  return {
    year,
    title: text("Title", 200),
    sections: z
      .array(
        z.object(
          { heading: text("Heading", 200), body: html("Section text").default("") },
          { error: "Fill in this section or remove it" },
        ),
        { error: "Sections must be a list" },
      )
      .max(MAX_SECTIONS, { error: `At most ${MAX_SECTIONS} sections` })
      .default([]),
    participants: z
      .array(ref("Expected a user id"), { error: "Participants must be a list of user ids" })
      .max(MAX_PARTICIPANTS, { error: `At most ${MAX_PARTICIPANTS} participants` })
      .superRefine(noDuplicates)
      .default([]),
    effectiveness: html("Effectiveness").default(""),
    improvements: html("Improvements").default(""),
    issues: html("Issues").default(""),
    actions: z
      .array(
        z.object(
          {
            description: text("Description", 2000),
            owner: ref("Choose an owner"),
            due: dueDate,
            status: actionStatus.default("open"),
          },
          { error: "Fill in this action or remove it" },
        ),
        { error: "Actions must be a list" },
      )
      .max(MAX_ACTIONS, { error: `At most ${MAX_ACTIONS} actions` })
      .default([]),
  };
}

const count = z
  .number({ error: "Counts are whole numbers" })
  .int({ error: "Counts are whole numbers" })
  .min(0, { error: "Counts cannot be negative" });

/** A summary a client gives instead of letting the server count it. */
export const mocSummarySchema = z
  .object(
    {
      total: count,
      completed: count,
      declined: count,
      open: count,
      by_department: z.record(z.string().max(100), count, { error: "by_department maps departments to counts" }),
      by_status: z.record(z.string().max(100), count, { error: "by_status maps statuses to counts" }).optional(),
      computed_at: z.iso.datetime({ offset: true, error: "computed_at must be an ISO timestamp" }).nullish(),
    },
    { error: "moc_summary must be an object (or left out, so the server counts the year's MOCs)" },
  )
  .refine((s) => s.completed + s.declined + s.open === s.total, {
    error: "completed + declined + open must equal total",
    path: ["total"],
  });

/**
 * POST /api/year-end-review: the whole document; a field left out takes its default (empty), and
 * `moc_summary` left out (or null) is counted from the year's MOCs. `_id`, `createdAt`,
 * `updatedAt`, `createdBy` and `updatedBy` are read-only and ignored.
 */
export const reviewBodySchema = z.object(
  { ...reviewShape(apiUserRef), moc_summary: mocSummarySchema.nullish() },
  { error: "The body must be a review object" },
);
export type ReviewInput = z.output<typeof reviewBodySchema>;

const REVIEW_FIELDS = Object.keys(reviewBodySchema.shape) as (keyof ReviewInput)[];

/**
 * PUT /api/year-end-review: the fields to change, each replacing the stored one (a list as a
 * whole); the others are kept (docs/api-contract.md). `moc_summary` left out keeps the stored
 * summary, or counts the new year's MOCs when `year` changes; null counts again.
 */
export const reviewUpdateSchema = partialUpdate(reviewBodySchema).refine(
  (body) => REVIEW_FIELDS.some((key) => body[key] !== undefined),
  { error: `Send at least one of: ${REVIEW_FIELDS.join(", ")}` },
);
export type ReviewUpdate = z.output<typeof reviewUpdateSchema>;

/** The new and edit pages' form. */
export const reviewPageSchema = z.object({
  ...reviewShape(userId),
  /** On the edit page: count the year's MOCs again instead of keeping the stored summary. */
  recount: z.boolean().default(false),
});
export type ReviewPage = z.output<typeof reviewPageSchema>;

/** The page form as the model's input; the summary is kept or counted by the caller's choice. */
export const toReviewInput = ({ recount: _recount, ...value }: ReviewPage): ReviewInput => value;
