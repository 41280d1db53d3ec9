/**
 * The risk ranking's UI (docs/decisions/037-risk-ranking-and-approvals.md): the MOC's risk badge,
 * the approvals its risk needs (beside the stepper), and the 5x5 matrix the admin page shows.
 */
import { levelOfScore, riskLabel, type RiskLevel, type RiskThresholds } from "~/models/risk/risk";

const RISK_TONE: Record<RiskLevel, string> = {
  low: "badge-success",
  medium: "badge-info",
  high: "badge-warning",
  extreme: "badge-danger badge-extreme",
};

/** "Risk: High", or "Risk: Not ranked". */
export function RiskBadge({ level, prefix = true }: { level: RiskLevel | null | undefined; prefix?: boolean }) {
  return (
    <span className={`badge ${level ? RISK_TONE[level] : "badge-muted"}`}>
      {prefix ? "Risk: " : ""}
      {riskLabel(level)}
    </span>
  );
}

/** One approval a MOC's risk needs, as the record page shows it. */
export type ApprovalLine = {
  label: string;
  who: string | null;
  state: "given" | "waiting" | "todo" | "declined";
  at: string | null;
};

/** The approvals a High or Extreme MOC needs, in order, with who gave or owes each. */
export function ApprovalChain({ approvals }: { approvals: ApprovalLine[] }) {
  if (approvals.length < 2) return null;
  return (
    <section aria-labelledby="approval-chain-title" className="approval-chain">
      <h2 id="approval-chain-title" className="visually-hidden">
        Approvals this MOC's risk needs
      </h2>
      <ol>
        {approvals.map((a) => (
          <li key={a.label} className={`approval approval-${a.state}`}>
            <span aria-hidden="true">
              {a.state === "given" ? "✓" : a.state === "declined" ? "✕" : a.state === "waiting" ? "…" : "○"}
            </span>{" "}
            <strong>{a.label}</strong>
            {a.state === "given"
              ? `: approved by ${a.who ?? "—"}${a.at ? ` on ${a.at.slice(0, 10)}` : ""}`
              : a.state === "declined"
                ? `: declined by ${a.who ?? "—"}`
                : a.state === "waiting"
                  ? `: waiting on ${a.who ?? "—"}`
                  : a.who
                    ? `: then ${a.who}`
                    : ""}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The 5x5 matrix under the thresholds `t`: likelihood down, severity across, each cell its level. */
export function RiskMatrix({ t }: { t: RiskThresholds }) {
  const ranks = [1, 2, 3, 4, 5];
  return (
    <div className="table-wrap">
      <table className="risk-matrix">
        <caption>Risk matrix: likelihood × severity</caption>
        <thead>
          <tr>
            <th scope="col">
              <abbr title="Likelihood">L</abbr> \ <abbr title="Severity">S</abbr>
            </th>
            {ranks.map((s) => (
              <th key={s} scope="col">
                {s}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {[...ranks].reverse().map((l) => (
            <tr key={l}>
              <th scope="row">{l}</th>
              {ranks.map((s) => {
                const level = levelOfScore(l * s, t);
                return (
                  <td key={s} className={`risk-cell risk-${level}`}>
                    {l * s} <span className="risk-cell-level">{riskLabel(level)}</span>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
