import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
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
    /**
     * The batch the message last went out in: the Idempotency-Key sent to the provider (derived
     * from the batch's message ids and attempts), its size and when it was formed. While
     * `batchOpen`, the provider's answer is unknown (the process died, the API failed), so the
     * message is only ever sent again in that same batch under that same key.
     */
    batchKey: text("batch_key"),
    batchSize: integer("batch_size"),
    batchOpen: boolean("batch_open").notNull().default(false),
    batchedAt: timestamp("batched_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp("sent_at", { withTimezone: true }),
    /** Where the recipient acts (the step form, or the record): the in-app notification's link. */
    link: text("link"),
    /** When the recipient marked it read in the app (/notifications); null while unread. */
    readAt: timestamp("read_at", { withTimezone: true }),
    /** The kind of notice (NOTICE_KINDS): which preference chose its channel; null for older rows. */
    kind: text("kind"),
    /** False for an in-app-only notice: it is never emailed (its status says `sent` at once). */
    emailed: boolean("emailed").notNull().default(true),
    /**
     * An in-app notice whose reader chose the daily digest for its kind: the next daily run lists
     * it in one email to them and clears this (app/models/messages/notice-digest.server.ts).
     */
    digestPending: boolean("digest_pending").notNull().default(false),
  },
  (t) => [
    index("email_messages_created_idx").on(t.createdAt),
    index("email_messages_status_idx").on(t.status),
    // No index on to_email: the outbox's recipient filter is a substring match, which a btree
    // cannot serve; each index costs every insert and every status update (migration 0015).
    index("email_messages_user_idx").on(t.toUserId, t.createdAt),
    index("email_messages_digest_idx")
      .on(t.toUserId)
      .where(sql`${t.digestPending}`),
    index("email_messages_batch_idx")
      .on(t.batchKey)
      .where(sql`${t.batchKey} is not null`),
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

/**
 * The mail API's request budget, shared by every instance (they share one API key): `next_slot`
 * is the earliest time the next request may start. Each request moves it on by one interval.
 */
export const mailApiBudget = pgTable("mail_api_budget", {
  key: text("key").primaryKey(),
  nextSlot: timestamp("next_slot", { withTimezone: true }).notNull(),
});
