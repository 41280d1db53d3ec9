import { data, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { InsightsView } from "~/components/insights";
import { InsightsFilterForm } from "~/components/insights-filters";
import { departmentLabel, formatDate } from "~/components/moc";
import type { InsightTableId } from "~/models/insights/insights-tables";
import { insightsQuerySchema } from "~/models/insights/insights.schema";
import { getInsights } from "~/models/insights/insights.server";
import { requireInsightsPageUser } from "~/web/insights-page.server";
import { listVessels } from "~/models/fleet/vessel.server";

/**
 * /insights (docs/decisions/017-insights.md): KPIs, trends and bottlenecks for admins, the HSEQ department and
 * full-access users, filtered by period and department through a GET form (works without
 * JavaScript). The same figures are GET /api/insights. docs/decisions/017-insights.md.
 */
export const meta: MetaFunction = () => [{ title: "Insight · Change Management" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireInsightsPageUser(request);
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const vessels = (await listVessels()).map((v) => [v._id, v.name] as const);
  const values = {
    from: params.from ?? "",
    to: params.to ?? "",
    department: params.department ?? "",
    vessel: params.vessel ?? "",
  };
  const parsed = insightsQuerySchema.safeParse(params);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => ({ field: String(i.path[0] ?? ""), message: i.message }));
    return data({ figures: null, values, errors, query: "", vessels }, { status: 400 });
  }
  const filter = parsed.data;
  const query = new URLSearchParams({
    from: filter.from,
    to: filter.to,
    ...(filter.department ? { department: filter.department } : {}),
    ...(filter.vessel ? { vessel: filter.vessel } : {}),
  }).toString();
  return {
    figures: await getInsights(user, filter),
    values: { from: filter.from, to: filter.to, department: filter.department ?? "", vessel: filter.vessel ?? "" },
    vessels,
    errors: [] as { field: string; message: string }[],
    query,
  };
}

export default function InsightsPage() {
  const { figures, values, errors, query, vessels } = useLoaderData<typeof loader>();
  const csvHref = (table: InsightTableId) => `/api/insights?${query}&format=csv&table=${table}`;
  return (
    <>
      <header className="page-header">
        <h1>Insight</h1>
        <p className="muted">
          {figures
            ? `${formatDate(figures.period.from)} to ${formatDate(figures.period.to)}, ${
                figures.period.department ? departmentLabel(figures.period.department) : "all departments"
              }${figures.vessel ? `, ${figures.vessel}` : ""}. Counted from the records just now.`
            : "Choose a period and a department."}
        </p>
      </header>
      <InsightsFilterForm
        label="Insight filters"
        resetTo="/insights"
        values={values}
        errors={errors}
        vessels={vessels}
      />
      {figures ? (
        <p className="no-print">
          <Link to={`/insights/review?${query}`} className="button">
            Management review pack
          </Link>
        </p>
      ) : null}
      {figures ? (
        <InsightsView figures={figures} csvHref={csvHref} />
      ) : (
        <p className="callout callout-danger" role="alert">
          The filters are not valid: {errors.map((e) => e.message).join("; ")}.
        </p>
      )}
    </>
  );
}
