/** Read-only views of a MOC's parts, plans and audit trail. */
import type { ReactNode } from "react";
import { departmentLabel, formatDate, formatDateTime } from "./moc";

type Form = Record<string, { value?: unknown } | string | null | undefined> | null | undefined;

const valueOf = (form: Form, key: string): unknown => {
  const entry = form?.[key];
  return entry && typeof entry === "object" ? entry.value : undefined;
};

function show(value: unknown): ReactNode {
  if (value === undefined || value === null || value === "") return <span className="muted">—</span>;
  if (value === "yes") return "Yes";
  if (value === "no") return "No";
  if (Array.isArray(value)) return value.length ? value.map((v) => departmentLabel(String(v))).join(", ") : "None";
  if (typeof value === "object" && "name" in (value as object)) return String((value as { name: string }).name);
  if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value)) return formatDate(value);
  return String(value);
}

export function Answers({ form, rows }: { form: Form; rows: [key: string, label: string][] }) {
  return (
    <dl className="answers">
      {rows.map(([key, label]) => (
        <div key={key} style={{ display: "contents" }}>
          <dt>{label}</dt>
          <dd className="plain-text">{show(valueOf(form, key))}</dd>
        </div>
      ))}
    </dl>
  );
}

export function RichText({ html }: { html: unknown }) {
  if (typeof html !== "string" || !html.trim()) return <span className="muted">—</span>;
  // Sanitised on write and again by the route's loader before it reaches here.
  return <div className="rich-text" dangerouslySetInnerHTML={{ __html: html }} />;
}

/**
 * One part of the record. `folded`: a finished part, shown as a <details> that opens on its heading
 * (docs/decisions/032-pages-at-sea.md), so the part in hand comes first on a phone.
 */
export function Part({
  title,
  form,
  children,
  id,
  folded = false,
  listedWhenEmpty = false,
}: {
  title: string;
  form: Form;
  children: ReactNode;
  id: string;
  folded?: boolean;
  /** Not filled in yet: nothing here, the page lists it with the others still to come. */
  listedWhenEmpty?: boolean;
}) {
  if (!form && listedWhenEmpty) return null;
  const submittedAt = form && typeof form.submittedAt === "string" ? form.submittedAt : null;
  const heading = (
    <h2 id={id}>
      {title}
      {submittedAt ? (
        <span className="muted" style={{ fontSize: "0.85rem", fontWeight: 400 }}>
          Submitted {formatDateTime(submittedAt)}
        </span>
      ) : form ? (
        <span className="badge">Draft</span>
      ) : null}
    </h2>
  );
  if (folded && form) {
    return (
      <details className="card part" aria-labelledby={id}>
        <summary>{heading}</summary>
        {children}
      </details>
    );
  }
  return (
    <section className="card part" aria-labelledby={id}>
      {heading}
      {form ? children : <p className="muted">Not filled in yet.</p>}
    </section>
  );
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
