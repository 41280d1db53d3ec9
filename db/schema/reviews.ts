import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import type { ReviewActionStatus } from "./enums";
import { users } from "./users";
import type { InsightsFigures } from "../insights-figures";

export type ReviewSection = { heading: string; body: string };
export type ReviewAction = { description: string; owner: string; due: string; status: ReviewActionStatus };
export type MocSummary = {
  total: number;
  completed: number;
  declined: number;
  open: number;
  by_department: Record<string, number>;
  /** MOCs by the status the app shows: a-f for open ones, `decline`, and `completed` for closed ones. */
  by_status?: Record<string, number>;
  /** When the server counted it (ISO timestamp); absent for a summary a client entered itself. */
  computed_at?: string | null;
  /**
   * The insight figures for the review's year (app/models/insights/insights.server.ts), pulled in on purpose
   * from the review page and kept as they were then; absent until someone does.
   */
  insights?: InsightsFigures | null;
};

/** Year-end reviews (docs/decisions/011-year-end-reviews.md). Rich-text fields are stored sanitised. */
export const yearEndReviews = pgTable(
  "year_end_reviews",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    year: integer("year").notNull(),
    title: text("title").notNull(),
    sections: jsonb("sections").$type<ReviewSection[]>().notNull().default([]),
    participants: uuid("participants")
      .array()
      .notNull()
      .default(sql`'{}'::uuid[]`),
    mocSummary: jsonb("moc_summary").$type<MocSummary>().notNull(),
    effectiveness: text("effectiveness").notNull().default(""),
    improvements: text("improvements").notNull().default(""),
    issues: text("issues").notNull().default(""),
    actions: jsonb("actions").$type<ReviewAction[]>().notNull().default([]),
    createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
    updatedBy: uuid("updated_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("year_end_reviews_year_idx").on(t.year),
    check("year_end_reviews_year_check", sql`${t.year} between 1900 and 2200`),
  ],
);
