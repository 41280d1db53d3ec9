import { boolean, date, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { mocs } from "./mocs";
import { users } from "./users";

/**
 * Training plan items (issue 41, docs/decisions/056-training.md). An action-plan item may be a
 * training: its description says what, its due date by when, and `training.attendees` who must
 * attend (people of the user directory, by id and name as named). Attendance is recorded, never
 * edited: each record is a row of `training_attendance` (append-only, a trigger refuses UPDATE,
 * DELETE and TRUNCATE) and an entry in the MOC's audit chain; the item carries a copy of the
 * records (`training.attendance`, appended in the same transaction) so the MOC's document, its
 * print and the closure gate read the training without another query. A correction is a new
 * record (`attended: false` for someone recorded by mistake, or another date): a person's latest
 * record decides.
 */
export type TrainingAttendanceRecord = {
  /** The `training_attendance` row. */
  _id: string;
  user: string;
  name: string;
  attended: boolean;
  /** The day of the training (YYYY-MM-DD). */
  on: string;
  note: string | null;
  by: string;
  byName: string;
  /** When it was recorded (UTC ISO). */
  at: string;
};

export type PlanItemTraining = {
  attendees: { _id: string; name: string }[];
  attendance: TrainingAttendanceRecord[];
};

export const trainingAttendance = pgTable(
  "training_attendance",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    mocId: uuid("moc_id")
      .notNull()
      .references(() => mocs.id),
    /** The action-plan item's `_id`. */
    itemId: text("item_id").notNull(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    /** The attendee's name when recorded. */
    userName: text("user_name").notNull(),
    /** False: a correction, the person did not attend after all. */
    attended: boolean("attended").notNull().default(true),
    attendedOn: date("attended_on", { mode: "string" }).notNull(),
    note: text("note"),
    recordedBy: uuid("recorded_by")
      .notNull()
      .references(() => users.id),
    recordedByName: text("recorded_by_name").notNull(),
    recordedAt: timestamp("recorded_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("training_attendance_item_idx").on(t.mocId, t.itemId, t.recordedAt)],
);
