import { substituteBodySchema } from "~/models/pcr/pcr.schema";
import { namePcrSubstitute } from "~/models/pcr/pcr.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

const route = apiRoute({
  /** An admin names who signs a position slot of a PCR raised by a holder of that position. */
  async POST({ request }) {
    const actor = await requireApiUser(request);
    return ok(await namePcrSubstitute(actor, await readJson(request, substituteBodySchema)));
  },
});

export const loader = route.loader;
export const action = route.action;
