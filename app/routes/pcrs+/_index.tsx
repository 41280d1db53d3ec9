import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { Pagination } from "~/components/pagination";
import { formatDate } from "~/components/moc";
import { PcrStatusBadge } from "~/components/pcr";
import { pcrListFilter, pcrListQuerySchema, searchPcrs } from "~/models/pcr/pcr-list.server";
import { requirePageUser } from "~/web/auth.server";
import { readPageQuery } from "~/utils/page.server";
import { richTextToPlain } from "~/utils/sanitize.server";
import { FilterForm, FilterSelect, SearchField } from "~/components/list-filters";

export const meta: MetaFunction = () => [{ title: "PCRs · Change Management" }];

const PAGE_SIZE = 25;

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  const filter = readPageQuery(request, pcrListQuerySchema);
  const { rows, total } = await searchPcrs(user, { ...pcrListFilter(filter), pageSize: PAGE_SIZE });
  return {
    filter,
    total,
    pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
    rows: rows.map((r) => ({ ...r, summary: richTextToPlain(r.summary).slice(0, 160) })),
  };
}

export default function PcrList() {
  const { rows, filter, total, pages } = useLoaderData<typeof loader>();
  return (
    <>
      <div className="page-header">
        <div>
          <h1>PCRs</h1>
          <p className="muted">
            Procedure change requests: {total} {total === 1 ? "record" : "records"}
          </p>
        </div>
        <Link to="/pcrs/new" className="button button-primary">
          New PCR
        </Link>
      </div>
      <FilterForm label="Filter PCRs" resetTo="/pcrs" exportTo="/api/allPcr">
        <SearchField id="pcr-q" value={filter.q} placeholder="Serial or text" />
        <FilterSelect
          id="pcr-status"
          name="status"
          label="Status"
          value={filter.status}
          any="Any status"
          choices={[
            ["pending", "Collecting signatures"],
            ["finished", "Finished"],
            ["withdrawn", "Withdrawn"],
          ]}
        />
        <FilterSelect
          id="pcr-scope"
          name="scope"
          label="Whose"
          value={filter.scope}
          choices={[
            ["all", "All I can see"],
            ["mine", "Mine (originator or affected party)"],
          ]}
        />
        <label className="checkbox">
          <input type="checkbox" name="safety" value="1" defaultChecked={filter.safety === "1"} />
          Safety-critical only
        </label>
      </FilterForm>
      <div className="card table-wrap">
        {rows.length === 0 ? (
          <p className="empty">No PCRs match these filters.</p>
        ) : (
          <table className="stack-on-phone">
            <caption className="visually-hidden">PCRs</caption>
            <thead>
              <tr>
                <th scope="col">Serial</th>
                <th scope="col">Suggestion</th>
                <th scope="col">Status</th>
                <th scope="col">Next signature</th>
                <th scope="col">Raised</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <td data-label="Serial">
                    <Link to={`/pcrs/${r.id}`} className="moc-link">
                      {r.title ? `PCR ${r.serialNum} — ${r.title}` : `PCR ${r.serialNum}`}
                    </Link>
                    {r.safetyCritical ? (
                      <>
                        <br />
                        <span className="badge badge-danger">Safety-critical</span>
                      </>
                    ) : null}
                  </td>
                  <td data-label="Suggestion">
                    {r.summary || <span className="muted">—</span>}
                    <br />
                    <span className="muted">Raised by {r.originator}</span>
                  </td>
                  <td data-label="Status">
                    <PcrStatusBadge status={r.status} />
                    <br />
                    <span className="muted">{r.signed} of 6 signed</span>
                  </td>
                  <td data-label="Next signature">
                    {r.status !== "pending" ? "—" : (r.nextRole ?? "Affected parties")}
                  </td>
                  <td data-label="Raised">{formatDate(r.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <Pagination page={filter.page} pages={pages} />
    </>
  );
}
