import { withdrawBodySchema } from "~/models/pcr/pcr.schema";
import { withdrawPcr } from "~/models/pcr/pcr.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

const route = apiRoute({
  /** Withdraws a PCR (a signed one cannot be deleted): the originator while pending, or an admin. */
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, withdrawBodySchema);
    return ok(await withdrawPcr(actor, body.pcrId, body.reason));
  },
});

export const loader = route.loader;
export const action = route.action;
