import { acknowledgeBodySchema } from "~/models/circulations/circulations.schema";
import { acknowledge } from "~/models/circulations/circulations.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

/**
 * "Read and understood" (issue 41): 201 the first time, 200 with `created: false` after (nothing
 * changes); recipients only.
 */
const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, acknowledgeBodySchema);
    const { created, at } = await acknowledge(actor, { circulationId: body.circulation_id, comment: body.comment });
    return ok({ acknowledged: true, at, created }, created ? 201 : 200);
  },
});

export const loader = route.loader;
export const action = route.action;
