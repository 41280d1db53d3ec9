/**
 * The insight figures as the /insights page and the year-end review show them: headline numbers,
 * then each figure as a server-rendered SVG chart (components/charts.tsx) with its table beneath
 * (the accessible, printable and no-JavaScript form) and, on /insights, a CSV download of the table.
 */
import { insightTables, type Cell, type InsightTable, type InsightTableId } from "~/models/insights/insights-tables";
import { OVERDUE_BANDS, OVERDUE_BAND_LABELS } from "~/models/insights/insights.constants";
import type { InsightsFigures } from "~/models/insights/insights.schema";
import { BarChart, ColumnChart, StatGrid, type Series } from "./charts";
import { departmentLabel, formatDate } from "./moc";

const days = (n: number) => `${n} d`;
const pct = (n: number) => `${n}%`;
const show = (cell: Cell) => (cell === null ? "—" : String(cell));

export function InsightTableView({ table, csvHref }: { table: InsightTable; csvHref?: string }) {
  return (
    <>
      <div className="table-wrap">
        <table className="stack-on-phone insights-table">
          <caption>{table.title}</caption>
          <thead>
            <tr>
              {table.columns.map((c) => (
                <th scope="col" key={c}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {table.rows.length === 0 ? (
              <tr>
                <td colSpan={table.columns.length}>None in this period.</td>
              </tr>
            ) : (
              table.rows.map((row, r) => (
                <tr key={r}>
                  <th scope="row">{show(row[0] ?? null)}</th>
                  {row.slice(1).map((cell, c) => (
                    <td key={c} data-label={table.columns[c + 1]}>
                      {show(cell)}
                    </td>
                  ))}
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      {csvHref ? (
        <p className="no-print insights-download">
          <a href={csvHref} download>
            Download this table as CSV<span className="visually-hidden">: {table.title}</span>
          </a>
        </p>
      ) : null}
    </>
  );
}

/** Every day from `from` to `to`, with the reminders of the days that had any. */
function everyDay(f: InsightsFigures) {
  const sent = new Map(f.reminders.days.map((d) => [d.day, d.mocs]));
  const points: { key: string; label: string; value: number }[] = [];
  for (let t = Date.parse(f.period.from); t <= Date.parse(f.period.to); t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    points.push({ key: day, label: day, value: sent.get(day) ?? 0 });
  }
  return points;
}

const spreadSeries: Series[] = [
  { label: "Median", tone: "primary" },
  { label: "90th percentile", tone: "warning" },
];

export function InsightsView({
  figures: f,
  csvHref,
  headingLevel = 2,
}: {
  figures: InsightsFigures;
  /** The CSV download of a table; left out (the year-end review's stored copy), no links. */
  csvHref?: (table: InsightTableId) => string;
  headingLevel?: 2 | 3;
}) {
  const tables = insightTables(f);
  const H = headingLevel === 2 ? "h2" : "h3";
  const link = (id: InsightTableId) => csvHref?.(id);
  const stats = [
    { label: "MOCs opened", value: f.totals.opened },
    { label: "Completed", value: f.totals.completed },
    { label: "Declined", value: f.totals.declined },
    { label: `Open on ${formatDate(f.period.asOf)}`, value: f.totals.openAtEnd },
    { label: "Closed on time", value: f.totals.onTimeRate === null ? "—" : pct(f.totals.onTimeRate) },
  ];
  const slowest = f.steps
    .filter((s) => s.median !== null)
    .sort((a, b) => b.median! - a.median!)
    .at(0);
  return (
    <div className="insights">
      <StatGrid stats={stats} />

      <section className="insights-block" aria-labelledby="insights-flow">
        <H id="insights-flow">MOCs per month</H>
        <BarChart
          id="chart-monthly"
          title="MOCs opened, completed and declined per month, and open at the month's end"
          category="Month"
          rows={tables.monthly.rows.map((row, i) => ({
            key: f.monthly[i]!.month,
            label: String(row[0]),
            values: row.slice(1) as number[],
          }))}
          series={[
            { label: "Opened", tone: "primary" },
            { label: "Completed", tone: "success" },
            { label: "Declined", tone: "danger" },
            { label: "Open at month end", tone: "muted" },
          ]}
        >
          <InsightTableView table={tables.monthly} csvHref={link("monthly")} />
        </BarChart>
      </section>

      <section className="insights-block" aria-labelledby="insights-steps">
        <H id="insights-steps">Time in each step</H>
        <p className="muted">
          {slowest
            ? `The slowest step by median: ${slowest.label}, ${slowest.median} days.`
            : "No step ended in this period."}
        </p>
        <BarChart
          id="chart-steps"
          title="Days spent in each step: median and 90th percentile"
          category="Step"
          rows={f.steps.map((s) => ({ key: s.step, label: s.label, values: [s.median, s.p90] }))}
          series={spreadSeries}
          format={days}
        >
          <InsightTableView table={tables.steps} csvHref={link("steps")} />
        </BarChart>
      </section>

      <section className="insights-block" aria-labelledby="insights-on-time">
        <H id="insights-on-time">On-time closure and overdue MOCs</H>
        <p className="muted">
          On time: completed on or before the target date, which approved extensions move. Bands: the open MOCs on{" "}
          {formatDate(f.period.asOf)} by their target date then, as the reminders grade them.
        </p>
        <div className="review-charts">
          <BarChart
            id="chart-on-time"
            title="On-time closure rate per department (%)"
            category="Department"
            rows={f.departments.map((d) => ({
              key: d.department,
              label: departmentLabel(d.department),
              values: [d.onTimeRate],
            }))}
            series={[{ label: "On-time rate %", tone: "success" }]}
            format={pct}
          >
            {null}
          </BarChart>
          <BarChart
            id="chart-overdue"
            title={`Open MOCs by target-date band on ${f.period.asOf}`}
            category="Band"
            rows={OVERDUE_BANDS.map((band) => ({
              key: band,
              label: OVERDUE_BAND_LABELS[band].replace(/ \(.*\)$/, ""),
              value: f.departments.reduce((n, d) => n + d.overdue[band], 0),
              tone: band === "OVERDUE_LONG" || band === "CRITICAL" ? "danger" : "warning",
            }))}
          >
            {null}
          </BarChart>
        </div>
        <InsightTableView table={tables["on-time"]} csvHref={link("on-time")} />
      </section>

      <section className="insights-block" aria-labelledby="insights-deviations">
        <H id="insights-deviations">Deviations and extensions</H>
        <BarChart
          id="chart-deviations"
          title="Deviations and extensions requested, approved, rejected and waiting"
          category="Type"
          rows={f.deviations.map((d) => ({
            key: d.type,
            label: d.type === "deviation" ? "Deviations" : "Extensions",
            values: [d.requested, d.approved, d.rejected, d.waiting],
          }))}
          series={[
            { label: "Requested", tone: "primary" },
            { label: "Approved", tone: "success" },
            { label: "Rejected", tone: "danger" },
            { label: "Waiting", tone: "muted" },
          ]}
        >
          <InsightTableView table={tables.deviations} csvHref={link("deviations")} />
        </BarChart>
        {f.deviations.some((d) => d.daysAddedUnknown > 0) ? (
          <p className="muted">
            {f.deviations.reduce((n, d) => n + d.daysAddedUnknown, 0)} approved extension(s) were requested before the
            app kept the date they replaced; their days are not in “Days added”.
          </p>
        ) : null}
      </section>

      <section className="insights-block" aria-labelledby="insights-pcrs">
        <H id="insights-pcrs">PCRs</H>
        <p className="muted">
          {f.pcrs.created} created and {f.pcrs.finished} finished in this period
          {f.pcrs.daysToFinish.median !== null
            ? `; creation to finished took ${f.pcrs.daysToFinish.median} days at the median, ${f.pcrs.daysToFinish.p90} at the 90th percentile`
            : ""}
          .
        </p>
        <BarChart
          id="chart-pcrs"
          title="Days each PCR signer took, from the previous signature to their own"
          category="Role"
          rows={f.pcrs.roles.map((r) => ({ key: r.role, label: r.role, values: [r.median, r.p90] }))}
          series={spreadSeries}
          format={days}
        >
          <InsightTableView table={tables.pcrs} csvHref={link("pcrs")} />
        </BarChart>
      </section>

      <section className="insights-block" aria-labelledby="insights-reminders">
        <H id="insights-reminders">Reminders</H>
        <p className="muted">
          {f.reminders.total.mocs} reminders ({f.reminders.total.emails} emails) in this period; days without any are
          left out of the table.
        </p>
        <ColumnChart id="chart-reminders" title="MOCs reminded per day" unit="MOCs reminded" points={everyDay(f)}>
          <InsightTableView table={tables.reminders} csvHref={link("reminders")} />
        </ColumnChart>
      </section>

      {f.overdueActions ? (
        <section className="insights-block" aria-labelledby="insights-overdue-actions">
          <H id="insights-overdue-actions">Overdue actions</H>
          <p className="muted">
            Action-plan and manuals-plan items neither done nor cancelled, past their due date on{" "}
            {formatDate(f.period.asOf)}, on MOCs still open; departments are each MOC&apos;s.
            {f.overdueActions.length === 0 ? " None." : ""}
          </p>
          <InsightTableView table={tables["overdue-actions"]} csvHref={link("overdue-actions")} />
        </section>
      ) : null}

      <section className="insights-block" aria-labelledby="insights-risk">
        <H id="insights-risk">Risk</H>
        <p className="muted">
          Each MOC&apos;s risk is the highest residual level of its impact assessment; a High or Extreme MOC needs
          further approvals after the approver&apos;s.
        </p>
        <InsightTableView table={tables.risk} csvHref={link("risk")} />
      </section>

      {f.vessels ? (
        <section className="insights-block" aria-labelledby="insights-vessels">
          <H id="insights-vessels">By vessel</H>
          <p className="muted">
            Each MOC&apos;s Part A vessel, office / shore or fleet-wide; MOCs raised before Part A asked it are
            &quot;Not recorded&quot;.
          </p>
          <InsightTableView table={tables.vessels} csvHref={link("vessels")} />
        </section>
      ) : null}

      {f.acknowledgementCompliance ? (
        <section className="insights-block" aria-labelledby="insights-acknowledgements">
          <H id="insights-acknowledgements">Acknowledgement compliance by vessel</H>
          <p className="muted">
            Everyone a circulated change was due to be read by in the period, by the vessel that brought them;
            compliance is those who acknowledged on or before their due date, of those who acknowledged or are overdue
            (crew who left the vessel and those not yet due are not counted).
            {f.acknowledgementCompliance.length === 0 ? " Nobody was due to acknowledge a change in the period." : ""}
          </p>
          <InsightTableView table={tables.acknowledgements} csvHref={link("acknowledgements")} />
        </section>
      ) : null}

      {f.effectiveness ? (
        <section className="insights-block" aria-labelledby="insights-effectiveness">
          <H id="insights-effectiveness">Effectiveness reviews</H>
          <p className="muted">
            The reviews of closed MOCs due in the period (set by the verifier at closure): answered, by result, and
            overdue (due before {f.period.asOf}, not answered).
            {f.effectiveness.due === 0 ? " No review was due in the period." : ""}
          </p>
          <InsightTableView table={tables.effectiveness} csvHref={link("effectiveness")} />
        </section>
      ) : null}

      <p className="muted insights-note">
        {f.vesselOrOffice === "recorded"
          ? "Departments are each MOC's Part A department of change; vessels its Part A vessel or scope."
          : "Vessel or office: MOCs did not record whether a change applies to a vessel or to the office when these figures were counted. Departments are each MOC's Part A department of change."}
      </p>
    </div>
  );
}
