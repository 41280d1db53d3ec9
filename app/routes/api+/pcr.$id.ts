import { uuid } from "~/models/shared/fields.schema";
import { getPcr } from "~/models/pcr/pcr.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, validate } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request, params }) {
    const actor = await requireApiUser(request);
    return ok(await getPcr(actor, validate(uuid("PCR id"), params.id, "The PCR id")));
  },
});

export const loader = route.loader;
export const action = route.action;
