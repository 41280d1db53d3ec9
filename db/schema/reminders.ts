import { sql } from "drizzle-orm";
import { check, date, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import type { ReminderUrgency } from "./enums";
import { mocs } from "./mocs";
import { users } from "./users";

/**
 * A MOC reminded on a UTC day. The primary key is what makes "at most once per MOC per day" hold
 * whatever the number of instances or calls: a run inserts with `on conflict do nothing` and
 * emails only the rows it actually inserted.
 */
export const mocReminders = pgTable(
  "moc_reminders",
  {
    mocId: uuid("moc_id")
      .notNull()
      .references(() => mocs.id, { onDelete: "cascade" }),
    day: date("day", { mode: "string" }).notNull(),
    urgency: text("urgency").$type<ReminderUrgency>().notNull(),
    daysLeft: integer("days_left").notNull(),
    emailsSent: integer("emails_sent").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.mocId, t.day] }),
    // Reminders per day over a period (the insight figures): every column they read is in the
    // key, so the count never visits the heap.
    index("moc_reminders_day_idx").on(t.day, t.mocId, t.emailsSent),
    check("moc_reminders_urgency_check", sql`${t.urgency} in ('CRITICAL', 'URGENT', 'HIGH', 'MEDIUM', 'LOW')`),
  ],
);

/**
 * A temporary change reminded on a UTC day (`kind`: 7 or 1 days before its end, or expired): the
 * same once-a-day guarantee as `moc_reminders`, by the primary key.
 */
export const temporaryReminders = pgTable(
  "temporary_reminders",
  {
    mocId: uuid("moc_id")
      .notNull()
      .references(() => mocs.id, { onDelete: "cascade" }),
    day: date("day", { mode: "string" }).notNull(),
    kind: text("kind").$type<"ending" | "expired">().notNull(),
    daysLeft: integer("days_left").notNull(),
    emailsSent: integer("emails_sent").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.mocId, t.day] }),
    check("temporary_reminders_kind_check", sql`${t.kind} in ('ending', 'expired')`),
  ],
);

/**
 * An action-plan or manuals-plan item whose owner was reminded on a UTC day (due within 3 days,
 * or overdue: docs/decisions/038-actions-as-tasks.md); the primary key keeps it to once a day.
 */
export const actionReminders = pgTable(
  "action_reminders",
  {
    mocId: uuid("moc_id")
      .notNull()
      .references(() => mocs.id, { onDelete: "cascade" }),
    itemId: text("item_id").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    ownerId: uuid("owner_id").notNull(),
    daysLeft: integer("days_left").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.mocId, t.itemId, t.day] })],
);

/**
 * A person reminded on a UTC day of the acknowledgements past their due date (issue 41,
 * docs/decisions/055-circulations.md): one email (or digest lines) listing `circulations` of them;
 * the primary key keeps it to once per person per day, whatever the number of runs.
 */
export const acknowledgementReminders = pgTable(
  "acknowledgement_reminders",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    day: date("day", { mode: "string" }).notNull(),
    circulations: integer("circulations").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day] })],
);
