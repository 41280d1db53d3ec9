/** Read-only pieces of a MOC's record: rich text and the audit trail (the parts: moc-parts.tsx). */
import { formatDateTime } from "./moc";

export function RichText({ html }: { html: unknown }) {
  if (typeof html !== "string" || !html.trim()) return <span className="muted">—</span>;
  // Sanitised on write and again by the route's loader before it reaches here.
  return <div className="rich-text" dangerouslySetInnerHTML={{ __html: html }} />;
}

export type LogEntry = {
  _id: string;
  userId: { name: string } | null;
  onBehalfOf?: { name: string } | null;
  action: string;
  from: string | null;
  to: string | null;
  comment: string | null;
  at: string;
};

export function Timeline({ logs }: { logs: LogEntry[] }) {
  if (logs.length === 0) return <p className="muted">No activity yet.</p>;
  return (
    <ol className="timeline">
      {[...logs].reverse().map((log) => (
        <li key={log._id}>
          <strong>{log.action}</strong> — {log.userId?.name ?? "someone"}
          {log.onBehalfOf ? ` on behalf of ${log.onBehalfOf.name}` : ""}
          {log.comment ? (
            <p className="muted plain-text" style={{ margin: "0.2rem 0 0" }}>
              “{log.comment}”
            </p>
          ) : null}
          <time dateTime={log.at}>{formatDateTime(log.at)}</time>
        </li>
      ))}
    </ol>
  );
}
