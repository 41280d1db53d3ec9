import { insightsQuerySchema } from "~/models/insights/insights.schema";
import { requireInsightsReader } from "~/models/insights/insights.server";
import { getReviewPack } from "~/models/insights/review-pack.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readQuery } from "~/utils/http.server";

/**
 * GET /api/reviewPack?from=&to=&vessel=&department=: the management review pack's figures (Insight's,
 * from the same statements) with the MOCs behind each, as JSON; /insights/review is the page and
 * /insights/review/pdf the PDF of the same description. docs/decisions/059-management-review-pack.md.
 */
const route = apiRoute({
  async GET({ request }) {
    const actor = await requireApiUser(request);
    requireInsightsReader(actor); // 403 before the query is even read, as GET /api/insights
    return ok(await getReviewPack(actor, readQuery(request, insightsQuerySchema)));
  },
});

export const loader = route.loader;
export const action = route.action;
