import { addUserSchema } from "~/models/moc/moc.schema";
import { assignMocRole } from "~/models/moc/moc.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const { userId, mocId, role, reason } = await readJson(request, addUserSchema);
    return ok(await assignMocRole(actor, { mocId, userId, role, reason }));
  },
});

export const loader = route.loader;
export const action = route.action;
