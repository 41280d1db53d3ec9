import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { formatDate, StatusBadge, TemporaryBadge } from "~/components/moc";
import { CrewList } from "~/components/crew-list";
import { canManageVessels } from "~/models/authz/authz.server";
import { mocName } from "~/models/moc/moc-names";
import { vesselOverview } from "~/models/overview/vessel-page.server";
import { runForPage, pageError } from "~/utils/page.server";
import { requirePageUser } from "~/web/auth.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: `${data?.vessel.name ?? "Vessel"} · Change Management` },
];

/** A vessel: its open MOCs, temporary changes in effect and overdue actions (docs/decisions/036-vessels-and-crew-access.md). */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  const result = await runForPage(() => vesselOverview(user, params.id ?? ""));
  if (!result.ok) pageError(result.error);
  return { ...result.value, admin: canManageVessels(user) };
}

export default function VesselPage() {
  const { vessel, open, temporary, overdue, crew, admin } = useLoaderData<typeof loader>();
  return (
    <>
      <p>
        <Link to={`/mocs?vessel=${vessel._id}`}>← All MOCs of {vessel.name}</Link>
      </p>
      <div className="page-header">
        <div>
          <h1>{vessel.name}</h1>
          <p className="muted">
            IMO {vessel.imo}
            {vessel.ship_type ? ` · ${vessel.ship_type}` : ""}
            {vessel.flag ? ` · ${vessel.flag} flag` : ""}
            {vessel.active ? "" : " · no longer active"}
          </p>
        </div>
        {admin ? (
          <Link to="/admin/vessels" className="button">
            Vessel register
          </Link>
        ) : null}
      </div>
      <section className="card" aria-labelledby="open-title">
        <h2 id="open-title">Open MOCs ({open.total})</h2>
        {open.rows.length === 0 ? (
          <p className="empty">No open MOC concerns this vessel.</p>
        ) : (
          <ul className="waiting-list">
            {open.rows.map((r) => (
              <li key={r.id}>
                <Link to={`/mocs/${r.id}`} className="moc-link">
                  {mocName(r.serialNum, r.title)}
                </Link>
                <span>
                  <StatusBadge status={r.status} completed={r.completed} stage={r.stage} />
                  {r.targetDate ? <span className="muted"> Target {formatDate(r.targetDate)}</span> : null}
                </span>
              </li>
            ))}
          </ul>
        )}
        {open.total > open.rows.length ? (
          <Link to={`/mocs?vessel=${vessel._id}&state=open`}>All {open.total} open MOCs</Link>
        ) : null}
      </section>
      <section className="card" aria-labelledby="temporary-title">
        <h2 id="temporary-title">Temporary changes in effect ({temporary.total})</h2>
        {temporary.rows.length === 0 ? (
          <p className="empty">No temporary change is in effect on this vessel.</p>
        ) : (
          <ul className="waiting-list">
            {temporary.rows.map((r) => (
              <li key={r.id}>
                <Link to={`/mocs/${r.id}`} className="moc-link">
                  {mocName(r.serialNum, r.title)}
                </Link>
                {r.temporaryState ? <TemporaryBadge state={r.temporaryState} until={r.temporaryUntil} /> : null}
              </li>
            ))}
          </ul>
        )}
      </section>
      {crew ? (
        <section className="card" aria-labelledby="crew-title">
          <h2 id="crew-title">On board today ({crew.total})</h2>
          <CrewList crew={crew} />
          {crew.total > crew.rows.length ? (
            <p className="muted">
              The first {crew.rows.length} of {crew.total} by rank.
              {admin ? (
                <>
                  {" "}
                  <Link to="/admin/vessels">All crew assignments</Link>
                </>
              ) : null}
            </p>
          ) : null}
        </section>
      ) : null}
      <section className="card" aria-labelledby="overdue-title">
        <h2 id="overdue-title">Overdue actions</h2>
        {overdue.length === 0 ? (
          <p className="empty">No action or manuals item of this vessel&apos;s open MOCs is past its due date.</p>
        ) : (
          <ul className="waiting-list">
            {overdue.map((item, i) => (
              <li key={`${item.mocId}-${i}`}>
                <span>
                  <Link to={`/mocs/${item.mocId}`} className="moc-link">
                    {mocName(item.serialNum, item.title)}
                  </Link>{" "}
                  {item.plan === "manuals" ? "Manuals: " : ""}
                  {item.description}
                  {item.owner ? ` — ${item.owner}` : ""}
                </span>
                <span className="overdue">Due {formatDate(item.due)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
