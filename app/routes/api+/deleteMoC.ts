import { deleteMocQuery } from "~/models/moc/moc.schema";
import { deleteMoc } from "~/models/moc/moc.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readQuery } from "~/utils/http.server";

const route = apiRoute({
  async DELETE({ request }) {
    const actor = await requireApiUser(request);
    const { id, reason } = readQuery(request, deleteMocQuery);
    return ok(await deleteMoc(actor, id, reason));
  },
});

export const loader = route.loader;
export const action = route.action;
