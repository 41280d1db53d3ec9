/**
 * The year-end review as read on /reviews/:id and printed from /reviews/:id/print: the MOC summary
 * (numbers and two inline SVG bar charts from components/charts.tsx, each with a data table), the
 * insight figures when they were pulled in, sections, participants and the follow-up actions with
 * overdue ones marked.
 */
import type { MocSummary } from "#db/schema/reviews";
import { MOC_STATUS_LABELS } from "~/models/moc/moc-status";
import { REVIEW_ACTION_LABELS, SUMMARY_STATUSES } from "~/models/review/review.constants";
import { departmentLabel, formatDate, formatDateTime } from "./moc";
import { BarChart, StatGrid, type ChartRow } from "./charts";
import { InsightsView } from "./insights";
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
      <StatGrid stats={stats} />
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

      {review.moc_summary.insights ? (
        <section className="card review-block" aria-labelledby="review-insights-title">
          <h2 id="review-insights-title">Insight figures, {review.year}</h2>
          <p className="muted">
            Pulled in from the insight figures
            {review.moc_summary.insights.period.asOf
              ? ` (open MOCs as of ${formatDate(review.moc_summary.insights.period.asOf)})`
              : ""}
            ; they stay as they were then until someone pulls them in again.
          </p>
          <InsightsView figures={review.moc_summary.insights} headingLevel={3} />
        </section>
      ) : null}

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
