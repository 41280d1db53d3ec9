import { sql } from "drizzle-orm";
import { boolean, check, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Ranks on board (issue 41, migration 0042): the list admins keep (/admin/ranks), in `sort` order.
 * `users.rank` names one (on update cascade, so a rename follows to its holders); a deactivated
 * rank stays valid for the people who hold it but is no longer offered.
 */
export const ranks = pgTable(
  "ranks",
  {
    name: text("name").primaryKey(),
    sort: integer("sort").notNull(),
    active: boolean("active").notNull().default(true),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check("ranks_name_check", sql`length(${t.name}) between 1 and 60 and ${t.name} = btrim(${t.name})`)],
);

/** The ranks the migration seeds, in order (the list is admins' to change afterwards). */
export const SEEDED_RANKS = [
  "Master",
  "Chief Officer",
  "Second Officer",
  "Third Officer",
  "Chief Engineer",
  "Second Engineer",
  "Third Engineer",
  "Electro-Technical Officer",
  "Bosun",
  "Cook",
] as const;
