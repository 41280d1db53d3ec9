import { sql } from "drizzle-orm";
import { check, date, index, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { mocs } from "./mocs";
import { pcrs } from "./pcrs";
import { users } from "./users";
import { vessels } from "./vessels";

/**
 * A finished change sent for "read and understood" (issue 41, docs/decisions/055-circulations.md):
 * a completed MOC or a finished PCR, circulated to the crews of vessels (optionally only given
 * ranks) and/or office departments, with a due date and a note of what changed. Exactly one of
 * `moc_id` and `pcr_id` is set. Written once; only `closed_at`/`closed_by` are set later (a closed
 * circulation takes no new recipients at a crew change).
 */
export const circulations = pgTable(
  "circulations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    mocId: uuid("moc_id").references(() => mocs.id),
    /** A PCR is deleted outright (pcrs.ts), and its circulations with it. */
    pcrId: uuid("pcr_id").references(() => pcrs.id, { onDelete: "cascade" }),
    vesselIds: uuid("vessel_ids")
      .array()
      .notNull()
      .default(sql`'{}'::uuid[]`),
    /** Empty: every rank (everyone assigned to the vessels). */
    ranks: text("ranks")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    departments: text("departments")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    due: date("due", { mode: "string" }).notNull(),
    note: text("note").notNull(),
    createdBy: uuid("created_by")
      .notNull()
      .references(() => users.id),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    closedAt: timestamp("closed_at", { withTimezone: true }),
    closedBy: uuid("closed_by").references(() => users.id),
  },
  (t) => [
    index("circulations_moc_idx").on(t.mocId),
    index("circulations_pcr_idx").on(t.pcrId),
    index("circulations_vessels_idx").using("gin", t.vesselIds),
    check("circulations_record_check", sql`(${t.mocId} is null) <> (${t.pcrId} is null)`),
    check("circulations_audience_check", sql`cardinality(${t.vesselIds}) > 0 or cardinality(${t.departments}) > 0`),
    check("circulations_closed_check", sql`(${t.closedAt} is null) = (${t.closedBy} is null)`),
  ],
);

/**
 * Who a circulation concerns, kept as they are added: everyone it reached when it was made, and each
 * crew member assigned to one of its vessels afterwards (a crew change, while it is open).
 * `vessel_id` is the vessel that brought them (null: their department did); `due` is theirs (a
 * joiner's is a week after joining when that is later than the circulation's).
 */
export const circulationRecipients = pgTable(
  "circulation_recipients",
  {
    circulationId: uuid("circulation_id")
      .notNull()
      .references(() => circulations.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    vesselId: uuid("vessel_id").references(() => vessels.id),
    due: date("due", { mode: "string" }).notNull(),
    addedAt: timestamp("added_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.circulationId, t.userId] }), index("circulation_recipients_user_idx").on(t.userId)],
);

/**
 * One "read and understood" per person per circulation, with who they were then (name, rank and
 * vessel at the time, as the audit entry says) and an optional question or comment for the author.
 * Append-only like the trail it is also written to.
 */
export const acknowledgements = pgTable(
  "acknowledgements",
  {
    circulationId: uuid("circulation_id")
      .notNull()
      .references(() => circulations.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    nameAt: text("name_at").notNull(),
    rankAt: text("rank_at"),
    vesselIdAt: uuid("vessel_id_at").references(() => vessels.id),
    vesselNameAt: text("vessel_name_at"),
    comment: text("comment"),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.circulationId, t.userId] }), index("acknowledgements_user_idx").on(t.userId)],
);
