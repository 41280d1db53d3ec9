import { data, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { InsightsFilterForm } from "~/components/insights-filters";
import { PrintControl, PrintSections, utc } from "~/components/record-print";
import { PRINT_KINDS } from "~/models/records-out/print-kinds";
import { listVessels } from "~/models/fleet/vessel.server";
import { reviewPackForPage } from "~/web/review-pack.server";
import styles from "~/styles/print.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: styles }];
export const meta: MetaFunction = () => [{ title: "Management review pack · Change Management" }];

/**
 * /insights/review (issue 42, docs/decisions/059-management-review-pack.md): the management review
 * pack for a period, department and vessel, Insight's figures with the MOCs behind each, laid out
 * for A4 like a record's print view; the same description is /insights/review/pdf and GET
 * /api/reviewPack. Filtered by a GET form, works without JavaScript; who may see Insight may see it.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const read = await reviewPackForPage(request);
  const vessels = (await listVessels()).map((v) => [v._id, v.name] as const);
  if (!read.ok)
    return data({ record: null, query: "", values: read.values, errors: read.errors, vessels }, { status: 400 });
  return { record: read.record, query: read.query, values: read.values, errors: [], vessels };
}

export default function ReviewPackPage() {
  const { record, query, values, errors, vessels } = useLoaderData<typeof loader>();
  return (
    <article className="record-print review-pack" aria-labelledby="print-title">
      <div className="row no-print print-toolbar">
        <Link to={query ? `/insights?${query}` : "/insights"} className="button">
          ← {PRINT_KINDS.ReviewPack.back}
        </Link>
        {record ? (
          <a href={`/insights/review/pdf?${query}`} className="button">
            Download PDF
          </a>
        ) : null}
        <PrintControl />
      </div>
      <div className="no-print">
        <InsightsFilterForm
          label="Review pack filters"
          resetTo="/insights/review"
          values={values}
          errors={errors}
          vessels={vessels}
        />
      </div>
      {record ? (
        <>
          <header className="print-header">
            <p className="muted">{PRINT_KINDS.ReviewPack.label}</p>
            <h1 id="print-title">{record.title}</h1>
            <p>
              <strong>{record.status}</strong> · Made {utc(record.generatedAt)}
            </p>
          </header>
          <PrintSections sections={record.sections} scrollable />
        </>
      ) : (
        <>
          <h1 id="print-title">Management review pack</h1>
          <p className="callout callout-danger" role="alert">
            The filters are not valid: {errors.map((e) => e.message).join("; ")}.
          </p>
        </>
      )}
    </article>
  );
}
