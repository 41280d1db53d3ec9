/**
 * The insight filters (period and department) and the figures' shape, shared by the /insights page,
 * GET /api/insights and the year-end review that stores a copy. No server imports: the page's
 * components read these types and labels too.
 */
import { z } from "zod";
import { DEPARTMENTS } from "#db/schema/enums";
import type { InsightStep, OverdueBand } from "./insights.constants";

export * from "./insights.constants";

/** At most this many days in one period: 5 years, so a request cannot ask for unbounded months and days. */
export const MAX_PERIOD_DAYS = 5 * 366;

const day = (what: string) =>
  z.iso
    .date({ error: `${what} must be a date (YYYY-MM-DD)` })
    .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)), {
      error: `${what} must be a real date`,
    });

/** The query parameters, before the defaults and checks of `toFilter`. */
export const insightsParamsSchema = z.object({
  from: day("from").optional(),
  to: day("to").optional(),
  department: z
    .union([z.literal(""), z.literal("all"), z.enum(DEPARTMENTS)], {
      error: `department must be one of: ${DEPARTMENTS.join(", ")} (or left out for all)`,
    })
    .optional(),
  /** A vessel's id, "office", "fleet" or "none" (not recorded); empty or `all` for every MOC (docs/decisions/036-vessels-and-crew-access.md). */
  vessel: z
    .union([z.literal(""), z.literal("all"), z.enum(["office", "fleet", "none"]), z.uuid()], {
      error: 'vessel must be a vessel id, "office", "fleet" or "none" (or left out for all)',
    })
    .optional(),
});

/**
 * `from` and `to` (UTC dates, both included; left out, the current UTC year up to today), and
 * `department` (empty or `all` for every one).
 */
export function toFilter<T extends z.output<typeof insightsParamsSchema>>(q: T, ctx: z.RefinementCtx) {
  const today = new Date().toISOString().slice(0, 10);
  const to = q.to ?? (q.from && q.from > today ? q.from : today);
  const from = q.from ?? `${to.slice(0, 4)}-01-01`;
  if (from > to) {
    ctx.addIssue({ code: "custom", path: ["from"], message: "from must be on or before to" });
    return z.NEVER;
  }
  if ((Date.parse(to) - Date.parse(from)) / 86_400_000 + 1 > MAX_PERIOD_DAYS) {
    ctx.addIssue({ code: "custom", path: ["to"], message: "The period can be at most 5 years long" });
    return z.NEVER;
  }
  const department = q.department && q.department !== "all" ? q.department : null;
  const vessel = q.vessel && q.vessel !== "all" ? q.vessel : null;
  return { ...q, from, to, department, vessel };
}

export const insightsQuerySchema = insightsParamsSchema.transform(toFilter);

export const INSIGHT_TABLES = [
  "monthly",
  "steps",
  "on-time",
  "deviations",
  "pcrs",
  "reminders",
  "overdue-actions",
  "risk",
  "vessels",
] as const;
export type InsightTableId = (typeof INSIGHT_TABLES)[number];

/** GET /api/insights's query: the figures' filter, and `format=csv&table=<id>` for one table. */
export const insightsApiQuery = insightsParamsSchema
  .extend({
    format: z.enum(["json", "csv"], { error: "format must be json or csv" }).optional(),
    table: z.enum(INSIGHT_TABLES, { error: `table must be one of: ${INSIGHT_TABLES.join(", ")}` }).optional(),
  })
  .transform(toFilter)
  .refine((q) => q.format !== "csv" || q.table, { error: "Name the table to download (table=...)", path: ["table"] });

export type InsightsFilter = {
  from: string;
  to: string;
  department: string | null;
  /** A vessel's id, "office", "fleet" or "none"; null or absent for every MOC. */
  vessel?: string | null;
};

export type Spread = { count: number; median: number | null; p90: number | null };

export type InsightsFigures = {
  period: { from: string; to: string; department: string | null; asOf: string };
  totals: {
    opened: number;
    completed: number;
    declined: number;
    openAtEnd: number;
    /** Share of the period's completed MOCs closed on or before their target date, in percent. */
    onTimeRate: number | null;
  };
  monthly: { month: string; opened: number; completed: number; declined: number; openAtEnd: number }[];
  steps: ({ step: InsightStep; label: string } & Spread)[];
  departments: {
    department: string;
    completed: number;
    onTime: number;
    /** In percent of the completed MOCs that have a target date; null when none. */
    onTimeRate: number | null;
    overdue: Record<OverdueBand, number>;
  }[];
  deviations: {
    type: "deviation" | "extension";
    requested: number;
    approved: number;
    rejected: number;
    waiting: number;
    /** Approved in percent of those decided; null when none was decided. */
    approvalRate: number | null;
    /** Days the approved extensions moved target dates (extensions only; null for deviations). */
    daysAdded: number | null;
    /** Approved extensions recorded without the date they replaced, so not in daysAdded. */
    daysAddedUnknown: number;
  }[];
  pcrs: {
    created: number;
    finished: number;
    daysToFinish: Spread;
    roles: ({ role: string } & Spread)[];
  };
  reminders: { total: { mocs: number; emails: number }; days: { day: string; mocs: number; emails: number }[] };
  /**
   * Action-plan and manuals-plan items still open and past their due date on `asOf`, per MOC
   * department (docs/decisions/038-actions-as-tasks.md); absent from copies stored before them.
   */
  overdueActions?: { department: string; overdue: number; owners: number }[];
  /**
   * MOCs raised in the period by their risk (docs/decisions/037-risk-ranking-and-approvals.md),
   * Low to Extreme, then not ranked: raised, open now, completed, declined.
   */
  risk: {
    level: "low" | "medium" | "high" | "extreme" | "none";
    raised: number;
    open: number;
    completed: number;
    declined: number;
  }[];
  /**
   * Whether MOCs record where a change applies: "recorded" since Part A asks it
   * (docs/decisions/036-vessels-and-crew-access.md); a copy stored by a year-end review before then says "not recorded".
   */
  vesselOrOffice: "recorded" | "not recorded";
  /** The vessel filter, as it reads ("MV Borealis", "Office / shore", "Not recorded"), or null for every MOC. */
  vessel?: string | null;
  /**
   * By vessel (or office, fleet, not recorded): MOCs opened and completed in the period, open on the
   * as-of day and, of those, past their target date. Absent from copies stored before it was counted.
   */
  vessels?: {
    vessel: string;
    opened: number;
    completed: number;
    open: number;
    overdue: number;
    /** Plan items of the vessel's open MOCs overdue on `asOf` (docs/decisions/038); absent from earlier copies. */
    overdueActions?: number;
  }[];
};
