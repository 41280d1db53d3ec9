import { riskAssessmentSchema } from "~/models/moc/moc.schema";
import { setRiskAssessment } from "~/models/moc/moc.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, riskAssessmentSchema);
    return ok(await setRiskAssessment(actor, body.moc_id, body.risk_assessment));
  },
});

export const loader = route.loader;
export const action = route.action;
