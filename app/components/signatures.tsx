/** Signature blocks and a record's audit history, as the MOC and PCR pages (and print views) show them. */
import type { SignatureManifestation } from "~/models/audit/audit.server";
import { formatDateTime } from "./moc";

/** Each signature as a block: printed name, position and role, meaning, UTC time. */
export function SignatureBlocks({ signatures, empty }: { signatures: SignatureManifestation[]; empty: string }) {
  if (signatures.length === 0) return <p className="muted">{empty}</p>;
  return (
    <ul className="manifestation-blocks">
      {signatures.map((s, i) => (
        <li key={`${s.signerId}-${s.signedAt}-${i}`} className="manifestation-block">
          <p className="manifestation-name">{s.printedName}</p>
          {s.accountName ? (
            <p className="muted">{`Account now named ${s.accountName} (renamed since signing)`}</p>
          ) : null}
          <p className="muted">
            {s.role}
            {s.onBehalfOf ? `, on behalf of ${s.onBehalfOf.name}` : ""}
            {s.position && s.position !== s.role ? ` · ${s.position}` : ""}
          </p>
          <p>
            <strong>Meaning:</strong> {s.meaning}
          </p>
          <p className="muted">
            {/* To the second, in UTC: the time an auditor compares with other records. */}
            <time dateTime={s.signedAt}>{`${s.signedAt.slice(0, 10)} ${s.signedAt.slice(11, 19)} UTC`}</time>
          </p>
        </li>
      ))}
    </ul>
  );
}

export type HistoryItem = {
  seq: number;
  at: string;
  actorName: string | null;
  action: string;
  from: string | null;
  to: string | null;
  comment: string | null;
};

/** A record's audit trail, newest first. */
export function History({ entries }: { entries: HistoryItem[] }) {
  if (entries.length === 0) return <p className="muted">No activity yet.</p>;
  return (
    <ol className="timeline">
      {[...entries].reverse().map((entry) => (
        <li key={entry.seq}>
          <strong>{entry.action}</strong> — {entry.actorName ?? "the system"}
          {entry.from || entry.to ? (
            <span className="muted">
              {" "}
              ({entry.from ?? "—"} → {entry.to ?? "—"})
            </span>
          ) : null}
          {entry.comment ? (
            <p className="muted" style={{ margin: "0.2rem 0 0" }}>
              “{entry.comment}”
            </p>
          ) : null}
          <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
        </li>
      ))}
    </ol>
  );
}
