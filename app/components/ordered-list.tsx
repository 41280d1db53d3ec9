/**
 * The pieces an admin's ordered list page shares (/admin/ranks, /admin/references): each entry's
 * name field and its Rename, Up, Down and Deactivate/Reactivate buttons (plain submits of the
 * entry's form, named for screen readers), and the list's last changes from its settings chain.
 */
import { ErrorList } from "~/components/submit";

/** An entry's "New name" field: what was typed and why it was refused, when it was. */
export function RenameField({
  id,
  name,
  typed,
  error,
  maxLength,
}: {
  id: string;
  name: string;
  typed?: string;
  error?: string;
  maxLength: number;
}) {
  const errorId = `${id}-error`;
  return (
    <div className="field">
      <label htmlFor={id}>
        New name<span className="visually-hidden"> for {name}</span>
      </label>
      <input
        id={id}
        name="name"
        defaultValue={typed ?? name}
        maxLength={maxLength}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
      />
      <ErrorList id={errorId} errors={error ? [error] : null} />
    </div>
  );
}

/** An entry's buttons; they submit the form they stand in with `intent`. */
export function OrderedRowButtons({
  name,
  index,
  count,
  active,
}: {
  name: string;
  index: number;
  count: number;
  active: boolean;
}) {
  return (
    <div className="actions-cell">
      <button type="submit" name="intent" value="rename" className="button button-small">
        Rename<span className="visually-hidden"> {name}</span>
      </button>
      <button
        type="submit"
        name="intent"
        value="up"
        className="button button-small"
        disabled={index === 0}
        aria-label={`Move ${name} up`}
      >
        ↑ Up
      </button>
      <button
        type="submit"
        name="intent"
        value="down"
        className="button button-small"
        disabled={index === count - 1}
        aria-label={`Move ${name} down`}
      >
        ↓ Down
      </button>
      <button
        type="submit"
        name="intent"
        value={active ? "deactivate" : "activate"}
        className="button button-small"
        aria-label={`${active ? "Deactivate" : "Reactivate"} ${name}`}
      >
        {active ? "Deactivate" : "Reactivate"}
      </button>
    </div>
  );
}

type Change = {
  seq: number;
  at: string;
  actorName: string | null;
  action: string;
  from: string | null;
  to: string | null;
};

/** The list's changes, newest first (its settings chain's last entries). */
export function ListChanges({ id, history }: { id: string; history: Change[] }) {
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>Changes</h2>
      {history.length === 0 ? (
        <p className="empty">The list has not been changed since it was set up.</p>
      ) : (
        <ul>
          {history.map((h) => (
            <li key={h.seq} className="break-anywhere">
              <time dateTime={h.at}>{h.at.slice(0, 16).replace("T", " ")} UTC</time>, {h.actorName ?? "—"}: {h.action}
              {h.from ? ` “${h.from}” →` : ""} {h.to ? `“${h.to}”` : ""}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
