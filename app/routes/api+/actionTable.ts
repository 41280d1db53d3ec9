import { actionPlanSchema } from "~/models/moc/moc.schema";
import { setActionPlan } from "~/models/moc/moc.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, issuesUnder, ok, readJson } from "~/utils/http.server";

const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, actionPlanSchema);
    return ok(await issuesUnder("action", () => setActionPlan(actor, body.id, body.action)));
  },
});

export const loader = route.loader;
export const action = route.action;
