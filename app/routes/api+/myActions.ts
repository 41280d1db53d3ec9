import { myActions } from "~/models/moc/action-tasks.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok } from "~/utils/http.server";

/** GET /api/myActions: the caller's open action-plan and manuals-plan items across MOCs, soonest due first. */
const route = apiRoute({
  async GET({ request }) {
    const actor = await requireApiUser(request);
    return ok(await myActions(actor));
  },
});

export const loader = route.loader;
export const action = route.action;
