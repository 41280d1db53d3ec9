import { manualPlanSchema } from "~/models/moc.schema";
import { setManualPlan } from "~/models/moc.server";
import { requireApiUser } from "~/utils/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, manualPlanSchema);
    return ok(await setManualPlan(actor, body.id, body.manual_plan));
  },
});

export const loader = route.loader;
export const action = route.action;
