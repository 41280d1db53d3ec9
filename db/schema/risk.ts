import { sql } from "drizzle-orm";
import { boolean, check, integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import type { Position } from "./enums";
import { users } from "./users";

/**
 * The risk matrix's settings (docs/decisions/037-risk-ranking-and-approvals.md): one row. A score
 * (likelihood x severity, 1-25) up to `lowMax` is Low, up to `mediumMax` Medium, up to `highMax`
 * High, above it Extreme; a High MOC needs a second approval by the holder of `highPosition`, an
 * Extreme one that and the holder of `extremePosition` as well. Admins change it (audited).
 */
export const riskSettings = pgTable(
  "risk_settings",
  {
    id: integer("id").primaryKey().default(1),
    lowMax: integer("low_max").notNull().default(4),
    mediumMax: integer("medium_max").notNull().default(9),
    highMax: integer("high_max").notNull().default(14),
    highPosition: text("high_position").$type<Position>().notNull().default("Director HSEQ"),
    extremePosition: text("extreme_position").$type<Position>().notNull().default("President"),
    /** A MOC passes the HSEQ review only once ranked (issue 38 "the risk gate"); on for a new database. */
    rankingRequired: boolean("ranking_required").notNull().default(true),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    updatedBy: uuid("updated_by").references(() => users.id),
  },
  (t) => [
    check("risk_settings_one_row", sql`${t.id} = 1`),
    check(
      "risk_settings_thresholds_check",
      sql`1 <= ${t.lowMax} and ${t.lowMax} < ${t.mediumMax} and ${t.mediumMax} < ${t.highMax} and ${t.highMax} < 25`,
    ),
  ],
);
