import { signaturesBodySchema } from "~/models/pcr.schema";
import { signPcr } from "~/models/pcr.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, signaturesBodySchema);
    return ok(await signPcr(actor, body.pcrId, body.signatures));
  },
});

export const loader = route.loader;
export const action = route.action;
