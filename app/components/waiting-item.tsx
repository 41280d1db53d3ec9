/**
 * One line of "Waiting on me" as a kind's registry entry gives it (`WaitingItem`,
 * app/models/record-kind/record-kind.ts; docs/decisions/060-record-kinds.md): what waits and where
 * to act on it, how long it has waited, the day it is due (overdue after it), its flag and a line
 * under it. The dashboard lays out this way the work of every kind it has no section of its own for.
 */
import { Link } from "@remix-run/react";
import { formatDate, waitedFor } from "~/components/moc";
import type { WaitingItem } from "~/models/record-kind/record-kind";

export function WaitingItemLine({ item, now, today }: { item: WaitingItem; now: number; today: string }) {
  const late = item.dueOn !== null && item.dueOn < today;
  return (
    <li>
      <div>
        <Link to={item.path} className="moc-link">
          {item.text}
        </Link>
        {item.badge ? (
          <>
            {" "}
            <span className={`badge badge-${item.badge.tone}`}>{item.badge.text}</span>
          </>
        ) : null}
        {item.detail ? (
          <>
            <br />
            <span className="muted">{item.detail}</span>
          </>
        ) : null}
      </div>
      <div style={{ textAlign: "right" }}>
        {item.waitingSince ? <span>Waiting {waitedFor(item.waitingSince, now)}</span> : null}
        {item.waitingSince && item.dueOn ? <br /> : null}
        {item.dueOn ? (
          <span className={late ? "overdue" : "muted"}>
            Due {formatDate(item.dueOn)}
            {late ? " (overdue)" : ""}
          </span>
        ) : null}
      </div>
    </li>
  );
}
