import { sql } from "drizzle-orm";
import { boolean, check, date, index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";

/**
 * The fleet's vessels, kept by admins (docs/decisions/036-vessels-and-crew-access.md). A MOC's
 * Part A names one of them, or the office or the whole fleet, as `originator_form.vessel`.
 */
export const vessels = pgTable(
  "vessels",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    /** Seven digits, the last the check digit of the first six (app/models/fleet/vessel.schema.ts). */
    imo: text("imo").notNull(),
    shipType: text("ship_type").notNull().default(""),
    flag: text("flag").notNull().default(""),
    active: boolean("active").notNull().default(true),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("vessels_imo_key").on(t.imo), check("vessels_imo_check", sql`${t.imo} ~ '^[0-9]{7}$'`)],
);

/**
 * A person assigned to a vessel for a period (crew rotation): from `fromDate` to `toDate`
 * inclusive, UTC days; an open end (`toDate` null) lasts until someone sets it. While assigned, a
 * person may read the vessel's MOCs (`isCrewOf`, app/models/authz/authz.server.ts).
 */
export const vesselAssignments = pgTable(
  "vessel_assignments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    vesselId: uuid("vessel_id")
      .notNull()
      .references(() => vessels.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    fromDate: date("from_date", { mode: "string" }).notNull(),
    toDate: date("to_date", { mode: "string" }),
    createdBy: uuid("created_by").references(() => users.id),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("vessel_assignments_vessel_idx").on(t.vesselId, t.fromDate),
    index("vessel_assignments_user_idx").on(t.userId, t.fromDate),
    check("vessel_assignments_period_check", sql`${t.toDate} is null or ${t.toDate} >= ${t.fromDate}`),
  ],
);
