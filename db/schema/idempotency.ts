import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";

/**
 * The first answer to a write that carried an idempotency key (app/web/idempotency.server.ts,
 * docs/decisions/040-replays-apply-once.md): per person and key, written in the same transaction
 * as the change, kept 24 hours (the purge job). `fingerprint` is an HMAC-SHA256, under a key
 * derived from SESSION_SECRET, of the request (method, path, canonical body without the key and
 * without password fields); a replay with another fingerprint is refused with 422. Nothing that
 * proves who someone is is kept here (docs/decisions/048-replays-keep-no-credentials.md).
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    fingerprint: text("fingerprint").notNull(),
    method: text("method").notNull(),
    path: text("path").notNull(),
    status: integer("status").notNull(),
    headers: jsonb("headers").$type<Record<string, string>>().notNull(),
    body: text("body").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] }), index("idempotency_keys_created_idx").on(t.createdAt)],
);
