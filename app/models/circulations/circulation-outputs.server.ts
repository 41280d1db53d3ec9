/**
 * One circulation's tracking as it is taken out of the system (issue 41, docs/decisions/055-circulations.md):
 * the print view, the PDF and the CSV, all three made from one description built from
 * `circulationTracking` (the figures of the tracking page and of GET /api/circulations?record=),
 * so paper, PDF, spreadsheet and page always say the same. The description is a `PrintRecord`
 * (record-print.server.ts) of kind "Circulation": its sections are the circulation, the totals,
 * the figures by vessel and rank, every recipient (all pages of them) and the questions asked.
 */
import type { Actor } from "../authz/authz.server";
import { circulationTracking, type CirculationTracking } from "./circulations.server";
import { MAX_CIRCULATION_PAGE, RECIPIENT_STATE_WORDS } from "./circulations.schema";
import { csvCell } from "../records-out/csv-export.server";
import { departmentLabel } from "../shared/labels";
import type { PrintBlock, PrintRecord, PrintSection } from "../records-out/record-print.server";
import { utcText } from "../shared/utc-text";

/** Recipients read per call while gathering every page of them: the largest page there is. */
const RECIPIENTS_PER_READ = MAX_CIRCULATION_PAGE;

/**
 * The tracking with every recipient, not one page of them: `circulationTracking` read page by page
 * (its authorization and 404 on the first read) until all of `totals.total` are in.
 */
export async function fullCirculationTracking(actor: Actor, circulationId: string): Promise<CirculationTracking> {
  const first = await circulationTracking(actor, circulationId, { page: 1, pageSize: RECIPIENTS_PER_READ });
  const recipients = [...first.recipients];
  for (let page = 2; recipients.length < first.totals.total; page++) {
    const next = await circulationTracking(actor, circulationId, { page, pageSize: RECIPIENTS_PER_READ });
    if (next.recipients.length === 0) break;
    recipients.push(...next.recipients);
  }
  return { ...first, recipients };
}

const fields = (rows: [string, string][]): PrintBlock => ({
  kind: "fields",
  fields: rows.map(([label, value]) => ({ label, value: value || "—" })),
});

const COUNT_COLUMNS = ["Recipients", "Acknowledged", "Waiting", "Overdue", "Left the vessel"];

/** "MOC 12-2026 — New mooring procedure" (the label alone when it already holds the title). */
export const recordName = (record: CirculationTracking["circulation"]["record"]) =>
  record.title && !record.label.includes(record.title) ? `${record.label} — ${record.title}` : record.label;

/** The tracking as the print view and the PDF lay it out (and the CSV lists it). */
export function circulationPrintRecord(tracking: CirculationTracking, now = new Date()): PrintRecord {
  const { circulation: c, totals } = tracking;
  const name = recordName(c.record);
  const status = `${totals.acknowledged} of ${totals.total} acknowledged${c.closedAt ? " · closed" : ""}`;
  const sections: PrintSection[] = [
    {
      id: "circulation",
      title: "The circulation",
      note: null,
      blocks: [
        fields([
          ["Record", name],
          ["What changed", c.note],
          ["Due", c.due],
          ["Vessels", c.vessels.map((v) => v.name).join(", ") || "None"],
          ["Ranks", c.ranks.length ? c.ranks.join(", ") : c.vessels.length ? "Every rank" : "—"],
          ["Departments", c.departments.map(departmentLabel).join(", ") || "None"],
          ["Circulated by", c.createdBy.name],
          ["Circulated", utcText(c.createdAt)],
          ["Closed", c.closedAt ? utcText(c.closedAt) : "No (open: crew joining its vessels receive it)"],
        ]),
      ],
    },
    {
      id: "totals",
      title: "Totals",
      note: null,
      blocks: [
        fields([
          ["Recipients", String(totals.total)],
          ["Acknowledged", String(totals.acknowledged)],
          ["Waiting", String(totals.waiting)],
          ["Overdue", String(totals.overdue)],
          ["Left the vessel", String(totals.left)],
        ]),
      ],
    },
    {
      id: "by-vessel-and-rank",
      title: "By vessel and rank",
      note: null,
      blocks: [
        {
          kind: "table",
          columns: ["Vessel", "Rank", ...COUNT_COLUMNS],
          rows: tracking.byVesselAndRank.map((g) => [
            g.vessel?.name ?? "Office (by department)",
            g.rank ?? "No rank",
            String(g.total),
            String(g.acknowledged),
            String(g.waiting),
            String(g.overdue),
            String(g.left),
          ]),
          empty: "Nobody has received it.",
        },
      ],
    },
    {
      id: "recipients",
      title: "Recipients",
      note: null,
      blocks: [
        {
          kind: "table",
          columns: ["Name", "Rank", "Vessel", "Due", "State", "Acknowledged (UTC)", "Comment"],
          rows: tracking.recipients.map((r) => [
            r.user.name,
            r.user.rank ?? "—",
            r.vessel?.name ?? "Office",
            r.due,
            RECIPIENT_STATE_WORDS[r.state],
            r.acknowledgedAt ? utcText(r.acknowledgedAt) : "—",
            r.comment ?? "",
          ]),
          empty: "Nobody has received it.",
        },
      ],
    },
    {
      id: "questions",
      title: "Questions and comments",
      note: null,
      blocks: [
        {
          kind: "table",
          columns: ["Time (UTC)", "Who", "Rank", "Vessel", "Question or comment"],
          rows: tracking.questions.map((q) => [
            utcText(q.at),
            q.user.name,
            q.user.rank ?? "—",
            q.vessel?.name ?? "Office",
            q.comment,
          ]),
          empty: "No questions or comments.",
        },
      ],
    },
  ];
  return {
    kind: "Circulation",
    id: c._id,
    serial: c.record.label,
    title: `Acknowledgements: ${name}`,
    status,
    fileName: `Acknowledgements-${c.record.label.replace(/[^A-Za-z0-9-]+/g, "-")}-${c.createdAt.slice(0, 10)}.pdf`,
    sections,
    signatures: [],
    history: [],
    attachments: [],
    generatedAt: now.toISOString(),
  };
}

/**
 * The same description as CSV (UTF-8 with a byte-order mark, CRLF, every cell through `csvCell`'s
 * formula-injection guard): each section a title line, then its fields as "label,value" lines or
 * its table's header and rows, sections apart by an empty line.
 */
export function circulationCsv(record: PrintRecord): string {
  const line = (cells: unknown[]) => `${cells.map(csvCell).join(",")}\r\n`;
  const parts = [
    line([record.title]),
    line(["Status", record.status]),
    line(["Generated", utcText(record.generatedAt)]),
  ];
  for (const section of record.sections) {
    parts.push("\r\n", line([section.title]));
    for (const block of section.blocks) {
      if (block.kind === "fields") for (const f of block.fields) parts.push(line([f.label, f.value]));
      else if (block.rows.length === 0) parts.push(line([block.empty]));
      else parts.push(line(block.columns), ...block.rows.map(line));
    }
  }
  return `\uFEFF${parts.join("")}`;
}
