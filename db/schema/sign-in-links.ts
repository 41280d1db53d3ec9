import { index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";

/**
 * One-time sign-in links (app/models/sign-in/sign-in-link.server.ts): the owner's way in that no failure
 * budget can block. Only the SHA-256 of the token is kept; the token itself exists only in the
 * email. A link works once (`used_at`) and until `expires_at`.
 */
export const signInLinks = pgTable(
  "sign_in_links",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("sign_in_links_token_hash_key").on(t.tokenHash), index("sign_in_links_user_idx").on(t.userId)],
);
