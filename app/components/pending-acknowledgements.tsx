/**
 * What waits for the reader to read and acknowledge (issue 41, docs/decisions/055-circulations.md):
 * the dashboard's short section and the full, paged list of /acknowledgements. Each item names the
 * record, the note of what changed, the due date (overdue said in words, not only in colour) and
 * links to the circulation's page, where it is read and acknowledged.
 */
import { Link } from "@remix-run/react";
import { formatDate } from "~/components/moc";
import type { PendingAcknowledgement } from "~/models/circulations/circulations.server";

/** How many the dashboard lists before "See all". */
export const DASHBOARD_ACKNOWLEDGEMENTS = 5;

export function AcknowledgementList({ items }: { items: PendingAcknowledgement[] }) {
  return (
    <ul className="waiting-list" aria-label="Changes waiting for me to read and acknowledge">
      {items.map((item) => (
        <li key={item.circulationId}>
          <div>
            <Link to={`/circulations/${item.circulationId}`} className="moc-link">
              {item.record.label}
              {item.record.title && !item.record.label.includes(item.record.title) ? `: ${item.record.title}` : ""}
            </Link>
            {item.vessel ? <span className="muted"> · {item.vessel.name}</span> : null}
            <br />
            <span className="muted" style={{ overflowWrap: "anywhere" }}>
              {item.note}
            </span>
          </div>
          <div style={{ textAlign: "right" }}>
            <span className={item.overdue ? "overdue" : "muted"}>
              {item.overdue ? `Overdue: was due ${formatDate(item.due)}` : `Due ${formatDate(item.due)}`}
            </span>
            <br />
            <Link to={`/circulations/${item.circulationId}`} aria-label={`Read and acknowledge ${item.record.label}`}>
              Read and acknowledge
            </Link>
          </div>
        </li>
      ))}
    </ul>
  );
}

/** The dashboard's section: shown only when something waits; the first few, then "See all". */
export function PendingAcknowledgements({ items, total }: { items: PendingAcknowledgement[]; total: number }) {
  if (total === 0) return null;
  return (
    <section className="card" aria-labelledby="acknowledgements-title">
      <h2 id="acknowledgements-title">To read and acknowledge</h2>
      <AcknowledgementList items={items} />
      {total > items.length ? (
        <p>
          The {items.length} due soonest, of {total}.{" "}
          <Link to="/acknowledgements">See all {total} to read and acknowledge</Link>
        </p>
      ) : null}
    </section>
  );
}
