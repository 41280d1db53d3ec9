import { acknowledgementsPageQuery } from "~/models/circulations/circulations.schema";
import { pendingAcknowledgements } from "~/models/circulations/circulations.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readQuery } from "~/utils/http.server";

/** GET /api/myAcknowledgements: what waits for the caller to read and acknowledge, soonest due first (issue 41). */
const route = apiRoute({
  async GET({ request }) {
    const actor = await requireApiUser(request);
    const { page, limit } = readQuery(request, acknowledgementsPageQuery);
    return ok(await pendingAcknowledgements(actor, { page, pageSize: limit }));
  },
});

export const loader = route.loader;
export const action = route.action;
