import { sql } from "drizzle-orm";
import { bigint, check, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/**
 * Backups taken (by the schedule or `npm run backup`) and their outcome, so /admin shows the last
 * one, its size and any failure, whichever instance took it (docs/decisions/030-backups.md). A
 * backup's own row is written after it finished: a backup never holds its own record.
 */
export const backupRuns = pgTable(
  "backup_runs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    trigger: text("trigger").$type<"schedule" | "command">().notNull(),
    status: text("status").$type<"ok" | "failed">().notNull(),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull(),
    finishedAt: timestamp("finished_at", { withTimezone: true }).notNull().defaultNow(),
    file: text("file"),
    bytes: bigint("bytes", { mode: "number" }),
    sha256: text("sha256"),
    error: text("error"),
  },
  (t) => [
    index("backup_runs_finished_idx").on(t.finishedAt),
    check("backup_runs_status_check", sql`${t.status} in ('ok', 'failed')`),
    check("backup_runs_trigger_check", sql`${t.trigger} in ('schedule', 'command')`),
  ],
);
