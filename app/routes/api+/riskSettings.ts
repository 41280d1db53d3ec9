import { riskSettingsBodySchema } from "~/models/risk/risk.schema";
import { getRiskSettings, setRiskSettings } from "~/models/moc/risk-settings.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

/**
 * The risk matrix's settings and the risk gate (docs/decisions/037-risk-ranking-and-approvals.md):
 * anyone signed in reads them (every impact assessment is ranked with them), admins change them
 * (what the body names; audited, as on /admin/risk).
 */
const route = apiRoute({
  async GET({ request }) {
    await requireApiUser(request);
    return ok(await getRiskSettings());
  },
  async PUT({ request }) {
    const actor = await requireApiUser(request);
    return ok(await setRiskSettings(actor, await readJson(request, riskSettingsBodySchema)));
  },
});

export const loader = route.loader;
export const action = route.action;
