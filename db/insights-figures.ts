/**
 * The insight figures' shape (app/models/insights/insights.server.ts computes them): here in db/ because a
 * year-end review stores a copy in its `moc_summary` column (db/schema/reviews.ts). Types and the
 * two lists they are built from only; the labels are in app/models/insights/insights.constants.ts.
 */
import { REMINDER_URGENCIES } from "./schema/enums";

/** The steps a MOC waits in, in pipeline order; `deviation` is status b while a deviation/extension waits. */
export const INSIGHT_STEPS = ["a", "b", "c", "d", "e", "deviation", "f"] as const;
export type InsightStep = (typeof INSIGHT_STEPS)[number];

/** Bands of open MOCs by their target date on the as-of day: past the reminders, then the reminder urgencies. */
export const OVERDUE_BANDS = ["OVERDUE_LONG", ...REMINDER_URGENCIES] as const;
export type OverdueBand = (typeof OVERDUE_BANDS)[number];

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
  /**
   * Acknowledgement compliance by vessel (issue 41): the circulation recipients due in the period,
   * per vessel that brought them ("Office (by department)" for the rest), acknowledged, of those on
   * or before their due date, overdue, left the vessel, and `compliance`: on time in percent of those
   * acknowledged or overdue (null when none). Absent from copies stored before it was counted.
   */
  acknowledgementCompliance?: {
    vessel: string;
    recipients: number;
    acknowledged: number;
    onTime: number;
    overdue: number;
    left: number;
    compliance: number | null;
  }[];
  /**
   * The MOCs raised in the period by where they stand now (the MOC list's stage names), most first,
   * and by change type (permanent, temporary); absent from copies stored before they were counted.
   */
  states?: { state: string; mocs: number }[];
  types?: { type: string; mocs: number }[];
  /**
   * On the as-of day: MOCs open and past their target date, MOCs with overdue plan items, temporary
   * changes in effect (or waiting on an extension) and expired, not restored
   * (docs/decisions/023-temporary-changes-and-delegation.md). Absent from earlier copies.
   */
  standing?: { overdue: number; withOverdueActions: number; temporaryInEffect: number; temporaryExpired: number };
  /**
   * Effectiveness reviews (issue 42, docs/decisions/058-effectiveness-review.md): those due in the
   * period, answered, by result, and overdue on `asOf` (due in the period, not answered, due before
   * it). Absent from copies stored before it was counted.
   */
  effectiveness?: {
    due: number;
    answered: number;
    effective: number;
    partly: number;
    notEffective: number;
    overdue: number;
  };
};
