/**
 * PCRs and their signature chain.
 * Part of the OpenAPI description of /api (app/web/openapi.server.ts, docs/decisions/031-api-contract.md).
 */
import { z } from "zod";
import { deletedAnswer, pcrAnswer, pcrSummaryAnswer } from "~/web/openapi/answers.schema";
import { idQuery } from "~/models/moc/moc.schema";
import {
  affectedPartiesBodySchema,
  clonePcrSchema,
  newPcrSchema,
  signaturesBodySchema,
  updatePcrSchema,
  substituteBodySchema,
  withdrawBodySchema,
} from "~/models/pcr/pcr.schema";
import { pcrListQuerySchema } from "~/models/pcr/pcr-list.server";
import { PCR, okOf, type Operations } from "./operation";

export const PCR_OPERATIONS: Operations = {
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
};
