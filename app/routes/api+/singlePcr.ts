import { idQuery } from "~/models/moc/moc.schema";
import { getPcr } from "~/models/pcr/pcr.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readQuery } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request }) {
    const actor = await requireApiUser(request);
    const { id } = readQuery(request, idQuery("PCR id"));
    return ok(await getPcr(actor, id));
  },
});

export const loader = route.loader;
export const action = route.action;
