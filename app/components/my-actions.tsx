import { Link } from "@remix-run/react";
import { formatDate } from "~/components/moc";

type Item = {
  mocId: string;
  serialNum: string;
  mocState: string;
  plan: "action" | "manual_plan";
  itemId: string;
  what: string;
  due: string | null;
  daysLeft: number | null;
  mayMarkDone: boolean;
};

/** "is 2 days overdue", "due today", "due in 3 days". */
function dueWords(item: Item): string {
  if (item.due === null || item.daysLeft === null) return "No due date";
  const date = formatDate(item.due);
  if (item.daysLeft < 0) return `Due ${date} (${-item.daysLeft} day${item.daysLeft === -1 ? "" : "s"} overdue)`;
  if (item.daysLeft === 0) return `Due today, ${date}`;
  return `Due ${date}`;
}

/**
 * The dashboard's "My actions" (docs/decisions/038-actions-as-tasks.md): the user's open plan items
 * across MOCs, soonest due first, each with its MOC and state and a link to mark it done.
 */
export function MyActions({ actions, total }: { actions: Item[]; total: number }) {
  return (
    <section className="card" aria-labelledby="my-actions-title">
      <h2 id="my-actions-title">My actions</h2>
      {actions.length === 0 ? (
        <p className="empty">No open action or manuals item is assigned to you.</p>
      ) : (
        <ul className="waiting-list" aria-label="Action-plan and manuals-plan items assigned to me">
          {actions.map((item) => {
            const late = item.daysLeft !== null && item.daysLeft < 0;
            return (
              <li key={`${item.mocId}-${item.plan}-${item.itemId}`}>
                <div>
                  <Link to={`/mocs/${item.mocId}`} className="moc-link">
                    MOC {item.serialNum}
                  </Link>{" "}
                  <span className="badge badge-info">{item.mocState}</span>
                  <br />
                  <span style={{ overflowWrap: "anywhere" }}>
                    {item.plan === "action" ? "Action" : "Manuals and drawings"}: {item.what}
                  </span>
                </div>
                <div style={{ textAlign: "right" }}>
                  <span className={late ? "overdue" : "muted"}>{dueWords(item)}</span>
                  <br />
                  {item.mayMarkDone ? (
                    <Link
                      to={`/mocs/${item.mocId}/done-item?plan=${item.plan}&item=${encodeURIComponent(item.itemId)}`}
                      aria-label={`Mark done: ${item.what.slice(0, 60)} (MOC ${item.serialNum})`}
                    >
                      Mark done
                    </Link>
                  ) : (
                    <span className="muted">After approval</span>
                  )}
                </div>
              </li>
            );
          })}
        </ul>
      )}
      {total > actions.length ? (
        <p>
          The {actions.length} due soonest, of {total}.{" "}
          <Link to="/?actions=all#my-actions-title">All {total} of my actions</Link>
        </p>
      ) : null}
    </section>
  );
}
