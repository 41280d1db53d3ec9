import { sql } from "drizzle-orm";
import { check, date, index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import type { LegacyStatus } from "./enums";
import { users } from "./users";

const audit = {
  createdBy: uuid("created_by").references(() => users.id, { onDelete: "set null" }),
  updatedBy: uuid("updated_by").references(() => users.id, { onDelete: "set null" }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
};

const paperRecord = {
  id: uuid("id").primaryKey().defaultRandom(),
  serialNum: text("serial_num").notNull(),
  title: text("title").notNull(),
  originatorName: text("originator_name").notNull(),
  dateRaised: date("date_raised", { mode: "string" }).notNull(),
  dateClosed: date("date_closed", { mode: "string" }),
  status: text("status").$type<LegacyStatus>().notNull().default("open"),
  attachments: text("attachments")
    .array()
    .notNull()
    .default(sql`'{}'::text[]`),
  notes: text("notes").notNull().default(""),
};

/** Paper-era MOC records (docs/decisions/010-legacy-archive.md), kept apart from the MOC workflow. */
export const legacyMocs = pgTable(
  "legacy_mocs",
  {
    ...paperRecord,
    description: text("description").notNull().default(""),
    department: text("department").notNull().default(""),
    ...audit,
  },
  (t) => [
    uniqueIndex("legacy_mocs_serial_key").on(t.serialNum),
    index("legacy_mocs_raised_idx").on(t.dateRaised),
    check("legacy_mocs_status_check", sql`${t.status} in ('open', 'closed')`),
    check("legacy_mocs_dates_check", sql`${t.dateClosed} is null or ${t.dateClosed} >= ${t.dateRaised}`),
  ],
);

/** Paper-era PCR records (docs/decisions/010-legacy-archive.md). */
export const legacyPcrs = pgTable(
  "legacy_pcrs",
  {
    ...paperRecord,
    procedure: text("procedure").notNull().default(""),
    ...audit,
  },
  (t) => [
    uniqueIndex("legacy_pcrs_serial_key").on(t.serialNum),
    index("legacy_pcrs_raised_idx").on(t.dateRaised),
    check("legacy_pcrs_status_check", sql`${t.status} in ('open', 'closed')`),
    check("legacy_pcrs_dates_check", sql`${t.dateClosed} is null or ${t.dateClosed} >= ${t.dateRaised}`),
  ],
);
