/** Chat input schemas and limits, shared by /api/chat, the page actions and the chat panel (browser). */
import { z } from "zod";
import { CHAT_MESSAGE_MAX, CHAT_PAGE_SIZE, CHAT_POLL_BATCH } from "./chat.constants";
import { uuid } from "../shared/fields.schema";

export { CHAT_MESSAGE_MAX, CHAT_PAGE_SIZE, CHAT_POLL_BATCH, CHAT_POLL_MS } from "./chat.constants";

/** Characters as people (and PostgreSQL's char_length) count them: an emoji is one, not two. */
const characters = (text: string) => [...text].length;

/** A message: plain text, trimmed, 1 to 5,000 characters. It is stored and shown as text, never as HTML. */
export const chatText = z
  .string({ error: (issue) => (issue.input === undefined ? "Write a message" : "The message must be text") })
  // Browsers post a textarea's line breaks as CRLF: store them as typed, one character each.
  .overwrite((text) => text.replace(/\r\n?/g, "\n"))
  .trim()
  .min(1, { error: "Write a message" })
  .refine((text) => characters(text) <= CHAT_MESSAGE_MAX, {
    error: `A message can be at most ${CHAT_MESSAGE_MAX.toLocaleString("en-GB")} characters`,
  })
  // PostgreSQL text cannot hold NUL; refuse it here rather than fail in the database.
  .refine((text) => !text.includes("\u0000"), { error: "A message cannot contain NUL characters" });

/** The chat form on the MOC and PCR pages (one of several forms there, told apart by `intent`). */
export const chatFormSchema = z.object({
  intent: z.literal("chat"),
  message: chatText,
});

/** A message cursor: the `seq` of a message (a non-negative integer). */
export const chatCursor = z
  .string()
  .regex(/^\d{1,15}$/, { error: "Expected a message number (a whole number, 0 or more)" })
  .transform(Number);

/** The most messages one GET /api/chat answers (`limit`), and how many without one. */
export const CHAT_API_LIMIT_MAX = CHAT_POLL_BATCH;
export const CHAT_API_LIMIT_DEFAULT = CHAT_PAGE_SIZE;

/**
 * GET /api/chat (docs/decisions/028-untrusted-text-and-sign-in-links.md). Our optional additions:
 * `before=<seq>` pages back (the `limit` messages just before that one), `after=<seq>` reads on
 * (the first `limit` messages after it), `limit` 1-200 (default 100). Without a cursor: the latest
 * `limit` messages, as the chat panel shows them.
 */
export const chatQuerySchema = z
  .object({
    chat_id: uuid("chat id"),
    after: chatCursor.optional(),
    before: chatCursor.optional(),
    limit: z
      .string()
      .regex(/^\d{1,4}$/, { error: `Expected a whole number from 1 to ${CHAT_API_LIMIT_MAX}` })
      .transform(Number)
      .pipe(
        z
          .number()
          .min(1, { error: `Expected a whole number from 1 to ${CHAT_API_LIMIT_MAX}` })
          .max(CHAT_API_LIMIT_MAX, { error: `Expected a whole number from 1 to ${CHAT_API_LIMIT_MAX}` }),
      )
      .optional(),
  })
  .refine((q) => q.after === undefined || q.before === undefined, {
    path: ["before"],
    error: "Give after (newer messages) or before (older messages), not both",
  });

/** The sender as a client may name it: the user id, or a user object as responses populate it. */
const senderRef = z.union([z.string(), z.object({ _id: z.string() })], {
  error: "sender must be your user id",
});

/** POST /api/chat. The sender is always the caller; the client's timestamp is ignored. */
export const chatPostSchema = z.object({
  chat_id: uuid("chat id"),
  message: z.object(
    {
      sender: senderRef.optional(),
      message: chatText,
      timestamp: z.unknown().optional(),
    },
    { error: "message must be an object: { sender, message, timestamp }" },
  ),
});
export type ChatPostInput = z.infer<typeof chatPostSchema>;

/** The panel's reads: messages after a cursor (polling) or before one (older messages). */
export const chatPageQuerySchema = z.object({
  after: chatCursor.optional(),
  before: chatCursor.optional(),
});

/** A message as the pages show it. */
export type ChatMessageView = {
  _id: string;
  seq: number;
  sender: { _id: string; name: string };
  message: string;
  timestamp: string;
};
