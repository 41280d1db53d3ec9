/**
 * Chat rooms: one per MOC and one per PCR (`mocs.chat_id`, `pcrs.chat_id`). A room is read and
 * written by whoever may see its record (app/models/authz/authz.server.ts, docs/decisions/005-pcr-signatures.md): `canViewMoc` for a MOC
 * (a soft-deleted MOC's room is gone: 404), `canViewPcr` for a PCR; a room that belongs to neither
 * is 404. The sender of a message is always the caller, its time the server's.
 *
 * Ordering across app instances: `seq` is an identity column, and writers to one room queue on
 * that room's row before taking their `seq`, so within a room `seq` order is commit order. A
 * reader that has seen message n has therefore seen every earlier message of the room, and the
 * panel's poll ("messages after n") can never skip one that commits late.
 */
import { and, asc, desc, eq, gt, lt, sql } from "drizzle-orm";
import { chatMessages, chatRooms, users } from "#db/schema";
import { getDb, preparedOnce, type Executor } from "~/utils/db.server";
import { Forbidden, Invalid, NotFound } from "~/utils/errors";
import { canViewMocAs, canViewPcrAs, type Actor, type MocAccess, type PcrAccess } from "../authz/authz.server";
import { principalsOf } from "../people/delegation.server";
import { CHAT_API_LIMIT_DEFAULT, CHAT_PAGE_SIZE, CHAT_POLL_BATCH, chatText, type ChatMessageView } from "./chat.schema";
import { takePoint, type Budget } from "../shared/rate-limit.server";
import { USER_JSON, iso } from "#db/moc-document";
import { uuid } from "../shared/fields.schema";
import { kindsWith, recordKind } from "../record-kind/record-kind";
import { notifyMentions } from "./mentions.server";

export type ChatRoom =
  | { kind: "moc"; chatId: string; recordId: string; serial: string; access: MocAccess & { isDeleted: boolean } }
  | { kind: "pcr"; chatId: string; recordId: string; serial: string; access: PcrAccess };

/** How a caller names a room: by its own id (the API) or by its record (the pages). */
export type RoomRef = { chatId: string } | { mocId: string } | { pcrId: string };

const GONE = "There is no chat room with this id, or its record was deleted";

// ---------------------------------------------------------------------------------------------
// Finding and authorizing a room

/**
 * The room of one record, as its kind finds it (its registry entry's `chat.room`: a MOC's through
 * the MOC's load, app/models/moc/moc-record.server.ts; a PCR's, app/models/pcr/pcr-record.server.ts).
 * Each kind's room is its variant of `ChatRoom`.
 */
async function roomOf(kind: ChatRoom["kind"], id: string, db: Executor): Promise<ChatRoom | null> {
  const chat = recordKind(kind).chat;
  if (!chat) throw new Error(`record kind ${kind} has no chat room`);
  return (await chat.room(db, id)) as ChatRoom | null;
}

/**
 * The record a room belongs to, among the kinds with a room (`chat`: their table's room column),
 * in the order registered (MOC first; a room is made for exactly one record).
 */
async function recordOfRoom(chatId: string, db: Executor): Promise<{ kind: ChatRoom["kind"]; id: string } | null> {
  const owners = kindsWith("chat").map(
    (k) => sql`(select ${k.name}::text as kind, r.id from ${sql.raw(`${k.table!.name} r`)}
      where ${sql.raw(`r.${k.chat.column}`)} = ${chatId} limit 1)`,
  );
  const rows = await db.execute<{ kind: ChatRoom["kind"]; id: string }>(
    sql`${sql.join(owners, sql` union all `)} limit 1`,
  );
  return rows[0] ?? null;
}

/** The room named by `ref`, or 404 (unknown, a deleted MOC's, or a room of no record). */
export async function findRoom(ref: RoomRef, db: Executor = getDb()): Promise<ChatRoom> {
  const id = "mocId" in ref ? ref.mocId : "pcrId" in ref ? ref.pcrId : ref.chatId;
  if (!uuid().safeParse(id).success) throw new NotFound(GONE);
  let room: ChatRoom | null = null;
  if ("mocId" in ref) room = await roomOf("moc", ref.mocId, db);
  else if ("pcrId" in ref) room = await roomOf("pcr", ref.pcrId, db);
  else {
    const record = await recordOfRoom(ref.chatId, db);
    if (record) room = await roomOf(record.kind, record.id, db);
  }
  if (!room || (room.kind === "moc" && room.access.isDeleted)) throw new NotFound(GONE);
  return room;
}

/**
 * Whoever may see the record may read and write its room: a delegate too, in the period, for the
 * records of the absent person they stand in for (as the record's page lets them see it). The
 * delegation is looked up only when the actor's own rights do not suffice.
 */
export async function assertCanUseRoom(actor: Actor, room: ChatRoom, db: Executor = getDb()): Promise<void> {
  if (room.kind === "moc" && room.access.isDeleted) throw new NotFound(GONE);
  const may = (principals: readonly Actor[]) =>
    room.kind === "moc" ? canViewMocAs(actor, room.access, principals) : canViewPcrAs(actor, room.access, principals);
  if (may([])) return;
  if (may(await principalsOf(db, actor._id))) return;
  throw new Forbidden(
    room.kind === "moc"
      ? "You are not involved in this MOC, so you cannot read or write its chat"
      : "You have no access to this PCR, so you cannot read or write its chat",
  );
}

/** The room named by `ref`, if the actor may use it: 404 or 403 otherwise. */
export async function openRoom(actor: Actor, ref: RoomRef): Promise<ChatRoom> {
  const room = await findRoom(ref);
  await assertCanUseRoom(actor, room);
  return room;
}

// ---------------------------------------------------------------------------------------------
// Reading

const VIEW_FIELDS = {
  _id: chatMessages.id,
  seq: chatMessages.seq,
  message: chatMessages.message,
  createdAt: chatMessages.createdAt,
  senderId: users.id,
  senderName: users.name,
};

type ViewRow = { _id: string; seq: number; message: string; createdAt: Date; senderId: string; senderName: string };

const toView = (row: ViewRow): ChatMessageView => ({
  _id: row._id,
  seq: row.seq,
  sender: { _id: row.senderId, name: row.senderName },
  message: row.message,
  timestamp: row.createdAt.toISOString(),
});

// The panel's poll runs every 1.5 s per open page: one prepared statement on the (chat_id, seq) index.
const messagesAfterQuery = preparedOnce((db) =>
  db
    .select(VIEW_FIELDS)
    .from(chatMessages)
    .innerJoin(users, eq(users.id, chatMessages.senderId))
    .where(and(eq(chatMessages.chatId, sql.placeholder("chatId")), gt(chatMessages.seq, sql.placeholder("after"))))
    .orderBy(asc(chatMessages.seq))
    .limit(CHAT_POLL_BATCH)
    .prepare("chat_messages_after"),
);

/**
 * The messages after `after`, oldest first, at most CHAT_POLL_BATCH of them (`more` says whether
 * there may be others right behind).
 */
export async function messagesAfter(
  actor: Actor,
  room: ChatRoom,
  after: number,
): Promise<{ messages: ChatMessageView[]; more: boolean }> {
  await assertCanUseRoom(actor, room);
  const rows = await messagesAfterQuery().execute({ chatId: room.chatId, after });
  return { messages: rows.map(toView), more: rows.length === CHAT_POLL_BATCH };
}

/**
 * The latest CHAT_PAGE_SIZE messages (or those just before `before`), oldest first, and whether
 * older ones exist. Long rooms stay cheap: an index range scan of one page.
 */
export async function latestMessages(
  actor: Actor,
  room: ChatRoom,
  options: { before?: number } = {},
): Promise<{ messages: ChatMessageView[]; hasOlder: boolean }> {
  await assertCanUseRoom(actor, room);
  const where =
    options.before === undefined
      ? eq(chatMessages.chatId, room.chatId)
      : and(eq(chatMessages.chatId, room.chatId), lt(chatMessages.seq, options.before));
  const rows = await getDb()
    .select(VIEW_FIELDS)
    .from(chatMessages)
    .innerJoin(users, eq(users.id, chatMessages.senderId))
    .where(where)
    .orderBy(desc(chatMessages.seq))
    .limit(CHAT_PAGE_SIZE + 1);
  const hasOlder = rows.length > CHAT_PAGE_SIZE;
  return { messages: rows.slice(0, CHAT_PAGE_SIZE).reverse().map(toView), hasOlder };
}

const ISO = iso("cm.created_at");

/**
 * One page of the contract's Chat document (docs/api-contract.md), `{ _id, messages: [ { _id, seq, sender, message,
 * timestamp } ] }`, as JSON text built by PostgreSQL (never parsed and re-serialised in Node),
 * messages oldest first, the sender populated as a public user. Without a cursor: the latest
 * `limit`; with `before`: the `limit` just before that `seq`; with `after`: the first `limit`
 * after it. `next` is the cursor of the page beyond, in the same direction, when there is one.
 */
export async function chatDocumentJson(
  room: ChatRoom,
  options: { after?: number; before?: number; limit?: number } = {},
): Promise<{ body: string; next: { after: number } | { before: number } | null }> {
  const limit = options.limit ?? CHAT_API_LIMIT_DEFAULT;
  const forward = options.after !== undefined;
  const rows = await getDb().execute<{ body: string; more: boolean; first: number | null; last: number | null }>(sql`
    with picked as (
      select cm.id, cm.seq, cm.message, cm.created_at, cm.sender_id
      from chat_messages cm
      where cm.chat_id = ${room.chatId}
        and cm.seq > ${options.after ?? -1}
        and (${options.before ?? null}::bigint is null or cm.seq < ${options.before ?? null}::bigint)
      order by cm.seq ${forward ? sql`asc` : sql`desc`}
      limit ${limit + 1}
    ), page as (
      select * from picked order by seq ${forward ? sql`asc` : sql`desc`} limit ${limit}
    )
    select json_build_object(
      '_id', ${room.chatId}::uuid,
      'messages', coalesce((select json_agg(json_build_object(
        '_id', cm.id,
        'seq', cm.seq,
        'sender', ${sql.raw(USER_JSON("u"))},
        'message', cm.message,
        'timestamp', ${sql.raw(ISO)}
      ) order by cm.seq) from page cm join users u on u.id = cm.sender_id), '[]'::json)
    )::text as body,
    (select count(*) from picked) > ${limit} as more,
    (select min(seq) from page)::float8 as first,
    (select max(seq) from page)::float8 as last`);
  const row = rows[0]!;
  let next: { after: number } | { before: number } | null = null;
  if (row.more) next = forward ? { after: Number(row.last) } : { before: Number(row.first) };
  return { body: row.body, next };
}

// ---------------------------------------------------------------------------------------------
// Writing

/**
 * Messages one person may post per minute, over the API and the pages together: far above anyone
 * typing, far below a script (500 messages in 9 s were posted before this budget).
 */
export const CHAT_POST_BUDGET: Budget = { limit: 60, windowSeconds: 60 };
export const CHAT_POST_TOO_FAST = "You are sending messages too fast; wait a moment and send again";

export type NewMessage = {
  message: string;
  /** The sender a client named, if any: it must be the caller. */
  sender?: string | { _id: string };
};

/**
 * Appends a message to a room as the actor. A body naming someone else as sender is refused
 * (403) rather than silently corrected, so a client with a bug learns about it. The time is the
 * database's clock when the message takes its place in the room.
 */
export async function postMessage(
  actor: Actor & { name: string },
  target: RoomRef | ChatRoom,
  input: NewMessage,
): Promise<{ room: ChatRoom; message: ChatMessageView }> {
  const named = typeof input.sender === "string" ? input.sender : input.sender?._id;
  if (named !== undefined && named.trim().toLowerCase() !== actor._id.toLowerCase()) {
    throw new Forbidden(
      "You can only send messages as yourself: sender must be your own user id (or be left out); it is always the signed-in user",
    );
  }
  const text = chatText.safeParse(input.message);
  if (!text.success) {
    throw new Invalid("The message is not valid", [
      { path: "message", message: text.error.issues[0]?.message ?? "Write a message" },
    ]);
  }
  // Spent before the transaction, so a refused message holds no connection while counting.
  await takePoint(`chat-post:${actor._id}`, CHAT_POST_BUDGET, CHAT_POST_TOO_FAST);
  return getDb().transaction(async (tx) => {
    const room = "kind" in target ? target : await findRoom(target, tx);
    await assertCanUseRoom(actor, room, tx);
    // Queue behind other writers to this room, so `seq` follows commit order (see the top).
    const locked = await tx
      .select({ id: chatRooms.id })
      .from(chatRooms)
      .where(eq(chatRooms.id, room.chatId))
      .for("no key update");
    if (!locked.length) throw new NotFound(GONE);
    const [row] = await tx
      .insert(chatMessages)
      .values({ chatId: room.chatId, senderId: actor._id, message: text.data, createdAt: sql`clock_timestamp()` })
      .returning({ _id: chatMessages.id, seq: chatMessages.seq, createdAt: chatMessages.createdAt });
    const message = toView({ ...row!, message: text.data, senderId: actor._id, senderName: actor.name });
    await notifyMentions(tx, actor, room, text.data);
    return { room, message };
  });
}
