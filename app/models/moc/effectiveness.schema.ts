/**
 * The effectiveness review's inputs (issue 42, docs/decisions/058-effectiveness-review.md): the body
 * of POST /api/effectivenessReview and the page's form, one schema each. No I/O.
 */
import { z } from "zod";
import { EFFECTIVENESS_COMMENT_MAX, EFFECTIVENESS_RESULTS, needsFollowUp } from "./effectiveness.constants";
import { uuid } from "../shared/fields.schema";
import { withoutBidiControls } from "../shared/text-rules";

const RESULT_MESSAGE = 'Choose "effective", "partly" or "not-effective"';
const COMMENT_NEEDED = "Say what did not work: a comment is required when the change was partly or not effective";

const answerFields = {
  result: z.enum(EFFECTIVENESS_RESULTS, { error: RESULT_MESSAGE }).meta({
    description: "How effective the change proved: effective, partly (effective) or not-effective.",
  }),
  comment: withoutBidiControls(
    z
      .string({ error: "The comment must be text" })
      .trim()
      .max(EFFECTIVENESS_COMMENT_MAX, { error: `The comment must be at most ${EFFECTIVENESS_COMMENT_MAX} characters` }),
    "The comment",
  )
    .optional()
    .meta({ description: "What was found; required when the result is partly or not-effective." }),
};

const commentWhenNeeded = (answer: { result: string; comment?: string }, ctx: z.RefinementCtx) => {
  if (needsFollowUp(answer.result as never) && !answer.comment) {
    ctx.addIssue({ code: "custom", path: ["comment"], message: COMMENT_NEEDED });
  }
};

/** POST /api/effectivenessReview: `{ id, result, comment }`, id the MOC's. */
export const effectivenessReviewSchema = z
  .object({ id: uuid("MOC id").meta({ description: "The closed MOC whose review this answers." }), ...answerFields })
  .superRefine(commentWhenNeeded);
export type EffectivenessReviewInput = z.infer<typeof effectivenessReviewSchema>;

/** The page's form (the MOC is the page's). */
export const effectivenessReviewPageSchema = z.object(answerFields).superRefine(commentWhenNeeded);

const person = z.object({ _id: z.string(), name: z.string() });

/** A MOC's review as its JSON and POST /api/effectivenessReview answer it. */
export const effectivenessReviewAnswer = z
  .object({
    due_on: z.string().meta({ description: "The day the review is due (YYYY-MM-DD)." }),
    set_by: person.nullable().meta({ description: "The verifier who set it when closing the MOC." }),
    set_at: z.string(),
    result: z.enum(EFFECTIVENESS_RESULTS).nullable().meta({ description: "Null until answered." }),
    comment: z.string().nullable(),
    reviewed_by: person.nullable(),
    reviewed_at: z.string().nullable(),
  })
  .meta({
    description:
      "The effectiveness review set when the verification closed the MOC (issue 42): due on `due_on`, answered once by the HSEQ department or an admin.",
  });
