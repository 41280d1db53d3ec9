/**
 * Chat, search, the image proxy, this document and the benchmark floor.
 * Part of the OpenAPI description of /api (app/web/openapi.server.ts, docs/decisions/031-api-contract.md).
 */
import { z } from "zod";
import { chatAnswer } from "~/web/openapi/answers.schema";
import { chatPostSchema, chatQuerySchema } from "~/models/records/chat.schema";
import { proxyQuery } from "~/models/ops/image-proxy.server";
import { searchAnswer, searchQuerySchema } from "~/models/records/search.schema";
import { okOf, type Operations } from "./operation";

export const SERVICE_OPERATIONS: Operations = {
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
