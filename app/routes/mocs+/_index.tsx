import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { Pagination } from "~/components/pagination";
import { z } from "zod";
import { departmentLabel, formatDate, StatusBadge, TemporaryBadge } from "~/components/moc";
import { DEPARTMENTS } from "#db/schema/enums";
import { searchMocs } from "~/models/moc-list.server";
import { ENDING_SOON_DAYS, TEMPORARY_FILTERS, type TemporaryFilter } from "~/models/moc-status";
import { MOC_SORTS, MOC_STATUS_LABELS } from "~/models/moc-status";
import { requirePageUser } from "~/web/auth.server";
import { richTextToPlain } from "~/utils/sanitize.server";
import { FilterForm, FilterSelect, SearchField } from "~/components/list-filters";

export const meta: MetaFunction = () => [{ title: "MOCs · Change Management" }];

const PAGE_SIZE = 25;

const filterSchema = z.object({
  q: z.string().max(200).optional().catch(undefined),
  status: z.enum(["a", "b", "c", "d", "e", "f", "decline"]).optional().catch(undefined),
  department: z.enum(DEPARTMENTS).optional().catch(undefined),
  scope: z.enum(["mine", "waiting", "all"]).default("all").catch("all"),
  state: z.enum(["open", "completed", "all"]).default("all").catch("all"),
  overdue: z.literal("1").optional().catch(undefined),
  temporary: z.enum(TEMPORARY_FILTERS).optional().catch(undefined),
  sort: z.enum(MOC_SORTS).default("newest").catch("newest"),
  page: z.coerce.number().int().min(1).default(1).catch(1),
});

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  const filter = filterSchema.parse(Object.fromEntries(new URL(request.url).searchParams));
  const { rows, total } = await searchMocs(user, {
    ...filter,
    mine: filter.scope === "mine",
    waiting: filter.scope === "waiting",
    overdue: filter.overdue === "1",
    pageSize: PAGE_SIZE,
  });
  return {
    filter,
    total,
    pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
    today: new Date().toISOString().slice(0, 10),
    rows: rows.map((r) => ({ ...r, description: richTextToPlain(r.description).slice(0, 160) })),
  };
}

const SORT_LABELS: Record<(typeof MOC_SORTS)[number], string> = {
  newest: "Newest first",
  oldest: "Oldest first",
  serial: "Serial number",
  target: "Target date",
  status: "Status",
  temporary: "End of temporary change",
};

const TEMPORARY_FILTER_LABELS: Record<TemporaryFilter, string> = {
  "in-effect": "Temporary, in effect",
  "ending-soon": `Temporary, ending within ${ENDING_SOON_DAYS} days`,
  expired: "Temporary, expired (not restored)",
};

export default function MocList() {
  const { rows, filter, total, pages, today } = useLoaderData<typeof loader>();
  return (
    <>
      <div className="page-header">
        <div>
          <h1>MOCs</h1>
          <p className="muted">
            {total} {total === 1 ? "record" : "records"}
            {filter.overdue ? " overdue" : ""}
            {filter.temporary ? ` · ${TEMPORARY_FILTER_LABELS[filter.temporary].toLowerCase()}` : ""}
          </p>
        </div>
        <Link to="/mocs/new" className="button button-primary">
          New MOC
        </Link>
      </div>
      <FilterForm label="Filter MOCs" resetTo="/mocs">
        <SearchField id="moc-q" value={filter.q} placeholder="Serial or description" />
        <FilterSelect
          id="moc-status"
          name="status"
          label="Status"
          value={filter.status}
          any="Any status"
          choices={Object.entries(MOC_STATUS_LABELS)}
        />
        <FilterSelect
          id="moc-department"
          name="department"
          label="Department of change"
          value={filter.department}
          any="Any department"
          choices={DEPARTMENTS.map((d) => [d, departmentLabel(d)] as const)}
        />
        <FilterSelect
          id="moc-scope"
          name="scope"
          label="Whose"
          value={filter.scope}
          choices={[
            ["all", "All I can see"],
            ["mine", "Mine (I am involved)"],
            ["waiting", "Waiting on me"],
          ]}
        />
        <FilterSelect
          id="moc-state"
          name="state"
          label="Open or completed"
          value={filter.state}
          choices={[
            ["all", "Both"],
            ["open", "Open"],
            ["completed", "Completed"],
          ]}
        />
        <FilterSelect
          id="moc-temporary"
          name="temporary"
          label="Temporary changes"
          value={filter.temporary}
          any="Permanent and temporary"
          choices={TEMPORARY_FILTERS.map((f) => [f, TEMPORARY_FILTER_LABELS[f]] as const)}
        />
        <FilterSelect
          id="moc-sort"
          name="sort"
          label="Sort by"
          value={filter.sort}
          choices={MOC_SORTS.map((s) => [s, SORT_LABELS[s]] as const)}
        />
      </FilterForm>
      <div className="card table-wrap">
        {rows.length === 0 ? (
          <p className="empty">No MOCs match these filters.</p>
        ) : (
          <table className="stack-on-phone">
            <caption className="visually-hidden">MOCs</caption>
            <thead>
              <tr>
                <th scope="col">Serial</th>
                <th scope="col">Description</th>
                <th scope="col">Status</th>
                <th scope="col">Waiting on</th>
                <th scope="col">Department</th>
                <th scope="col">Target date</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <td data-label="Serial">
                    <Link to={`/mocs/${r.id}`} className="moc-link">
                      MOC {r.serialNum}
                    </Link>
                  </td>
                  <td data-label="Description">
                    {r.description || <span className="muted">No description yet</span>}
                    <br />
                    <span className="muted">Raised by {r.originator}</span>
                  </td>
                  <td data-label="Status">
                    <StatusBadge status={r.status} completed={r.completed} />
                    {r.temporaryState ? (
                      <>
                        {" "}
                        <TemporaryBadge state={r.temporaryState} until={r.temporaryUntil} />
                      </>
                    ) : null}
                  </td>
                  <td data-label="Waiting on">{r.owner ?? <span className="muted">—</span>}</td>
                  <td data-label="Department">{departmentLabel(r.department)}</td>
                  <td
                    data-label="Target date"
                    className={
                      r.targetDate && r.targetDate < today && !r.completed && r.status !== "decline"
                        ? "overdue"
                        : undefined
                    }
                  >
                    {formatDate(r.targetDate)}
                    {r.targetDate && r.targetDate < today && !r.completed && r.status !== "decline" ? " (overdue)" : ""}
                  </td>
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
