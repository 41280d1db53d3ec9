/**
 * "My vessel" at the top of the dashboard (issue 41). Links and short capped lists only: it works without JavaScript (the vessel
 * switch is a link per vessel), and long names wrap (break-anywhere) at 375 px.
 */
import { Link } from "@remix-run/react";
import { CrewList } from "~/components/crew-list";
import { formatDate, StatusBadge, TemporaryBadge } from "~/components/moc";
import { mocName } from "~/models/moc/moc-names";
import type { MyVessel as MyVesselData } from "~/models/overview/my-vessel.server";

/** "All 12 open MOCs", shown only when the list is cut. */
function SeeAll({ shown, total, to, what }: { shown: number; total: number; to: string; what: string }) {
  if (total <= shown) return null;
  return (
    <p>
      <Link to={to}>
        All {total} {what}
      </Link>
    </p>
  );
}

export function MyVessel({ data }: { data: MyVesselData | null }) {
  if (!data) return null;
  const { vessel, vessels, open, temporary, crew, finished } = data;
  const vesselMocs = `/mocs?vessel=${vessel.id}`;
  return (
    <section className="card" aria-labelledby="my-vessel-title">
      <h2 id="my-vessel-title" className="break-anywhere">
        My vessel: <Link to={`/vessels/${vessel.id}`}>{vessel.name}</Link>
      </h2>
      {vessels.length > 1 ? (
        <nav aria-label="Your vessels today" className="row">
          <span className="muted">You are assigned to {vessels.length} vessels today:</span>
          {vessels.map((v) =>
            v.id === vessel.id ? (
              <strong key={v.id} aria-current="true" className="break-anywhere">
                {v.name}
              </strong>
            ) : (
              <Link key={v.id} to={`/?vessel=${v.id}#my-vessel-title`} className="break-anywhere">
                {v.name}
              </Link>
            ),
          )}
        </nav>
      ) : null}
      <div className="grid">
        <div>
          <h3>Open MOCs ({open.total})</h3>
          {open.rows.length === 0 ? (
            <p className="empty">No open MOC concerns this vessel.</p>
          ) : (
            <ul className="waiting-list">
              {open.rows.map((r) => (
                <li key={r.id}>
                  <Link to={`/mocs/${r.id}`} className="moc-link break-anywhere">
                    {mocName(r.serialNum, r.title)}
                  </Link>
                  <span>
                    <StatusBadge status={r.status} completed={r.completed} stage={r.stage} />
                    {r.owner ? <span className="muted break-anywhere"> Waiting on {r.owner}</span> : null}
                  </span>
                </li>
              ))}
            </ul>
          )}
          <SeeAll
            shown={open.rows.length}
            total={open.total}
            to={`${vesselMocs}&state=open&sort=target`}
            what="open MOCs"
          />
        </div>
        <div>
          <h3>Temporary changes in effect ({temporary.total})</h3>
          {temporary.rows.length === 0 ? (
            <p className="empty">No temporary change is in effect on this vessel.</p>
          ) : (
            <ul className="waiting-list">
              {temporary.rows.map((r) => (
                <li key={r.id}>
                  <Link to={`/mocs/${r.id}`} className="moc-link break-anywhere">
                    {mocName(r.serialNum, r.title)}
                  </Link>
                  {r.temporaryState ? <TemporaryBadge state={r.temporaryState} until={r.temporaryUntil} /> : null}
                </li>
              ))}
            </ul>
          )}
          <SeeAll
            shown={temporary.rows.length}
            total={temporary.total}
            to={`${vesselMocs}&temporary=in-effect&sort=temporary`}
            what="temporary changes in effect"
          />
        </div>
        <div>
          <h3>On board today ({crew.total})</h3>
          <CrewList crew={crew} />
          <SeeAll shown={crew.rows.length} total={crew.total} to={`/vessels/${vessel.id}`} what="on board" />
        </div>
        <div>
          <h3>Finished in the last 90 days ({finished.total})</h3>
          {finished.rows.length === 0 ? (
            <p className="empty">No MOC of this vessel was completed in the last 90 days.</p>
          ) : (
            <ul className="waiting-list">
              {finished.rows.map((r) => (
                <li key={r.id}>
                  <Link to={`/mocs/${r.id}`} className="moc-link break-anywhere">
                    {mocName(r.serialNum, r.title)}
                  </Link>
                  <span className="muted">Completed {formatDate(r.closedAt)}</span>
                </li>
              ))}
            </ul>
          )}
          <SeeAll
            shown={finished.rows.length}
            total={finished.total}
            to={`${vesselMocs}&state=completed`}
            what="completed MOCs"
          />
          <p className="hint">MOCs only: a PCR names no vessel.</p>
        </div>
      </div>
    </section>
  );
}
