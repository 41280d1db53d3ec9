/**
 * External references (issue 42, docs/decisions/057-record-links-and-references.md).
 * Part of the OpenAPI description of /api (app/web/openapi.server.ts, docs/decisions/031-api-contract.md).
 */
import { z } from "zod";
import { envelope } from "~/web/openapi/answers.schema";
import {
  addReferenceSchema,
  referenceAnswer,
  referencesAnswer,
  referencesQuerySchema,
  referenceTypeAnswer,
  removeReferenceQuerySchema,
} from "~/models/records/references.schema";
import { okOf, type Operations } from "./operation";

export const REFERENCE_OPERATIONS: Operations = {
  "/api/referenceTypes": {
    get: {
      summary:
        "The types of external reference (incident, PMS work order…) in the list's order, deactivated ones marked, each with its URL template (anyone signed in). Admins change them on /admin/references.",
      ok: okOf(z.array(referenceTypeAnswer)),
    },
  },
  "/api/references": {
    get: {
      summary:
        "A record's external references (\"<kind>:<id>\": moc, pcr, archive-moc, archive-pcr, review), in the types' order, each with its link built from its type's URL template. 403 when the caller may not read the record, 404 when there is no such record.",
      query: referencesQuerySchema,
      ok: okOf(referencesAnswer),
      errors: [404],
    },
    post: {
      summary:
        "Adds an external reference to a record: its type (id or name, an offered one) and number (trimmed, 1 to 100 characters, no control characters). Admins, the HSEQ department, and those who keep the record (a MOC's people, a PCR's originator, the archive's and the reviews' writers). 404 for an unknown record, 409 when the record already carries this type and number (compared without case). An entry in the record's audit trail.",
      body: addReferenceSchema,
      ok: envelope(referenceAnswer, 201),
      okStatus: 201,
      errors: [404, 409],
      example: { record: "moc:0b6f2f52-8d9c-4c1e-9b8a-3a4f5e6d7c8b", type: "PMS work order", ref: "WO-1234" },
    },
    delete: {
      summary:
        "Removes an external reference (kept with who removed it and when): who may add one to its record. 404 for no such reference or one already removed. An entry in the record's audit trail.",
      query: removeReferenceQuerySchema,
      ok: okOf(referenceAnswer),
      errors: [404],
    },
  },
};
