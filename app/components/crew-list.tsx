import type { CrewList as CrewListData } from "~/models/overview/vessel-page.server";

/** Who is on board a vessel today, each with their rank, in the ranks' order (issue 41). */
export function CrewList({ crew }: { crew: CrewListData }) {
  if (crew.rows.length === 0) return <p className="empty">Nobody is assigned to this vessel today.</p>;
  return (
    <ul className="waiting-list">
      {crew.rows.map((person) => (
        <li key={person.userId}>
          <span className="break-anywhere">{person.name}</span>
          <span className={person.rank ? "break-anywhere" : "muted"}>{person.rank ?? "No rank recorded"}</span>
        </li>
      ))}
    </ul>
  );
}
