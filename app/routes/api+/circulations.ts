import { circulationBodySchema, circulationsQuerySchema } from "~/models/circulations/circulations.schema";
import { circulate, circulationsOfRecord, parseRecordRef } from "~/models/circulations/circulations.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson, readQuery } from "~/utils/http.server";

/**
 * Circulations of a finished record for "read and understood" (issue 41, docs/decisions/055-circulations.md):
 * GET a record's circulations with their tracking figures; POST circulates it (201; 409 while unfinished).
 */
const route = apiRoute({
  async GET({ request }) {
    const actor = await requireApiUser(request);
    const { record } = readQuery(request, circulationsQuerySchema);
    return ok({ circulations: await circulationsOfRecord(actor, parseRecordRef(record)) });
  },
  async POST({ request }) {
    const actor = await requireApiUser(request);
    return ok(await circulate(actor, await readJson(request, circulationBodySchema)), 201);
  },
});

export const loader = route.loader;
export const action = route.action;
