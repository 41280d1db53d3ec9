/**
 * Circulations for "read and understood" (issue 41, docs/decisions/055-circulations.md).
 * Part of the OpenAPI description of /api (app/web/openapi.server.ts, docs/decisions/031-api-contract.md).
 */
import { z } from "zod";
import { envelope } from "~/web/openapi/answers.schema";
import {
  acknowledgeAnswer,
  acknowledgeBodySchema,
  acknowledgementsPageQuery,
  circulationAnswer,
  circulationBodySchema,
  circulationsQuerySchema,
  circulationTrackingAnswer,
  pendingAcknowledgementsAnswer,
} from "~/models/circulations/circulations.schema";
import { okOf, type Operations } from "./operation";

export const CIRCULATION_OPERATIONS: Operations = {
  "/api/circulations": {
    get: {
      summary:
        "A record's circulations, newest first, each with its tracking: totals, figures by vessel and rank, the first 50 recipients and the questions asked (whoever may read the record).",
      query: circulationsQuerySchema,
      ok: okOf(z.object({ circulations: z.array(circulationTrackingAnswer) })),
      errors: [404],
    },
    post: {
      summary:
        "Circulates a finished record for acknowledgement (its originator, the HSEQ department or an admin): to everyone assigned to the vessels (only the ranks given, if any) and every active person of the departments, with a due date and a note of what changed. 409 when the record is not finished (a MOC completed, a PCR with its last signature) or when it would reach nobody. Each recipient gets one notice; an entry in the record's audit trail.",
      body: circulationBodySchema,
      ok: envelope(circulationAnswer, 201),
      okStatus: 201,
      errors: [404, 409],
      example: {
        record: "pcr:0b6f2f52-8d9c-4c1e-9b8a-3a4f5e6d7c8b",
        vessels: ["5d3c1a9e-2f4b-4c8d-9e7a-1b2c3d4e5f60"],
        ranks: ["Master", "Chief Officer"],
        departments: ["hseq"],
        due: "2026-12-31",
        note: "The mooring procedure now requires a toolbox talk before each operation.",
      },
    },
  },
  "/api/acknowledge": {
    post: {
      summary:
        "Acknowledges a circulation, \"read and understood\", with an optional question or comment for the author (its recipients only). 201 the first time; 200 with `created: false` after, changing nothing. An entry in the record's audit trail with the person's name, rank and vessel.",
      body: acknowledgeBodySchema,
      ok: envelope(acknowledgeAnswer, 201).extend({ status: z.union([z.literal(201), z.literal(200)]) }),
      okStatus: 201,
      alsoOk: 200,
      errors: [404],
    },
  },
  "/api/myAcknowledgements": {
    get: {
      summary:
        "What waits for the caller to read and acknowledge (open circulations they have not answered, not left the vessel), soonest due first, with how many there are; `page` and `limit` (50 by default).",
      query: acknowledgementsPageQuery,
      ok: okOf(pendingAcknowledgementsAnswer),
    },
  },
};
