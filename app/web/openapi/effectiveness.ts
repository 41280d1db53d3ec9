/**
 * Effectiveness reviews of closed MOCs (issue 42, docs/decisions/058-effectiveness-review.md).
 * Part of the OpenAPI description of /api (app/web/openapi.server.ts, docs/decisions/031-api-contract.md).
 */
import { envelope } from "~/web/openapi/answers.schema";
import { effectivenessReviewAnswer, effectivenessReviewSchema } from "~/models/moc/effectiveness.schema";
import type { Operations } from "./operation";

export const EFFECTIVENESS_OPERATIONS: Operations = {
  "/api/effectivenessReview": {
    post: {
      summary:
        'Answers a closed MOC\'s effectiveness review (the HSEQ department or an admin): `result` "effective", "partly" or "not-effective", with `comment` (required unless effective). Once: 409 when it is answered already or the MOC has none (it is set when the verification closes the MOC, `verifier_form.review-date`). An entry in the MOC\'s trail; the MOC\'s people are told.',
      body: effectivenessReviewSchema,
      ok: envelope(effectivenessReviewAnswer, 201),
      okStatus: 201,
      errors: [404, 409],
      example: {
        id: "0b6f2f52-8d9c-4c1e-9b8a-3a4f5e6d7c8b",
        result: "not-effective",
        comment: "The overflow alarm still sounds late on the second tank.",
      },
    },
  },
};
