import { affectedPartiesBodySchema } from "~/models/pcr/pcr.schema";
import { signAsAffectedParty } from "~/models/pcr/pcr-signing.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, affectedPartiesBodySchema);
    return ok(await signAsAffectedParty(actor, body.pcrId, body.affectedParties));
  },
});

export const loader = route.loader;
export const action = route.action;
