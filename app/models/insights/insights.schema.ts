/**
 * The insight filters (period and department) and the figures' shape, shared by the /insights page,
 * GET /api/insights and the year-end review that stores a copy. No server imports: the page's
 * components read these types and labels too.
 */
import { z } from "zod";
import { DEPARTMENTS } from "#db/schema/enums";

export * from "./insights.constants";
export type { InsightsFigures, Spread } from "#db/insights-figures";

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
  "acknowledgements",
  "effectiveness",
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
