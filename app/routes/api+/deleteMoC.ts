import { idQuery } from "~/models/moc.schema";
import { deleteMoc } from "~/models/moc.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readQuery } from "~/utils/http.server";

const route = apiRoute({
  async DELETE({ request }) {
    const actor = await requireApiUser(request);
    const { id } = readQuery(request, idQuery("MOC id"));
    return ok(await deleteMoc(actor, id));
  },
});

export const loader = route.loader;
export const action = route.action;
