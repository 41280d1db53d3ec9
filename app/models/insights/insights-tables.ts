/**
 * The insight figures as tables: one definition per table, rendered under each chart on /insights
 * and on the year-end review, and downloaded as CSV from GET /api/insights?format=csv&table=<id>.
 * Plain code, no server imports (the page's components use it too).
 */
import { departmentLabel } from "../shared/labels";
import { OVERDUE_BANDS, OVERDUE_BAND_LABELS } from "./insights.constants";
import { riskLabel } from "../risk/risk";
import type { InsightTableId, InsightsFigures } from "./insights.schema";

export type { InsightTableId } from "./insights.schema";

export type Cell = string | number | null;
export type InsightTable = {
  id: InsightTableId;
  title: string;
  /** Column headers; the first column holds each row's name. */
  columns: string[];
  rows: Cell[][];
};

const monthName = (month: string) =>
  new Date(`${month}-01T00:00:00Z`).toLocaleString("en-GB", { month: "short", year: "numeric", timeZone: "UTC" });

export function insightTables(f: InsightsFigures): Record<InsightTableId, InsightTable> {
  return {
    monthly: {
      id: "monthly",
      title: "MOCs opened, completed and declined per month, and open at each month's end",
      columns: ["Month", "Opened", "Completed", "Declined", "Open at month end"],
      rows: f.monthly.map((m) => [monthName(m.month), m.opened, m.completed, m.declined, m.openAtEnd]),
    },
    steps: {
      id: "steps",
      title: "Days spent in each step (stays that ended in the period)",
      columns: ["Step", "Stays", "Median days", "90th percentile days"],
      rows: f.steps.map((s) => [s.label, s.count, s.median, s.p90]),
    },
    "on-time": {
      id: "on-time",
      title: `On-time closure per department, and open MOCs by target date on ${f.period.asOf}`,
      columns: [
        "Department",
        "Completed",
        "On time",
        "On-time rate %",
        ...OVERDUE_BANDS.map((band) => OVERDUE_BAND_LABELS[band]),
      ],
      rows: f.departments.map((d) => [
        departmentLabel(d.department),
        d.completed,
        d.onTime,
        d.onTimeRate,
        ...OVERDUE_BANDS.map((band) => d.overdue[band]),
      ]),
    },
    deviations: {
      id: "deviations",
      title: "Deviations and extensions requested in the period",
      columns: ["Type", "Requested", "Approved", "Rejected", "Waiting", "Approval rate %", "Days added"],
      rows: f.deviations.map((d) => [
        d.type === "deviation" ? "Deviations" : "Extensions",
        d.requested,
        d.approved,
        d.rejected,
        d.waiting,
        d.approvalRate,
        d.daysAdded,
      ]),
    },
    pcrs: {
      id: "pcrs",
      title: "PCRs: days each signer took, from the previous signature to their own",
      columns: ["Role", "Signatures", "Median days", "90th percentile days"],
      rows: [
        ...f.pcrs.roles.map((r) => [r.role, r.count, r.median, r.p90]),
        ["Creation to finished", f.pcrs.daysToFinish.count, f.pcrs.daysToFinish.median, f.pcrs.daysToFinish.p90],
      ],
    },
    vessels: {
      id: "vessels",
      title: `MOCs by vessel: opened and completed in the period, open and overdue on ${f.period.asOf}, and their overdue actions`,
      columns: ["Vessel or scope", "Opened", "Completed", "Open", "Overdue", "Overdue actions"],
      rows: (f.vessels ?? []).map((v) => [v.vessel, v.opened, v.completed, v.open, v.overdue, v.overdueActions ?? 0]),
    },
    acknowledgements: {
      id: "acknowledgements",
      title: `Acknowledgement compliance by vessel: recipients due in the period, as they stand on ${f.period.asOf}`,
      columns: [
        "Vessel",
        "Recipients",
        "Acknowledged",
        "Acknowledged on time",
        "Overdue",
        "Left the vessel",
        "Compliance %",
      ],
      rows: (f.acknowledgementCompliance ?? []).map((v) => [
        v.vessel,
        v.recipients,
        v.acknowledged,
        v.onTime,
        v.overdue,
        v.left,
        v.compliance,
      ]),
    },
    effectiveness: {
      id: "effectiveness",
      title: `Effectiveness reviews due in the period, as they stand on ${f.period.asOf}`,
      columns: ["Reviews", "Due", "Answered", "Effective", "Partly effective", "Not effective", "Overdue"],
      rows: f.effectiveness
        ? [
            [
              "Closed MOCs",
              f.effectiveness.due,
              f.effectiveness.answered,
              f.effectiveness.effective,
              f.effectiveness.partly,
              f.effectiveness.notEffective,
              f.effectiveness.overdue,
            ],
          ]
        : [],
    },
    reminders: {
      id: "reminders",
      title: "Reminders sent per day",
      columns: ["Day", "MOCs reminded", "Emails sent"],
      rows: f.reminders.days.map((d) => [d.day, d.mocs, d.emails]),
    },
    "overdue-actions": {
      id: "overdue-actions",
      title: `Open action and manuals items past their due date on ${f.period.asOf}, per department`,
      columns: ["Department", "Overdue items", "Owners"],
      rows: (f.overdueActions ?? []).map((d) => [departmentLabel(d.department), d.overdue, d.owners]),
    },
    risk: {
      id: "risk",
      title: "MOCs raised in the period by risk (the highest residual level of their impact assessment)",
      columns: ["Risk", "Raised", "Open now", "Completed", "Declined"],
      rows: (f.risk ?? []).map((r) => [
        riskLabel(r.level === "none" ? null : r.level),
        r.raised,
        r.open,
        r.completed,
        r.declined,
      ]),
    },
  };
}

const csvCell = (cell: Cell) => {
  const text = cell === null ? "" : String(cell);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** RFC 4180 CSV with a UTF-8 byte-order mark (so spreadsheets read it as UTF-8) and CRLF lines. */
export function tableCsv(table: InsightTable): string {
  return `\uFEFF${[table.columns, ...table.rows].map((row) => row.map(csvCell).join(",")).join("\r\n")}\r\n`;
}
