import { sql } from "drizzle-orm";
import { bigint, check, index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { chatRooms } from "./mocs";
import { users } from "./users";

/**
 * One row per chat message. `seq` orders messages across instances; the sender is always the
 * signed-in caller, never a value from the request body.
 */
export const chatMessages = pgTable(
  "chat_messages",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity().notNull(),
    chatId: uuid("chat_id")
      .notNull()
      .references(() => chatRooms.id, { onDelete: "cascade" }),
    senderId: uuid("sender_id")
      .notNull()
      .references(() => users.id),
    message: text("message").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("chat_messages_room_seq_idx").on(t.chatId, t.seq),
    check("chat_messages_length_check", sql`char_length(${t.message}) between 1 and 5000`),
  ],
);
