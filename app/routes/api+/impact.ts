import { impactSchema } from "~/models/moc/moc.schema";
import { setImpactAssessment } from "~/models/moc/moc.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, impactSchema);
    return ok(await setImpactAssessment(actor, body.moc_id, body.impact_assessment, body.no_significant_hazard));
  },
});

export const loader = route.loader;
export const action = route.action;
