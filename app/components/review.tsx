/**
 * The year-end review as read on /reviews/:id and printed from /reviews/:id/print: the MOC summary
 * (numbers and two inline SVG bar charts, each with a data table), sections, participants and the
 * follow-up actions with overdue ones marked.
 */
import type { MocSummary } from "#db/schema/reviews";
import { MOC_STATUS_LABELS } from "~/models/moc-status";
import { REVIEW_ACTION_LABELS, SUMMARY_STATUSES } from "~/models/review.schema";
import { departmentLabel, formatDate, formatDateTime } from "./moc";
import { RichText } from "./moc-record";

type Person = { _id: string; name: string; department: string; email?: string };

/** The review as the pages receive it (the API document, rich text sanitised again). */
export type ReviewView = {
  _id: string;
  year: number;
  title: string;
  sections: { heading: string; body: string }[];
  participants: Person[];
  moc_summary: MocSummary;
  effectiveness: string;
  improvements: string;
  issues: string;
  actions: { description: string; owner: Person | null; due: string; status: string }[];
  createdBy: Person | null;
  updatedBy: Person | null;
  createdAt: string;
  updatedAt: string;
};

export type ChartRow = { key: string; label: string; value: number; tone?: "primary" | "success" | "danger" };

const ROW_HEIGHT = 30;
const LABEL_WIDTH = 200;
const BAR_WIDTH = 200;
const WIDTH = LABEL_WIDTH + BAR_WIDTH + 40;

/**
 * A horizontal bar chart drawn as inline SVG. The SVG is one image with a name and a text
 * description; the same numbers follow as a table (visually hidden unless `showTable`).
 */
export function BarChart({
  id,
  title,
  category,
  rows,
  showTable = false,
}: {
  id: string;
  title: string;
  category: string;
  rows: ChartRow[];
  showTable?: boolean;
}) {
  const max = Math.max(1, ...rows.map((r) => r.value));
  const height = rows.length * ROW_HEIGHT + 8;
  const description = rows.map((r) => `${r.label}: ${r.value}`).join("; ");
  return (
    <figure className="review-chart" aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`}>{title}</figcaption>
      <svg
        role="img"
        aria-labelledby={`${id}-svg-title ${id}-svg-desc`}
        viewBox={`0 0 ${WIDTH} ${height}`}
        className="review-chart-svg"
        preserveAspectRatio="xMinYMin meet"
      >
        <title id={`${id}-svg-title`}>{title}</title>
        <desc id={`${id}-svg-desc`}>{description}</desc>
        {rows.map((row, index) => {
          const width = Math.round((row.value / max) * BAR_WIDTH);
          const y = index * ROW_HEIGHT + 4;
          return (
            <g key={row.key} transform={`translate(0 ${y})`}>
              <text
                x={LABEL_WIDTH - 10}
                y={ROW_HEIGHT / 2}
                textAnchor="end"
                dominantBaseline="middle"
                className="chart-label"
              >
                {row.label}
              </text>
              <rect
                x={LABEL_WIDTH}
                y={5}
                width={Math.max(width, row.value > 0 ? 2 : 0)}
                height={ROW_HEIGHT - 10}
                rx={3}
                className={`chart-bar chart-bar-${row.tone ?? "primary"}`}
              />
              <text x={LABEL_WIDTH + width + 8} y={ROW_HEIGHT / 2} dominantBaseline="middle" className="chart-value">
                {row.value}
              </text>
            </g>
          );
        })}
      </svg>
      <table className={showTable ? "chart-table" : "visually-hidden"}>
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">{category}</th>
            <th scope="col">MOCs</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key}>
              <th scope="row">{row.label}</th>
              <td>{row.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

export function statusRows(summary: MocSummary): ChartRow[] | null {
  const byStatus = summary.by_status;
  if (!byStatus) return null;
  const keys = [
    ...SUMMARY_STATUSES,
    ...Object.keys(byStatus).filter((k) => !(SUMMARY_STATUSES as readonly string[]).includes(k)),
  ];
  return keys.map((key) => ({
    key,
    label: key === "completed" ? "Completed" : (MOC_STATUS_LABELS[key] ?? key),
    value: byStatus[key] ?? 0,
    tone: key === "completed" ? "success" : key === "decline" ? "danger" : "primary",
  }));
}

export function departmentRows(summary: MocSummary): ChartRow[] {
  const known = ["engineering", "operations", "fleet", "hseq"];
  const keys = [...known, ...Object.keys(summary.by_department).filter((k) => !known.includes(k))];
  return keys.map((key) => ({ key, label: departmentLabel(key), value: summary.by_department[key] ?? 0 }));
}

function outcomeRows(summary: MocSummary): ChartRow[] {
  return [
    { key: "completed", label: "Completed", value: summary.completed, tone: "success" },
    { key: "declined", label: "Declined", value: summary.declined, tone: "danger" },
    { key: "open", label: "Open", value: summary.open },
  ];
}

export function MocSummaryView({
  summary,
  year,
  print = false,
}: {
  summary: MocSummary;
  year: number;
  print?: boolean;
}) {
  const byStatus = statusRows(summary);
  const stats = [
    { label: "MOCs raised", value: summary.total },
    { label: "Completed", value: summary.completed },
    { label: "Declined", value: summary.declined },
    { label: "Open", value: summary.open },
  ];
  return (
    <>
      <p className="muted">
        MOCs created in {year} (UTC), deleted ones left out.{" "}
        {summary.computed_at
          ? `Counted ${formatDateTime(summary.computed_at)}.`
          : "These numbers were entered by hand."}
      </p>
      <dl className="stat-grid review-stats">
        {stats.map((s) => (
          <div className="stat" key={s.label}>
            <dt>{s.label}</dt>
            <dd className="stat-number">{s.value}</dd>
          </div>
        ))}
      </dl>
      <div className="review-charts">
        {byStatus ? (
          <BarChart
            id="chart-status"
            title={`MOCs by status, ${year}`}
            category="Status"
            rows={byStatus}
            showTable={print}
          />
        ) : (
          <BarChart
            id="chart-status"
            title={`MOCs by outcome, ${year}`}
            category="Outcome"
            rows={outcomeRows(summary)}
            showTable={print}
          />
        )}
        <BarChart
          id="chart-department"
          title={`MOCs by department, ${year}`}
          category="Department"
          rows={departmentRows(summary)}
          showTable={print}
        />
      </div>
    </>
  );
}

export const isOverdue = (action: { due: string; status: string }, today: string) =>
  action.status !== "done" && action.due < today;

export function ActionStatusBadge({ status }: { status: string }) {
  const tone = status === "done" ? "badge-success" : status === "in_progress" ? "badge-info" : "badge";
  return (
    <span className={`badge ${tone}`}>
      {REVIEW_ACTION_LABELS[status as keyof typeof REVIEW_ACTION_LABELS] ?? status}
    </span>
  );
}

function ActionsTable({ actions, today }: { actions: ReviewView["actions"]; today: string }) {
  if (actions.length === 0) return <p className="empty">No follow-up actions.</p>;
  return (
    <div className="table-wrap">
      <table className="stack-on-phone review-actions">
        <caption className="visually-hidden">Follow-up actions</caption>
        <thead>
          <tr>
            <th scope="col">Action</th>
            <th scope="col">Owner</th>
            <th scope="col">Due</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {actions.map((action, index) => {
            const overdue = isOverdue(action, today);
            return (
              <tr key={index} className={overdue ? "is-overdue" : undefined}>
                <td data-label="Action">{action.description}</td>
                <td data-label="Owner">{action.owner?.name ?? <span className="muted">—</span>}</td>
                <td data-label="Due">
                  {formatDate(action.due)}
                  {overdue ? (
                    <>
                      {" "}
                      <span className="badge badge-danger">Overdue</span>
                    </>
                  ) : null}
                </td>
                <td data-label="Status">
                  <ActionStatusBadge status={action.status} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Everything in the review below its page header. */
export function ReviewBody({ review, today, print = false }: { review: ReviewView; today: string; print?: boolean }) {
  return (
    <div className="review-document">
      <section className="card review-block" aria-labelledby="summary-title">
        <h2 id="summary-title">MOC summary</h2>
        <MocSummaryView summary={review.moc_summary} year={review.year} print={print} />
      </section>

      <section className="card review-block" aria-labelledby="participants-title">
        <h2 id="participants-title">Participants</h2>
        {review.participants.length === 0 ? (
          <p className="empty">No participants recorded.</p>
        ) : (
          <ul className="review-participants">
            {review.participants.map((p) => (
              <li key={p._id}>
                {p.name} <span className="muted">({departmentLabel(p.department)})</span>
              </li>
            ))}
          </ul>
        )}
      </section>

      {review.sections.map((section, index) => (
        <section className="card review-block" key={index} aria-labelledby={`section-${index}-title`}>
          <h2 id={`section-${index}-title`}>{section.heading}</h2>
          <RichText html={section.body} />
        </section>
      ))}

      <section className="card review-block" aria-labelledby="assessment-title">
        <h2 id="assessment-title">Assessment</h2>
        <h3>Effectiveness of the MOC process</h3>
        <RichText html={review.effectiveness} />
        <h3>Improvements</h3>
        <RichText html={review.improvements} />
        <h3>Issues</h3>
        <RichText html={review.issues} />
      </section>

      <section className="card review-block" aria-labelledby="actions-title">
        <h2 id="actions-title">Follow-up actions</h2>
        <ActionsTable actions={review.actions} today={today} />
      </section>

      <p className="muted review-footer">
        Created {formatDateTime(review.createdAt)}
        {review.createdBy ? ` by ${review.createdBy.name}` : ""}; last updated {formatDateTime(review.updatedAt)}
        {review.updatedBy ? ` by ${review.updatedBy.name}` : ""}.
      </p>
    </div>
  );
}
