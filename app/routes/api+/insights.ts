import { insightTables, tableCsv } from "~/models/insights/insights-tables";
import { insightsApiQuery } from "~/models/insights/insights.schema";
import { getInsights, requireInsightsReader } from "~/models/insights/insights.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readQuery } from "~/utils/http.server";

/**
 * GET /api/insights?from=&to=&department=: the /insights figures as JSON for other tools, or one
 * table as CSV with `format=csv&table=<id>` (the page's download links). docs/decisions/017-insights.md.
 */
const route = apiRoute({
  async GET({ request }) {
    const actor = await requireApiUser(request);
    requireInsightsReader(actor); // 403 before the query is even read
    const { format, table, ...filter } = readQuery(request, insightsApiQuery);
    const figures = await getInsights(actor, filter);
    if (format !== "csv" || !table) return ok(figures);
    const name = `insights-${table}-${filter.from}-to-${filter.to}${filter.department ? `-${filter.department}` : ""}.csv`;
    return new Response(tableCsv(insightTables(figures)[table]), {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${name}"`,
        "Cache-Control": "no-store",
      },
    });
  },
});

export const loader = route.loader;
export const action = route.action;
