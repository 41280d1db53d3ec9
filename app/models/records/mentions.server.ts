/**
 * `@name` in a record's chat (docs/decisions/029-oidc-and-notifications.md): each active person
 * the message names (by full name, or by the part of their email before the @) and who may see
 * the record is notified once, in the message's transaction; the writer never is. Delegates are
 * not added: a mention is for the person named.
 */
import { and, eq, ne, sql } from "drizzle-orm";
import { users } from "#db/schema";
import type { Executor } from "~/utils/db.server";
import { canViewMocAs, canViewPcrAs, type Actor } from "../authz/authz.server";
import type { ChatRoom } from "./chat.server";
import { queueEmails } from "../messages/email.server";
import { PUBLIC_USER_COLUMNS, toPublicUser, type PublicUser } from "../people/user.server";

const EXCERPT = 200;

/** Whether `text` (lower-cased) names `handle` after an @, not as the start of a longer word. */
function mentions(text: string, handle: string): boolean {
  const needle = `@${handle.toLowerCase()}`;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
    const after = text[at + needle.length];
    if (after === undefined || !/[\p{L}\p{N}_-]/u.test(after)) return true;
  }
  return false;
}

/** The people a message mentions who may see the room's record, the writer left out. */
export async function mentionedIn(tx: Executor, writer: Actor, room: ChatRoom, message: string): Promise<PublicUser[]> {
  if (!message.includes("@")) return [];
  const text = message.toLowerCase();
  // A first cut in SQL (any @name or @handle appearing at all), then the word boundary here.
  const rows = await tx
    .select(PUBLIC_USER_COLUMNS)
    .from(users)
    .where(
      and(
        eq(users.active, true),
        ne(users.id, writer._id),
        sql`(strpos(${text}, '@' || lower(${users.name})) > 0
          or strpos(${text}, '@' || lower(split_part(${users.email}, '@', 1))) > 0)`,
      ),
    );
  return rows
    .map(toPublicUser)
    .filter((person) => mentions(text, person.name) || mentions(text, person.email.split("@")[0]!))
    .filter((person) =>
      room.kind === "moc" ? canViewMocAs(person, room.access, []) : canViewPcrAs(person, room.access, []),
    );
}

/** Notifies the people a new chat message mentions (kind `chat_mention`), in the caller's transaction. */
export async function notifyMentions(
  tx: Executor,
  writer: Actor & { name: string },
  room: ChatRoom,
  message: string,
): Promise<string[]> {
  const people = await mentionedIn(tx, writer, room, message);
  if (people.length === 0) return [];
  const label = `${room.kind === "moc" ? "MOC" : "PCR"} ${room.serial}`;
  const url = `/${room.kind === "moc" ? "mocs" : "pcrs"}/${room.recordId}#chat`;
  const excerpt = message.length > EXCERPT ? `${message.slice(0, EXCERPT - 1)}…` : message;
  const queued = await queueEmails(
    tx,
    people.map((person) => ({
      to: { id: person._id, name: person.name, email: person.email },
      kind: "chat_mention" as const,
      record: { type: room.kind, id: room.recordId },
      content: {
        record: { label, url },
        event: `${writer.name} mentioned you in the chat of ${label}.`,
        expectation: "Read the message and answer in the chat.",
        details: [["Message", excerpt]],
      },
    })),
  );
  return queued.map((q) => q.toEmail);
}
