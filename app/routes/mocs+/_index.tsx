import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { Pagination } from "~/components/pagination";
import { departmentLabel, formatDate, StatusBadge, TemporaryBadge } from "~/components/moc";
import { DEPARTMENTS } from "#db/schema/enums";
import { mocListFilter, mocListQuerySchema, searchMocs } from "~/models/moc/moc-list.server";
import { MOC_STAGES } from "~/models/moc/moc-steps.server";
import { ENDING_SOON_DAYS, TEMPORARY_FILTERS, type TemporaryFilter } from "~/models/moc/moc-status";
import { MOC_SORTS, MOC_STATUS_LABELS } from "~/models/moc/moc-status";
import { requirePageUser } from "~/web/auth.server";
import { readPageQuery } from "~/utils/page.server";
import { richTextToPlain } from "~/utils/sanitize.server";
import { FilterForm, FilterSelect, SearchField } from "~/components/list-filters";
import { MocListTabs } from "~/components/moc-list-tabs";
import { canSeeDeletedMocs } from "~/models/authz/authz.server";
import { RiskBadge } from "~/components/risk";
import { NOT_RANKED, RISK_LEVEL_LABEL, RISK_LEVELS, riskLabel } from "~/models/risk/risk";
import { mocName, NOT_RECORDED } from "~/models/moc/moc-names";
import { listVessels } from "~/models/fleet/vessel.server";
import { SCOPE_LABELS } from "~/models/fleet/vessel.constants";

/** The filters in the title too, so tabs, history and bookmarks tell the lists apart. */
export const meta: MetaFunction<typeof loader> = ({ data }) => {
  const f = data?.filter;
  const parts = f
    ? [
        f.scope === "waiting" ? "Waiting on me" : f.scope === "mine" ? "Mine" : null,
        f.stage ?? (f.status ? MOC_STATUS_LABELS[f.status] : null),
        f.department ? departmentLabel(f.department) : null,
        f.state === "open" ? "Open" : f.state === "completed" ? "Completed" : null,
        f.overdue ? "Overdue" : null,
        f.risk ? `Risk ${riskLabel(f.risk === "none" ? null : f.risk)}` : null,
        f.q ? `“${f.q}”` : null,
        f.page > 1 ? `page ${f.page}` : null,
      ].filter(Boolean)
    : [];
  return [{ title: `MOCs${parts.length ? ` (${parts.join(", ")})` : ""} · Change Management` }];
};

/** Days before its target date when an open MOC counts as due soon. */
const DUE_SOON_DAYS = 7;

const PAGE_SIZE = 25;

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  const query = readPageQuery(request, mocListQuerySchema);
  // An older link's `?status=d` reads as that status's stage, shown in the Stage filter.
  const filter =
    query.status && !query.stage ? { ...query, status: undefined, stage: MOC_STATUS_LABELS[query.status] } : query;
  const [{ rows, total }, vessels] = await Promise.all([
    searchMocs(user, { ...mocListFilter(filter), pageSize: PAGE_SIZE }),
    listVessels(),
  ]);
  return {
    vessels: vessels.map((v) => [v._id, v.name] as const),
    stages: MOC_STAGES,
    filter,
    total,
    canSeeDeleted: canSeeDeletedMocs(user),
    pages: Math.max(1, Math.ceil(total / PAGE_SIZE)),
    today: new Date().toISOString().slice(0, 10),
    soon: new Date(Date.now() + DUE_SOON_DAYS * 86_400_000).toISOString().slice(0, 10),
    // What the table shows of each, no more: the data travels in the page too (docs/decisions/032-pages-at-sea.md).
    rows: rows.map(({ createdAt: _created, updatedAt: _updated, ...r }) => ({
      ...r,
      description: richTextToPlain(r.description).slice(0, 160),
    })),
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
  const { rows, filter, total, pages, today, soon, canSeeDeleted, vessels, stages } = useLoaderData<typeof loader>();
  const timing = (r: (typeof rows)[number]) =>
    !r.targetDate || r.completed || r.status === "decline"
      ? null
      : r.targetDate < today
        ? "overdue"
        : r.targetDate <= soon
          ? "due-soon"
          : null;
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
      {canSeeDeleted ? <MocListTabs current="all" /> : null}
      <FilterForm label="Filter MOCs" resetTo="/mocs" exportTo="/api/getAllMoc">
        <SearchField id="moc-q" value={filter.q} placeholder="Serial, title or description" />
        {/* Where MOCs stand (mocStage): the statuses' stages and the finer ones, one list. */}
        <FilterSelect
          id="moc-stage"
          name="stage"
          label="Stage"
          value={filter.stage}
          any="Any stage"
          choices={stages.map((stage) => [stage, stage] as const)}
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
          id="moc-vessel"
          name="vessel"
          label="Vessel"
          value={filter.vessel}
          any="Any vessel or scope"
          choices={[...vessels, ["office", SCOPE_LABELS.office], ["fleet", SCOPE_LABELS.fleet], ["none", NOT_RECORDED]]}
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
          id="moc-risk"
          name="risk"
          label="Risk"
          value={filter.risk}
          any="Any risk"
          choices={[...RISK_LEVELS.map((l) => [l, RISK_LEVEL_LABEL[l]] as const), ["none", NOT_RANKED] as const]}
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
                <th scope="col">Stage</th>
                <th scope="col">Waiting on</th>
                <th scope="col">Department</th>
                <th scope="col">Vessel</th>
                <th scope="col">Target date</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id} className={timing(r) ? `row-${timing(r)}` : undefined}>
                  <td data-label="Serial">
                    <Link to={`/mocs/${r.id}`} className="moc-link">
                      {mocName(r.serialNum, r.title)}
                    </Link>
                  </td>
                  <td data-label="Description">
                    {r.description || <span className="muted">No description yet</span>}
                    <br />
                    <span className="muted">Raised by {r.originator}</span>
                  </td>
                  <td data-label="Stage">
                    <StatusBadge status={r.status} completed={r.completed} stage={r.stage} />
                    {r.riskLevel ? (
                      <>
                        {" "}
                        <RiskBadge level={r.riskLevel} />
                      </>
                    ) : null}
                    {r.temporaryState ? (
                      <>
                        {" "}
                        <TemporaryBadge state={r.temporaryState} until={r.temporaryUntil} />
                      </>
                    ) : null}
                  </td>
                  <td data-label="Waiting on">{r.owner ?? <span className="muted">—</span>}</td>
                  <td data-label="Department">{departmentLabel(r.department)}</td>
                  <td data-label="Vessel">{r.vessel ?? <span className="muted">{NOT_RECORDED}</span>}</td>
                  <td data-label="Target date" className={timing(r) ?? undefined}>
                    {formatDate(r.targetDate)}{" "}
                    {timing(r) === "overdue" ? (
                      <span className="badge badge-danger">Overdue</span>
                    ) : timing(r) === "due-soon" ? (
                      <span className="badge badge-warning">Due soon</span>
                    ) : null}
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
