/**
 * Circulations for "read and understood" (issue 41, docs/decisions/055-circulations.md): a finished
 * record's "Circulation" section (its circulations with their figures, and the link to circulate
 * it), and the figures as words, shared by the record pages and the circulation's own page.
 */
import { Link } from "@remix-run/react";
import { formatDate } from "~/components/moc";
import { ErrorList } from "~/components/submit";

type Totals = { total: number; acknowledged: number; waiting: number; overdue: number; left: number };

/** "3 of 10 acknowledged · 5 waiting · 1 overdue · 1 left the vessel" (zeros left out but the first). */
export function totalsText(totals: Totals): string {
  return [
    `${totals.acknowledged} of ${totals.total} acknowledged`,
    totals.waiting ? `${totals.waiting} waiting` : null,
    totals.overdue ? `${totals.overdue} overdue` : null,
    totals.left ? `${totals.left} left the vessel` : null,
  ]
    .filter(Boolean)
    .join(" · ");
}

export type CirculationsPanel = {
  mayCirculate: boolean;
  circulations: {
    _id: string;
    due: string;
    note: string;
    createdAt: string;
    closedAt: string | null;
    createdBy: { _id: string; name: string };
    totals: Totals;
  }[];
};

/** The record page's section, when the record is finished. */
export function CirculationsSection({ record, panel }: { record: string; panel: CirculationsPanel | null }) {
  if (!panel) return null;
  const { mayCirculate, circulations } = panel;
  if (!mayCirculate && circulations.length === 0) return null;
  return (
    <section className="card" aria-labelledby="circulation-title">
      <h2 id="circulation-title">Circulation</h2>
      {circulations.length === 0 ? (
        <p className="empty">Not circulated for acknowledgement yet.</p>
      ) : (
        <ul className="waiting-list">
          {circulations.map((c) => (
            <li key={c._id}>
              <div>
                <Link to={`/circulations/${c._id}`}>
                  Circulated {formatDate(c.createdAt)} by {c.createdBy.name}
                </Link>
                {c.closedAt ? <span className="muted"> · closed</span> : null}
                <br />
                <span className="muted" style={{ overflowWrap: "anywhere" }}>
                  {c.note}
                </span>
              </div>
              <div>
                <span>Due {formatDate(c.due)}</span>
                <br />
                <span className="muted">{totalsText(c.totals)}</span>
              </div>
            </li>
          ))}
        </ul>
      )}
      {mayCirculate ? (
        <p>
          <Link to={`/circulations/new?record=${record}`} className="button">
            Circulate for acknowledgement
          </Link>
        </p>
      ) : null}
    </section>
  );
}

/**
 * A group of checkboxes posting `name` once per ticked box (a plain list, not Part A's `{ value }`
 * fields); its errors and those of its items (`vessels[1]`) shown under the group.
 */
export function Checkboxes({
  name,
  id,
  legend,
  options,
  checked,
  errors,
}: {
  name: string;
  id: string;
  legend: string;
  options: readonly { value: string; label: string }[];
  checked: readonly string[];
  errors: string[];
}) {
  const errorId = `${id}-error`;
  return (
    <fieldset className="field" aria-describedby={errors.length ? errorId : undefined}>
      <legend>{legend}</legend>
      <div className="choice-row">
        {options.map((o) => (
          <label key={o.value}>
            <input type="checkbox" name={name} value={o.value} defaultChecked={checked.includes(o.value)} />
            {o.label}
          </label>
        ))}
      </div>
      <ErrorList id={errorId} errors={errors} />
    </fieldset>
  );
}
