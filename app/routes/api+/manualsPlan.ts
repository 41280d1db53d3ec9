import { manualPlanSchema } from "~/models/moc/moc.schema";
import { setManualPlan } from "~/models/moc/moc.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, issuesUnder, ok, readJson } from "~/utils/http.server";

const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, manualPlanSchema);
    return ok(await issuesUnder("manual_plan", () => setManualPlan(actor, body.id, body.manual_plan)));
  },
});

export const loader = route.loader;
export const action = route.action;
