import { sql } from "drizzle-orm";
import { check, date, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { mocs } from "./mocs";
import type { EffectivenessResult } from "./enums";
import { users } from "./users";

/**
 * A closed MOC's effectiveness review (issue 42, docs/decisions/058-effectiveness-review.md): set by
 * the verification that closes the MOC (`due_on`, `set_by`), asked of the HSEQ department on that
 * day (`notified_on`, once) and reminded while overdue (`reminded_on`, at most once a day), answered
 * once (`result`, `comment`, `reviewed_by`, `reviewed_at` together). Migration 0048.
 */
export const effectivenessReviews = pgTable(
  "effectiveness_reviews",
  {
    mocId: uuid("moc_id")
      .primaryKey()
      .references(() => mocs.id, { onDelete: "cascade" }),
    dueOn: date("due_on", { mode: "string" }).notNull(),
    setBy: uuid("set_by")
      .notNull()
      .references(() => users.id),
    setAt: timestamp("set_at", { withTimezone: true }).notNull().defaultNow(),
    result: text("result").$type<EffectivenessResult>(),
    comment: text("comment"),
    reviewedBy: uuid("reviewed_by").references(() => users.id),
    reviewedAt: timestamp("reviewed_at", { withTimezone: true }),
    notifiedOn: date("notified_on", { mode: "string" }),
    remindedOn: date("reminded_on", { mode: "string" }),
  },
  (t) => [
    index("effectiveness_reviews_waiting_idx")
      .on(t.dueOn)
      .where(sql`${t.result} is null`),
    check("effectiveness_reviews_result_check", sql`${t.result} in ('effective', 'partly', 'not-effective')`),
    check(
      "effectiveness_reviews_answered_check",
      sql`(${t.result} is null) = (${t.reviewedAt} is null) and (${t.result} is null) = (${t.reviewedBy} is null)`,
    ),
    check(
      "effectiveness_reviews_comment_check",
      sql`${t.result} is null or ${t.result} = 'effective' or coalesce(btrim(${t.comment}), '') <> ''`,
    ),
  ],
);
