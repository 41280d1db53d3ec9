/**
 * The vessel register, crew assignments and the title and vessel of a record.
 * Part of the OpenAPI description of /api (app/web/openapi.server.ts, docs/decisions/031-api-contract.md).
 */
import { z } from "zod";
import { deletedAnswer, vesselAnswer, vesselAssignmentAnswer } from "~/web/openapi/answers.schema";
import { mocContextSchema } from "~/models/moc/moc-context.server";
import {
  assignmentBodySchema,
  assignmentIdQuery,
  assignmentQuerySchema,
  optionalVesselIdQuery,
  vesselBodySchema,
  vesselIdQuery,
  vesselUpdateSchema,
} from "~/models/fleet/vessel.schema";
import { MOC, okOf, type Operations } from "./operation";

export const FLEET_OPERATIONS: Operations = {
  "/api/titleAndVessel": {
    post: {
      summary:
        "Records the title and/or the vessel (or office / fleet) of a MOC raised without them (its originator or an admin), at any stage; 409 when the MOC already records one the body names (that changes through Part A). In the MOC's trail.",
      body: mocContextSchema,
      ok: MOC,
      errors: [404, 409],
    },
  },
  "/api/vessels": {
    get: {
      summary: "The vessel register by name, or one vessel with `id` (anyone signed in).",
      query: optionalVesselIdQuery,
      ok: okOf(z.union([vesselAnswer, z.array(vesselAnswer)])),
      errors: [404],
    },
    post: {
      summary:
        "Adds a vessel (admins). `imo` is seven digits whose last is the check digit of the first six (400 otherwise; 409 when already in the register).",
      body: vesselBodySchema,
      ok: okOf(vesselAnswer),
      errors: [409],
    },
    put: {
      summary: "Changes what the body names of a vessel (admins); a new name shows on the MOCs naming it.",
      query: vesselIdQuery,
      body: vesselUpdateSchema,
      ok: okOf(vesselAnswer),
      errors: [404, 409],
    },
    delete: {
      summary: "Deletes a vessel no MOC names (admins); 409 when one does (deactivate it with PUT `active: false`).",
      query: vesselIdQuery,
      ok: okOf(deletedAnswer),
      errors: [404, 409],
    },
  },
  "/api/vessels/assignments": {
    get: {
      summary:
        "Crew assignments (a person on a vessel from `from` to `to`), latest first: of a vessel (`vessel_id`) or a person (`user_id`). Admins read any; others their own (`user_id` = themselves). People assigned today may read their vessel's MOCs (read only).",
      query: assignmentQuerySchema,
      ok: okOf(z.array(vesselAssignmentAnswer)),
    },
    post: {
      summary:
        "Assigns a person to a vessel for a period (admins); `to` absent or null is open-ended. 409 when it overlaps another period of the same person on the same vessel.",
      body: assignmentBodySchema,
      ok: okOf(vesselAssignmentAnswer),
      errors: [409],
    },
    delete: {
      summary: "Removes a crew assignment (admins).",
      query: assignmentIdQuery,
      ok: okOf(deletedAnswer),
      errors: [404],
    },
  },
};
