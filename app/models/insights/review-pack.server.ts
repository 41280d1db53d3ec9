/**
 * The management review pack (issue 42, ISM Code 12, ISO 9001 9.3; docs/decisions/059-management-review-pack.md):
 * Insight's figures for a period, vessel and department (`computeInsightsWithMocs`: the same
 * statements, nothing counted a second time), with the MOCs behind each figure, described once as
 * a `PrintRecord` (record-print.server.ts) that the page (/insights/review), the PDF
 * (/insights/review/pdf, laid out by record-pdf.server.ts on the PDF worker) and GET /api/reviewPack
 * all read. Each figure's MOCs are capped at `REVIEW_PACK_CAP` (newest first) with an "and N more"
 * line, N being the figure's own count less those shown, so a year of 10,000 MOCs stays a few pages.
 */
import { sql } from "drizzle-orm";
import { getDb, type Executor } from "~/utils/db.server";
import type { Actor } from "../authz/authz.server";
import { computeInsightsWithMocs, requireInsightsReader, type InsightMocFigure } from "./insights.server";
import { EFFECTIVENESS_LISTED, type EffectivenessListed } from "../moc/effectiveness.server";
import { type InsightsFigures, type InsightsFilter, type InsightStep } from "./insights.schema";
import { departmentLabel } from "../shared/labels";
import { MOC_STAGE_SQL, MOC_STAGES } from "../moc/moc-steps.server";
import { TITLE_SQL, VESSEL_LABEL_OR_NOT_RECORDED_SQL } from "../moc/moc-scope.server";
import type { PrintBlock, PrintRecord, PrintSection } from "../records-out/record-print.server";
import { RISK_LEVELS, riskLabel, type RiskLevel } from "../risk/risk";

/** At most this many MOCs listed behind one figure (newest first), on the page, in the PDF and in the JSON. */
export const REVIEW_PACK_CAP = 10;

/** One MOC as the pack lists it. */
export type ReviewPackMoc = {
  id: string;
  number: string;
  title: string | null;
  vessel: string;
  state: string;
  risk: RiskLevel | null;
};

/** The MOCs behind one figure: `count` is the figure's own number, `mocs` at most the cap of them. */
export type ReviewPackList = {
  figure: InsightMocFigure | "step";
  key: string;
  count: number;
  mocs: ReviewPackMoc[];
  more: number;
};

export type ReviewPack = {
  figures: InsightsFigures;
  /** The step whose stays took longest (by median, then 90th percentile), null when none ended in the period. */
  bottleneck: { step: InsightStep; label: string; median: number; p90: number | null; count: number } | null;
  lists: ReviewPackList[];
  filter: InsightsFilter;
  generatedAt: string;
};

/** The pack for a reader of Insight (403 for anyone else), in one read-only snapshot. */
export async function getReviewPack(actor: Actor, filter: InsightsFilter, now = new Date()): Promise<ReviewPack> {
  requireInsightsReader(actor);
  return getDb().transaction((tx) => computeReviewPack(filter, { db: tx, now }), {
    isolationLevel: "repeatable read",
    accessMode: "read only",
  });
}

export async function computeReviewPack(
  filter: InsightsFilter,
  options: { db: Executor; now?: Date; cap?: number },
): Promise<ReviewPack> {
  const now = options.now ?? new Date();
  const { figures, mocs } = await computeInsightsWithMocs(filter, {
    db: options.db,
    now,
    cap: options.cap ?? REVIEW_PACK_CAP,
  });
  const ids = [...new Set([...mocs!.figures, ...mocs!.steps].flatMap((l) => l.ids))];
  const byId = new Map((await mocRows(options.db, ids)).map((m) => [m.id, m]));
  const rows = (list: string[]) => list.flatMap((id) => byId.get(id) ?? []);
  const lists: ReviewPackList[] = [
    ...mocs!.figures.map((l) => {
      const count = figureCount(figures, l.figure, l.key);
      return { figure: l.figure, key: l.key, count, mocs: rows(l.ids), more: Math.max(0, count - l.ids.length) };
    }),
    ...mocs!.steps
      .filter((s) => s.ids.length > 0)
      .map((s) => {
        const count = figures.steps.find((f) => f.step === s.step)?.count ?? 0;
        return {
          figure: "step" as const,
          key: s.step,
          count,
          mocs: rows(s.ids),
          more: Math.max(0, count - s.ids.length),
        };
      }),
  ];
  const ranked = figures.steps
    .filter((s) => s.median !== null)
    .sort((a, b) => b.median! - a.median! || (b.p90 ?? 0) - (a.p90 ?? 0));
  const top = ranked[0];
  return {
    figures,
    bottleneck: top ? { step: top.step, label: top.label, median: top.median!, p90: top.p90, count: top.count } : null,
    lists,
    filter,
    generatedAt: now.toISOString(),
  };
}

/** The figure's own count for a key: what "N more" is measured against. */
function figureCount(f: InsightsFigures, figure: InsightMocFigure, key: string): number {
  switch (figure) {
    case "state":
      return f.states?.find((s) => s.state === key)?.mocs ?? 0;
    case "type":
      return f.types?.find((t) => t.type === key)?.mocs ?? 0;
    case "risk":
      return f.risk.find((r) => r.level === key)?.raised ?? 0;
    case "vessel":
      return f.vessels?.find((v) => v.vessel === key)?.opened ?? 0;
    case "overdue":
      return f.standing?.overdue ?? 0;
    case "overdueActions":
      return f.standing?.withOverdueActions ?? 0;
    case "temporaryInEffect":
      return f.standing?.temporaryInEffect ?? 0;
    case "temporaryExpired":
      return f.standing?.temporaryExpired ?? 0;
    case "effectiveness":
      return f.effectiveness?.[key as EffectivenessListed] ?? 0;
  }
}

/** The listed MOCs' number, title, vessel, stage and risk: one statement for all of them. */
async function mocRows(db: Executor, ids: string[]): Promise<ReviewPackMoc[]> {
  if (ids.length === 0) return [];
  return [
    ...(await db.execute<ReviewPackMoc>(sql`
      select m.id::text as id, m.serial_num as number, ${TITLE_SQL} as title,
        ${VESSEL_LABEL_OR_NOT_RECORDED_SQL} as vessel, ${MOC_STAGE_SQL} as state, m.risk_level as risk
      from mocs m left join moc_forms f on f.moc_id = m.id and f.kind = 'originator'
      where m.id = any(${`{${ids.join(",")}}`}::uuid[])`)),
  ];
}

// ---------------------------------------------------------------------------------------------
// The description: sections of the page, the PDF and (their titles) the JSON

/** The section titles, in order (the PDF test reads every one back). */
export const REVIEW_PACK_SECTIONS = {
  period: "Period and totals",
  state: "MOCs by state",
  type: "MOCs by type",
  risk: "MOCs by risk level",
  vessel: "MOCs by vessel",
  cycle: "Cycle times and bottlenecks",
  overdue: "Overdue MOCs and overdue actions",
  temporary: "Temporary changes in effect and expired",
  acknowledgements: "Acknowledgement compliance",
  effectiveness: "Effectiveness results",
} as const;

const MOC_COLUMNS = ["MOC", "Title", "Vessel", "State", "Risk"];
const num = (n: number | null | undefined) => (n === null || n === undefined ? "—" : String(n));
const pct = (n: number | null | undefined) => (n === null || n === undefined ? "—" : `${n}%`);
const daysText = (n: number | null | undefined) => (n === null || n === undefined ? "—" : `${n} days`);
const CHANGE_TYPE_WORDS: Record<string, string> = { permanent: "Permanent", temporary: "Temporary" };

/** The MOC list's query for the pack's filter plus `extra` (the list is not limited to the period). */
function listHref(filter: InsightsFilter, extra: Record<string, string>): string {
  const q = new URLSearchParams({
    ...(filter.department ? { department: filter.department } : {}),
    ...(filter.vessel ? { vessel: filter.vessel } : {}),
    ...extra,
  });
  return `/mocs?${q.toString()}`;
}

/** Where "and N more" of a figure leads: the MOC list filtered as near as it can be, or nowhere. */
function moreHref(pack: ReviewPack, list: ReviewPackList): string | null {
  const f = pack.filter;
  switch (list.figure) {
    case "state":
      return MOC_STAGES.includes(list.key) ? listHref(f, { stage: list.key }) : null;
    case "risk":
      return listHref(f, { risk: list.key });
    case "overdue":
      return listHref(f, { state: "open", overdue: "1" });
    case "temporaryInEffect":
      return listHref(f, { temporary: "in-effect" });
    case "temporaryExpired":
      return listHref(f, { temporary: "expired" });
    case "step":
      return null; // stays, which the MOC list cannot filter by
    default:
      return listHref(f, {});
  }
}

/** The MOCs behind one figure as a table, titled by the figure. */
function mocTable(pack: ReviewPack, title: string, list: ReviewPackList | undefined): PrintBlock[] {
  if (!list || list.count === 0) return [];
  // A step's list counts stays (a MOC returned to a step stays there again), the others MOCs.
  const noun = list.figure === "step" ? "stay" : "MOC";
  const newest = list.figure === "step" ? "longest" : "newest";
  return [
    {
      kind: "table",
      title: `${title}: ${list.count} ${noun}${list.count === 1 ? "" : "s"}${list.more ? `, the ${newest} ${list.mocs.length} listed` : ""}`,
      columns: MOC_COLUMNS,
      rows: list.mocs.map((m) => [m.number, m.title ?? "—", m.vessel, m.state, riskLabel(m.risk)]),
      links: list.mocs.map((m) => `/mocs/${m.id}`),
      empty: "No MOCs.",
      ...(list.more
        ? {
            more: {
              text: `… and ${list.more} more${list.figure === "step" ? "" : " (the MOC list, filtered: not limited to the period)"}.`,
              href: moreHref(pack, list),
            },
          }
        : {}),
    },
  ];
}

/** A figure's count per key as a table, then the MOCs behind each key. */
function figureSection(
  pack: ReviewPack,
  id: string,
  title: string,
  figure: InsightMocFigure,
  columns: string[],
  rows: { key: string; label: string; cells: string[] }[],
  note: string,
): PrintSection {
  const listOf = (key: string) => pack.lists.find((l) => l.figure === figure && l.key === key);
  return {
    id,
    title,
    note,
    blocks: [
      { kind: "table", columns, rows: rows.map((r) => [r.label, ...r.cells]), empty: "No MOCs in the period." },
      ...rows.flatMap((r) => mocTable(pack, r.label, listOf(r.key))),
    ],
  };
}

/** The whole pack as the page, the print and the PDF lay it out. */
export function reviewPackRecord(pack: ReviewPack): PrintRecord {
  const { figures: f, filter } = pack;
  const standing = f.standing ?? { overdue: 0, withOverdueActions: 0, temporaryInEffect: 0, temporaryExpired: 0 };
  const listOf = (figure: ReviewPackList["figure"], key = "") =>
    pack.lists.find((l) => l.figure === figure && l.key === key);
  const S = REVIEW_PACK_SECTIONS;
  const who = `${filter.department ? departmentLabel(filter.department) : "All departments"}, ${f.vessel ?? "all vessels"}`;
  const sections: PrintSection[] = [
    {
      id: "period",
      title: S.period,
      note: "Counted from the records when this pack was made, by the same statements as Insight.",
      blocks: [
        {
          kind: "fields",
          fields: [
            { label: "Period", value: `${f.period.from} to ${f.period.to} (UTC)` },
            { label: "As of", value: f.period.asOf },
            { label: "Department", value: filter.department ? departmentLabel(filter.department) : "All departments" },
            { label: "Vessel", value: f.vessel ?? "All vessels and scopes" },
            { label: "MOCs opened", value: num(f.totals.opened) },
            { label: "MOCs completed", value: num(f.totals.completed) },
            { label: "MOCs declined", value: num(f.totals.declined) },
            { label: "Open at the period's end", value: num(f.totals.openAtEnd) },
            { label: "Completed on time", value: pct(f.totals.onTimeRate) },
          ],
        },
      ],
    },
    figureSection(
      pack,
      "state",
      S.state,
      "state",
      ["State now", "MOCs"],
      (f.states ?? [])
        .slice()
        .sort((a, b) => order(a.state) - order(b.state))
        .map((s) => ({ key: s.state, label: s.state, cells: [num(s.mocs)] })),
      "The MOCs raised in the period, by where they stand now.",
    ),
    figureSection(
      pack,
      "type",
      S.type,
      "type",
      ["Type", "MOCs"],
      (f.types ?? []).map((t) => ({ key: t.type, label: CHANGE_TYPE_WORDS[t.type] ?? t.type, cells: [num(t.mocs)] })),
      "The MOCs raised in the period, permanent or temporary changes.",
    ),
    figureSection(
      pack,
      "risk",
      S.risk,
      "risk",
      ["Risk", "Raised", "Open now", "Completed", "Declined"],
      f.risk
        .filter((r) => r.raised > 0)
        .map((r) => ({
          key: r.level,
          label: riskLabel(r.level === "none" ? null : (r.level as RiskLevel)),
          cells: [num(r.raised), num(r.open), num(r.completed), num(r.declined)],
        })),
      `The MOCs raised in the period by their risk (${RISK_LEVELS.map((l) => riskLabel(l)).join(", ")}, then not ranked).`,
    ),
    figureSection(
      pack,
      "vessel",
      S.vessel,
      "vessel",
      ["Vessel", "Opened", "Completed", "Open on the as-of day", "Overdue", "Overdue actions"],
      (f.vessels ?? []).map((v) => ({
        key: v.vessel,
        label: v.vessel,
        cells: [num(v.opened), num(v.completed), num(v.open), num(v.overdue), num(v.overdueActions)],
      })),
      "Opened and completed in the period; open and overdue on the as-of day. The MOCs listed are those opened in the period.",
    ),
    {
      id: "cycle",
      title: S.cycle,
      note: pack.bottleneck
        ? `Bottleneck: ${pack.bottleneck.label}, a median wait of ${daysText(pack.bottleneck.median)} (90th percentile ${daysText(pack.bottleneck.p90)}) over ${pack.bottleneck.count} stays.`
        : "No MOC moved on from a step in the period.",
      blocks: [
        {
          kind: "table",
          columns: ["Step", "Stays ended", "Median", "90th percentile"],
          rows: f.steps.map((s) => [s.label, num(s.count), daysText(s.median), daysText(s.p90)]),
          empty: "No stays ended in the period.",
        },
        ...(pack.bottleneck
          ? mocTable(pack, `Longest stays in ${pack.bottleneck.label}`, listOf("step", pack.bottleneck.step))
          : []),
        {
          kind: "table",
          title: "Completion",
          columns: ["Department", "Completed", "On time", "On time (%)"],
          rows: f.departments
            .filter((d) => d.completed > 0)
            .map((d) => [departmentLabel(d.department), num(d.completed), num(d.onTime), pct(d.onTimeRate)]),
          empty: "No MOC was completed in the period.",
        },
      ],
    },
    {
      id: "overdue",
      title: S.overdue,
      note: `On ${f.period.asOf}: ${standing.overdue} MOC${standing.overdue === 1 ? "" : "s"} open past the target date; ${standing.withOverdueActions} with action or manuals plan items past due.`,
      blocks: [
        {
          kind: "table",
          title: "Overdue plan items by department",
          columns: ["Department", "Items overdue", "Owners"],
          rows: (f.overdueActions ?? []).map((d) => [departmentLabel(d.department), num(d.overdue), num(d.owners)]),
          empty: "No plan item is overdue.",
        },
        ...mocTable(pack, "Overdue MOCs", listOf("overdue")),
        ...mocTable(pack, "MOCs with overdue actions", listOf("overdueActions")),
      ],
    },
    {
      id: "temporary",
      title: S.temporary,
      note: `On ${f.period.asOf}, by the state each temporary change has recorded now.`,
      blocks: [
        {
          kind: "fields",
          fields: [
            { label: "In effect", value: num(standing.temporaryInEffect) },
            { label: "Expired, not restored", value: num(standing.temporaryExpired) },
          ],
        },
        ...mocTable(pack, "In effect", listOf("temporaryInEffect")),
        ...mocTable(pack, "Expired, not restored", listOf("temporaryExpired")),
      ],
    },
    {
      id: "acknowledgements",
      title: S.acknowledgements,
      note: "Circulation recipients whose answer was due in the period; compliance is acknowledged on time in percent of those acknowledged or overdue.",
      blocks: [
        {
          kind: "table",
          columns: ["Vessel", "Recipients", "Acknowledged", "On time", "Overdue", "Left", "Compliance"],
          rows: (f.acknowledgementCompliance ?? []).map((a) => [
            a.vessel,
            num(a.recipients),
            num(a.acknowledged),
            num(a.onTime),
            num(a.overdue),
            num(a.left),
            pct(a.compliance),
          ]),
          empty: "No acknowledgement was due in the period.",
        },
      ],
    },
    effectivenessSection(pack),
  ];
  return {
    kind: "ReviewPack",
    id: `${f.period.from}-${f.period.to}`,
    serial: `${f.period.from} to ${f.period.to}`,
    title: `Management review: ${f.period.from} to ${f.period.to}`,
    status: who,
    fileName: `Management-review-${f.period.from}-to-${f.period.to}${filter.department ? `-${filter.department}` : ""}.pdf`,
    sections,
    signatures: [],
    history: [],
    attachments: [],
    generatedAt: pack.generatedAt,
  };
}

const order = (stage: string) => {
  const i = MOC_STAGES.indexOf(stage);
  return i < 0 ? MOC_STAGES.length : i;
};

/** How the pack names each result it lists the MOCs of. */
const EFFECTIVENESS_WORDS: Record<EffectivenessListed, string> = {
  notEffective: "Not effective",
  partly: "Partly effective",
  overdue: "Review overdue",
  effective: "Effective",
};

/** Effectiveness results: the reviews after closure due in the period, when Insight counts them, and their MOCs. */
function effectivenessSection(pack: ReviewPack): PrintSection {
  const e = pack.figures.effectiveness;
  const listOf = (key: EffectivenessListed) => pack.lists.find((l) => l.figure === "effectiveness" && l.key === key);
  return {
    id: "effectiveness",
    title: REVIEW_PACK_SECTIONS.effectiveness,
    note: "The effectiveness reviews due in the period (set at closure), by their answer; overdue: not answered by the as-of day.",
    blocks: e
      ? [
          {
            kind: "fields",
            fields: [
              { label: "Reviews due", value: num(e.due) },
              { label: "Answered", value: num(e.answered) },
              { label: "Effective", value: num(e.effective) },
              { label: "Partly effective", value: num(e.partly) },
              { label: "Not effective", value: num(e.notEffective) },
              { label: "Overdue", value: num(e.overdue) },
            ],
          },
          ...EFFECTIVENESS_LISTED.flatMap((key) => mocTable(pack, EFFECTIVENESS_WORDS[key], listOf(key))),
        ]
      : [{ kind: "fields", fields: [{ label: "Reviews due", value: "Not counted for this period." }] }],
  };
}
