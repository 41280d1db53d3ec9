import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";

import type { EmailStatus } from "./enums";

/**
 * Every email the service sends, whichever transport delivers it. Without RESEND_API_KEY this
 * table is the local outbox: the message is "sent" into it and read at /admin/outbox.
 */
export const emailMessages = pgTable(
  "email_messages",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    toEmail: text("to_email").notNull(),
    toUserId: uuid("to_user_id").references(() => users.id, { onDelete: "set null" }),
    subject: text("subject").notNull(),
    html: text("html").notNull(),
    text: text("text").notNull(),
    /** What the message is about, e.g. `moc` and its id, for filtering and links. */
    recordType: text("record_type"),
    recordId: uuid("record_id"),
    status: text("status").$type<EmailStatus>().notNull().default("queued"),
    /** `resend` or `outbox`, set when delivered. */
    transport: text("transport"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    providerId: text("provider_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp("sent_at", { withTimezone: true }),
  },
  (t) => [
    index("email_messages_created_idx").on(t.createdAt),
    index("email_messages_status_idx").on(t.status),
    index("email_messages_to_idx").on(t.toEmail),
    check("email_messages_status_check", sql`${t.status} in ('queued', 'sending', 'sent', 'failed')`),
  ],
);

/** Idempotency keys of scheduled work: a (queue, key) pair runs once, e.g. the reminder of a day. */
export const jobRuns = pgTable(
  "job_runs",
  {
    queue: text("queue").notNull(),
    key: text("key").notNull(),
    ranAt: timestamp("ran_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.queue, t.key] })],
);
