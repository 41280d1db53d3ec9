/**
 * Links between records (issue 42, docs/decisions/057-record-links-and-references.md).
 * Part of the OpenAPI description of /api (app/web/openapi.server.ts, docs/decisions/031-api-contract.md).
 */
import { z } from "zod";
import { envelope } from "~/web/openapi/answers.schema";
import {
  linkAnswer,
  linkIdQuerySchema,
  linksAnswer,
  linksQuerySchema,
  newLinkAnswer,
  newLinkSchema,
} from "~/models/records/record-links.schema";
import { okOf, type Operations } from "./operation";

export const LINK_OPERATIONS: Operations = {
  "/api/links": {
    get: {
      summary:
        'A record\'s links ("<kind>:<id>": moc, pcr, archive-moc, archive-pcr, review), oldest first, those whose both ends the caller may read; each with both ends described (label, title, page) and its kind as the asked record reads it. 403 when the caller may not read the record.',
      query: linksQuerySchema,
      ok: okOf(linksAnswer),
      errors: [404],
    },
    post: {
      summary:
        "Links two records: `from` <kind> `to` (the other reads the inverse). Whoever may read both and is an admin, in HSEQ, or works on one of them (a MOC's people, a PCR's originator). 201 with the link and `created: true`; the same active link again (a replay, or made at the same time) answers it with 200 and `created: false`, changing nothing. 400 for a record linked to itself, 404 for an unknown record, 409 when the two are linked with this kind the other way round. An entry in both records' audit trails.",
      body: newLinkSchema,
      ok: envelope(newLinkAnswer, 201).extend({ status: z.union([z.literal(201), z.literal(200)]) }),
      okStatus: 201,
      alsoOk: 200,
      errors: [404, 409],
      example: {
        from: "moc:0b6f2f52-8d9c-4c1e-9b8a-3a4f5e6d7c8b",
        to: "pcr:5d3c1a9e-2f4b-4c8d-9e7a-1b2c3d4e5f60",
        kind: "procedure changed by",
      },
    },
    delete: {
      summary:
        "Removes a link (kept in the history with who removed it and when): whoever may make it, or its creator. 404 for no such link (or one whose ends the caller may not both read), 409 when already removed. An entry in both records' audit trails.",
      query: linkIdQuerySchema,
      ok: okOf(linkAnswer),
      errors: [404, 409],
    },
  },
};
