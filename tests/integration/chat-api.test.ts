/**
 * Chat (docs/api-contract.md, "Chat, reminders, proxy, reviews"; app/models/authz/authz.server.ts, docs/decisions/005-pcr-signatures.md) as a client sees it: GET and POST
 * /api/chat and the chat panel's reads (/mocs/:id/chat, /pcrs/:id/chat). Who may use a MOC's and
 * a PCR's room; the sender is always the caller and the time the server's; 1 to 5,000 characters,
 * trimmed; bad requests refused before anything is written; messages in one order for every
 * reader, with writers to a room queued so a reader's cursor never skips a late commit; messages
 * stored and returned as the text that was sent; reads whose cost does not grow with the room.
 */
import { randomUUID } from "node:crypto";
import { asc, eq, sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as chatRoute from "~/routes/api+/chat";
import * as mocChatRoute from "~/routes/mocs+/$id.chat";
import * as pcrChatRoute from "~/routes/pcrs+/$id.chat";
import { findRoom, messagesAfter, postMessage } from "~/models/records/chat.server";
import { deleteMoc } from "~/models/moc/moc.server";
import { deletePcr } from "~/models/pcr/pcr.server";
import type { PublicUser } from "~/models/people/user.server";
import { closeDb, getDb } from "~/utils/db.server";
import type { QueryCounter } from "#db/client";
import { chatMessages, chatRooms } from "#db/schema";
import { api } from "../helpers/api";
import { makeAdmin, makeUser } from "../helpers/factories";
import { createMocOk, expectError, ISO_Z, makeCast, mocAt, tokenOf, UUID, type Doc } from "../helpers/moc-flow";
import { createPcrOk, makeHolders, POSITION_ROLES } from "../helpers/pcr";
import type { Cast } from "../helpers/moc";
import type { CallOptions, CallResult } from "../helpers/request";

type RouteModule = Parameters<typeof api>[0];
type Who = { _id: string } | null;

async function as(who: Who, route: RouteModule, options: CallOptions): Promise<CallResult> {
  return api(route, { ...options, token: who ? await tokenOf(who) : undefined });
}

const getChat = (who: Who, chatId: string, query: Record<string, string> = {}) =>
  as(who, chatRoute, { path: "/api/chat", query: { chat_id: chatId, ...query } });
const postChat = (who: Who, body: unknown, options: Omit<CallOptions, "path" | "body" | "method"> = {}) =>
  as(who, chatRoute, { method: "POST", path: "/api/chat", body, ...options });
/** A message as a client sends it: sender, text and the client's clock. */
const send = (who: { _id: string }, chatId: string, message: unknown, extra: Record<string, unknown> = {}) =>
  postChat(who, {
    chat_id: chatId,
    message: { sender: who._id, message, timestamp: new Date().toISOString(), ...extra },
  });
const panelRead = (who: Who, kind: "moc" | "pcr", recordId: string, query: Record<string, string> = {}) =>
  as(who, kind === "moc" ? mocChatRoute : pcrChatRoute, {
    path: `/${kind}s/${recordId}/chat`,
    params: { id: recordId },
    query,
  });

async function rows(chatId: string) {
  return getDb().select().from(chatMessages).where(eq(chatMessages.chatId, chatId)).orderBy(asc(chatMessages.seq));
}
async function messageCount(): Promise<number> {
  const [row] = await getDb().execute<{ n: number }>(sql`select count(*)::int as n from chat_messages`);
  return row!.n;
}
/** Runs a request that must be refused and checks that no message was written anywhere. */
async function refused(status: number, run: () => Promise<CallResult>): Promise<CallResult> {
  const before = await messageCount();
  const res = await run();
  expectError(res, status);
  expect(await messageCount()).toBe(before);
  return res;
}

let tag = 0;
const unique = (what: string) => `${what} #${++tag}`;

// =============================================================================================
// The contract

describe("GET and POST /api/chat", () => {
  let cast: Cast;
  let moc: Doc;
  beforeAll(async () => {
    cast = await makeCast();
    moc = await createMocOk(cast);
  });

  it("every new MOC and PCR has a room of its own", async () => {
    const pcr = await createPcrOk(cast.originator);
    expect(moc.chat).toMatch(UUID);
    expect(pcr.chatId).toMatch(UUID);
    expect(pcr.chatId).not.toBe(moc.chat);
    expect((await findRoom({ chatId: moc.chat })).recordId).toBe(moc._id);
    expect((await findRoom({ chatId: pcr.chatId })).recordId).toBe(pcr._id);
  });

  it("GET answers { chatData: { _id, messages }, user: { _id, name } } with the caller as user", async () => {
    const empty = await getChat(cast.implementer, moc.chat);
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toEqual({
      chatData: { _id: moc.chat, messages: [] },
      user: { _id: cast.implementer._id, name: cast.implementer.name },
    });
    expect(empty.headers.get("Content-Type")).toMatch(/^application\/json/);

    const text = unique("Pump arrives Tuesday");
    expect((await send(cast.originator, moc.chat, text)).status).toBe(200);
    const res = await getChat(cast.implementer, moc.chat);
    expect(Object.keys(res.body).sort()).toEqual(["chatData", "user"]);
    expect(res.body.user).toEqual({ _id: cast.implementer._id, name: cast.implementer.name });
    const [message] = res.body.chatData.messages;
    expect(message).toEqual({
      _id: expect.stringMatching(UUID),
      seq: expect.any(Number),
      sender: {
        _id: cast.originator._id,
        name: cast.originator.name,
        email: cast.originator.email,
        role: "user",
        department: "engineering",
        access: "standard",
        position: null,
        active: true,
      },
      message: text,
      timestamp: expect.stringMatching(ISO_Z),
    });
  });

  it("POST appends as the caller and answers { status: 200, data: <the room after the change> }", async () => {
    const text = unique("Controller ordered");
    const res = await send(cast.implementer, moc.chat, text);
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe(200);
    expect(res.body.data._id).toBe(moc.chat);
    const last = res.body.data.messages.at(-1);
    expect(last.message).toBe(text);
    expect(last.sender._id).toBe(cast.implementer._id);
    // The same room as a reader gets it.
    expect((await getChat(cast.originator, moc.chat)).body.chatData).toEqual(res.body.data);
    const stored = (await rows(moc.chat)).at(-1)!;
    expect(stored).toMatchObject({ senderId: cast.implementer._id, message: text, chatId: moc.chat });
  });

  it("methods other than GET and POST are 405", async () => {
    const res = await as(cast.originator, chatRoute, { method: "PUT", path: "/api/chat", body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe("GET, POST");
  });
});

// =============================================================================================
// Who may use a room

describe("a MOC's room: whoever may see the MOC", () => {
  let cast: Cast;
  let open: Doc;
  let completed: Doc;
  let deleted: Doc;
  const people = {} as Record<string, PublicUser>;

  beforeAll(async () => {
    cast = await makeCast();
    [open, completed, deleted] = await Promise.all([createMocOk(cast), mocAt("completed", cast), createMocOk(cast)]);
    await deleteMoc(cast.originator as PublicUser, deleted._id);
    const [admin, hseq, full, outsider] = await Promise.all([
      makeAdmin({ name: "Ada Admin", department: "engineering", access: "standard" }),
      makeUser({ name: "Hanna Hseq", department: "hseq" }),
      makeUser({ name: "Fritz Full", department: "fleet", access: "full" }),
      makeUser({ name: "Otto Outsider", department: "fleet" }),
    ]);
    Object.assign(people, {
      admin,
      "hseq department user": hseq,
      "full-access user": full,
      "originator (involved)": cast.originator,
      "implementer (involved)": cast.implementer,
      "uninvolved standard user": outsider,
    });
  });

  const TABLE: { who: string; open: 200 | 403 }[] = [
    { who: "admin", open: 200 },
    { who: "hseq department user", open: 200 },
    { who: "full-access user", open: 200 },
    { who: "originator (involved)", open: 200 },
    { who: "implementer (involved)", open: 200 },
    { who: "uninvolved standard user", open: 403 },
  ];

  it.each(TABLE)("$who: reads and writes an open MOC's room: $open", async ({ who, open: expected }) => {
    const user = people[who]!;
    const text = unique(`Hello from ${who}`);
    if (expected === 200) {
      const posted = await send(user, open.chat, text);
      expect(posted.status, posted.text).toBe(200);
      const read = await getChat(user, open.chat);
      expect(read.status).toBe(200);
      expect(read.body.chatData.messages.map((m: { message: string }) => m.message)).toContain(text);
      const panel = await panelRead(user, "moc", open._id);
      expect(panel.status, panel.text).toBe(200);
      expect(panel.body.messages.map((m: { message: string }) => m.message)).toContain(text);
    } else {
      await send(cast.originator, open.chat, unique("Private note"));
      const read = await refused(403, () => getChat(user, open.chat));
      expect(read.text).not.toContain("Private note");
      await refused(403, () => send(user, open.chat, text));
      await refused(403, () => panelRead(user, "moc", open._id));
      await refused(403, () => panelRead(user, "moc", open._id, { after: "0" }));
    }
  });

  it.each(TABLE)("$who: reads and writes a completed MOC's room (anyone may see it)", async ({ who }) => {
    const user = people[who]!;
    const text = unique(`Lessons learned, by ${who}`);
    expect((await send(user, completed.chat, text)).status).toBe(200);
    const read = await getChat(user, completed.chat);
    expect(read.status).toBe(200);
    expect(read.body.chatData.messages.at(-1).message).toBe(text);
    expect((await panelRead(user, "moc", completed._id)).status).toBe(200);
  });

  it("a deleted MOC's room is 404 for everyone, admins and its originator too", async () => {
    for (const user of [people.admin!, cast.originator]) {
      await refused(404, () => getChat(user, deleted.chat));
      await refused(404, () => send(user, deleted.chat, unique("Anyone there?")));
      await refused(404, () => panelRead(user, "moc", deleted._id));
    }
  });
});

describe("a PCR's room: whoever may see the PCR", () => {
  const people = {} as Record<string, PublicUser>;
  let pcr: Doc;
  let gone: Doc;

  beforeAll(async () => {
    const holders = await makeHolders("(chat)");
    const [originator, party, admin, hseq, full, outsider] = await Promise.all([
      makeUser({ name: "Olga Originator", department: "engineering" }),
      makeUser({ name: "Pia Party", department: "operations" }),
      makeAdmin({ name: "Ada Admin", department: "engineering", access: "standard" }),
      makeUser({ name: "Hanna Hseq", department: "hseq" }),
      makeUser({ name: "Fritz Full", department: "fleet", access: "full" }),
      makeUser({ name: "Otto Outsider", department: "fleet" }),
    ]);
    Object.assign(people, holders, {
      originator,
      "affected party": party,
      admin,
      "hseq department user": hseq,
      "full-access user": full,
      outsider,
    });
    pcr = await createPcrOk(originator!, { parties: [party!] });
    gone = await createPcrOk(originator!);
    await deletePcr(originator!, gone._id);
  });

  const TABLE: { who: string; expected: 200 | 403 }[] = [
    ...POSITION_ROLES.map((who) => ({ who, expected: 200 as const })),
    { who: "originator", expected: 200 },
    { who: "affected party", expected: 200 },
    { who: "admin", expected: 200 },
    { who: "hseq department user", expected: 200 },
    { who: "full-access user", expected: 200 },
    { who: "outsider", expected: 403 },
  ];

  it.each(TABLE)("$who: $expected", async ({ who, expected }) => {
    const user = people[who]!;
    const text = unique(`Comment from ${who}`);
    if (expected === 200) {
      expect((await send(user, pcr.chatId, text)).status).toBe(200);
      const read = await getChat(user, pcr.chatId);
      expect(read.status).toBe(200);
      expect(read.body.chatData.messages.at(-1)).toMatchObject({ message: text, sender: { _id: user._id } });
      const panel = await panelRead(user, "pcr", pcr._id, { after: "0" });
      expect(panel.status).toBe(200);
      expect(panel.body.messages.map((m: { message: string }) => m.message)).toContain(text);
    } else {
      await send(people.originator!, pcr.chatId, unique("Draft wording"));
      const read = await refused(403, () => getChat(user, pcr.chatId));
      expect(read.text).not.toContain("Draft wording");
      await refused(403, () => send(user, pcr.chatId, text));
      await refused(403, () => panelRead(user, "pcr", pcr._id));
    }
  });

  it("a deleted PCR's room is gone: 404", async () => {
    await refused(404, () => getChat(people.admin!, gone.chatId));
    await refused(404, () => send(people.admin!, gone.chatId, unique("Hello?")));
    await refused(404, () => panelRead(people.admin!, "pcr", gone._id));
  });
});

// =============================================================================================
// The sender and the time

describe("the sender is always the caller, the time always the server's", () => {
  let cast: Cast;
  let moc: Doc;
  beforeAll(async () => {
    cast = await makeCast();
    moc = await createMocOk(cast);
  });

  it("a body naming someone else as sender is 403 with a clear message, and nothing is written", async () => {
    const forgeries = [
      cast.implementer._id, // someone else in the room
      randomUUID(), // nobody
      "not-even-an-id",
    ];
    for (const sender of forgeries) {
      const res = await refused(403, () =>
        send(cast.originator, moc.chat, unique("Signed by someone else"), { sender }),
      );
      expect(res.body.message).toMatch(/as yourself/);
    }
    await refused(403, () => send(cast.originator, moc.chat, "x", { sender: { _id: cast.implementer._id } }));
  });

  it("a sender that is not an id or a user object is 400", async () => {
    for (const sender of [42, true, ["a"], { name: "Olive" }]) {
      const res = await refused(400, () => send(cast.originator, moc.chat, "x", { sender }));
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain("message.sender");
    }
  });

  it("the stored sender is the caller: own id, own id in capitals, a populated user object, or no sender", async () => {
    const variants: Record<string, unknown>[] = [
      { sender: cast.implementer._id },
      { sender: cast.implementer._id.toUpperCase() },
      { sender: { _id: cast.implementer._id, name: "whatever" } },
      { sender: undefined },
    ];
    for (const extra of variants) {
      const text = unique("Mine");
      const res = await send(cast.implementer, moc.chat, text, extra);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.messages.at(-1).sender._id).toBe(cast.implementer._id);
      expect((await rows(moc.chat)).at(-1)).toMatchObject({ message: text, senderId: cast.implementer._id });
    }
  });

  it("the client's timestamp is ignored: the message carries the server's time", async () => {
    const before = Date.now();
    const res = await send(cast.originator, moc.chat, unique("Back to the future"), {
      timestamp: "1999-12-31T23:59:59.000Z",
    });
    const after = Date.now();
    const stamp = res.body.data.messages.at(-1).timestamp as string;
    expect(stamp).toMatch(ISO_Z);
    // The database's clock against this process's: a second of slack either side.
    expect(Date.parse(stamp)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(stamp)).toBeLessThanOrEqual(after + 1000);
    // Whatever the client's clock says, or whether it says anything.
    for (const timestamp of ["not a date", 12, null, undefined]) {
      expect((await send(cast.originator, moc.chat, unique("Any clock"), { timestamp })).status).toBe(200);
    }
  });
});

// =============================================================================================
// Length and shape

describe("the message: trimmed, 1 to 5,000 characters", () => {
  let cast: Cast;
  let moc: Doc;
  beforeAll(async () => {
    cast = await makeCast();
    moc = await createMocOk(cast);
  });

  const REFUSED: [string, unknown][] = [
    ["empty", ""],
    ["whitespace only", "  \n\t  "],
    ["5,001 characters", "x".repeat(5001)],
    ["5,001 characters once trimmed", ` ${"x".repeat(5001)} `],
    ["5,001 emoji", "😀".repeat(5001)],
    ["a NUL character", "before\u0000after"],
    ["a number", 42],
    ["null", null],
    ["missing", undefined],
  ];

  it.each(REFUSED)("%s: 400 with the issue at message.message, nothing written", async (_name, message) => {
    const res = await refused(400, () =>
      postChat(cast.originator, { chat_id: moc.chat, message: { sender: cast.originator._id, message } }),
    );
    expect(res.body.issues.map((i: { path: string }) => i.path)).toContain("message.message");
  });

  const ACCEPTED: [string, string, string][] = [
    ["1 character", "a", "a"],
    ["5,000 characters", "y".repeat(5000), "y".repeat(5000)],
    ["5,000 characters after trimming", `\n  ${"z".repeat(5000)}  \n`, "z".repeat(5000)],
    ["5,000 emoji (one character each)", "😀".repeat(5000), "😀".repeat(5000)],
    ["inner spaces and line breaks kept", "  two\n\n  lines  ", "two\n\n  lines"],
    ["CRLF line breaks (as browsers post them) stored as one character", "one\r\ntwo\rthree", "one\ntwo\nthree"],
    ["5,000 characters counted after CRLF becomes LF", "ab\r\n".repeat(1666) + "ab", "ab\n".repeat(1666) + "ab"],
  ];

  it.each(ACCEPTED)("%s: stored trimmed", async (_name, message, stored) => {
    const res = await send(cast.originator, moc.chat, message);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body.data.messages.at(-1).message).toBe(stored);
    expect((await rows(moc.chat)).at(-1)!.message).toBe(stored);
  });
});

describe("requests refused before any rule (nothing written)", () => {
  let cast: Cast;
  let moc: Doc;
  beforeAll(async () => {
    cast = await makeCast();
    moc = await createMocOk(cast);
  });

  it("anonymous callers and bad tokens: 401", async () => {
    await refused(401, () => getChat(null, moc.chat));
    await refused(401, () => postChat(null, { chat_id: moc.chat, message: { message: "hi" } }));
    await refused(401, () => panelRead(null, "moc", moc._id));
    await refused(401, () => api(chatRoute, { path: "/api/chat", query: { chat_id: moc.chat }, token: "not.a.token" }));
    await refused(401, () =>
      api(chatRoute, {
        method: "POST",
        path: "/api/chat",
        token: "not.a.token",
        body: { chat_id: moc.chat, message: { message: "hi" } },
      }),
    );
  });

  const BAD: [string, () => Promise<CallResult>, string][] = [];
  const bad = (name: string, path: string, run: (moc: Doc, who: { _id: string }) => Promise<CallResult>) =>
    BAD.push([name, () => run(moc, cast.originator), path]);
  bad("GET without chat_id", "chat_id", (_m, who) => as(who, chatRoute, { path: "/api/chat" }));
  bad("GET with an empty chat_id", "chat_id", (_m, who) => getChat(who, ""));
  bad("GET with a chat_id that is not a UUID", "chat_id", (_m, who) => getChat(who, "general"));
  bad("GET with a SQL-looking chat_id", "chat_id", (_m, who) => getChat(who, "' or 1=1 --"));
  bad("GET with a negative after", "after", (m, who) => getChat(who, m.chat, { after: "-1" }));
  bad("GET with a non-numeric after", "after", (m, who) => getChat(who, m.chat, { after: "latest" }));
  bad("POST without chat_id", "chat_id", (_m, who) => postChat(who, { message: { message: "hi" } }));
  bad("POST with chat_id a number", "chat_id", (_m, who) => postChat(who, { chat_id: 7, message: { message: "hi" } }));
  bad("POST with chat_id not a UUID", "chat_id", (_m, who) =>
    postChat(who, { chat_id: "room-1", message: { message: "hi" } }),
  );
  bad("POST without message", "message", (m, who) => postChat(who, { chat_id: m.chat }));
  bad("POST with message a string", "message", (m, who) => postChat(who, { chat_id: m.chat, message: "hi" }));
  bad("POST with malformed JSON", "", (_m, who) => postChat(who, '{"chat_id": '));
  bad("POST with an empty body", "", (_m, who) => postChat(who, ""));
  bad("POST with a JSON array", "", (_m, who) => postChat(who, [{ message: "hi" }]));
  bad("the panel's read with a bad cursor", "after", (m, who) => panelRead(who, "moc", m._id, { after: "1e3" }));

  it.each(BAD)("%s: 400 with issues", async (_name, run, path) => {
    const res = await refused(400, run);
    expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
  });

  it("a room nobody has, a room of no record, a record that does not exist: 404", async () => {
    const nowhere = randomUUID();
    await refused(404, () => getChat(cast.originator, nowhere));
    await refused(404, () => send(cast.originator, nowhere, "Hello?"));
    const [orphan] = await getDb().insert(chatRooms).values({}).returning();
    await refused(404, () => getChat(cast.originator, orphan!.id));
    await refused(404, () => send(cast.originator, orphan!.id, "Hello?"));
    await refused(404, () => panelRead(cast.originator, "moc", randomUUID()));
    await refused(404, () => panelRead(cast.originator, "pcr", randomUUID()));
    await refused(404, () => panelRead(cast.originator, "moc", "not-a-uuid"));
    // A MOC's id is not a PCR's.
    await refused(404, () => panelRead(cast.originator, "pcr", moc._id));
  });

  it("a body over 1 MiB: 413", async () => {
    const huge = JSON.stringify({ chat_id: moc.chat, message: { message: "x".repeat(1024 * 1024) } });
    await refused(413, () => postChat(cast.originator, huge));
  });

  it("a cookie-authenticated post from another site: 403", async () => {
    await refused(403, () =>
      postChat(
        cast.originator,
        { chat_id: moc.chat, message: { message: "Sent from elsewhere" } },
        { cookie: true, headers: { Origin: "https://evil.example" } },
      ),
    );
    await refused(403, () =>
      postChat(
        cast.originator,
        { chat_id: moc.chat, message: { message: "Sent from elsewhere" } },
        { cookie: true, headers: { "Sec-Fetch-Site": "cross-site" } },
      ),
    );
  });
});

// =============================================================================================
// Order, cursors and long rooms

describe("order", () => {
  let cast: Cast;
  let moc: Doc;
  beforeAll(async () => {
    cast = await makeCast();
    moc = await createMocOk(cast);
  });

  it("messages sent at once by several people come back in one order, with times in that order", async () => {
    const senders = [cast.originator, cast.implementer, cast.originator, cast.implementer];
    const texts = Array.from({ length: 24 }, (_, i) => `Burst ${i}`);
    const results = await Promise.all(texts.map((text, i) => send(senders[i % senders.length]!, moc.chat, text)));
    for (const res of results) expect(res.status, res.text).toBe(200);
    const messages = (await getChat(cast.originator, moc.chat)).body.chatData.messages as {
      seq: number;
      message: string;
      timestamp: string;
      sender: { _id: string };
    }[];
    expect(messages.map((m) => m.message).sort()).toEqual([...texts].sort());
    for (let i = 1; i < messages.length; i++) {
      expect(messages[i]!.seq).toBeGreaterThan(messages[i - 1]!.seq);
      expect(Date.parse(messages[i]!.timestamp)).toBeGreaterThanOrEqual(Date.parse(messages[i - 1]!.timestamp));
    }
    for (const m of messages) {
      const i = Number(m.message.split(" ")[1]);
      expect(m.sender._id).toBe(senders[i % senders.length]!._id);
    }
  });

  it("a writer waits for the room while another one's message is not committed, so a cursor never skips it", async () => {
    const room = await findRoom({ mocId: moc._id });
    const cursor = (await rows(moc.chat)).at(-1)?.seq ?? 0;
    // A slow instance: it has taken its place in the room and not committed yet.
    const other = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
    const slow = await other.reserve();
    try {
      await slow`begin`;
      await slow`select id from chat_rooms where id = ${moc.chat} for no key update`;
      const [first] = await slow<{ seq: string }[]>`
        insert into chat_messages (chat_id, sender_id, message)
        values (${moc.chat}, ${cast.originator._id}, 'Written first, committed late') returning seq`;
      const second = postMessage(cast.implementer as PublicUser, { mocId: moc._id }, { message: "Written second" });
      // The second writer queues behind the first (it waits on the room's lock)...
      await expect
        .poll(
          async () => {
            const [row] = await getDb().execute<{ n: number }>(sql`
              select count(*)::int as n from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock'`);
            return row!.n;
          },
          { timeout: 10_000, interval: 20 },
        )
        .toBe(1);
      // ...so a reader meanwhile sees neither, rather than the second without the first.
      expect((await messagesAfter(cast.originator as PublicUser, room, cursor)).messages).toEqual([]);
      await slow`commit`;
      const { message } = await second;
      expect(message.seq).toBeGreaterThan(Number(first!.seq));
      const seen = (await messagesAfter(cast.originator as PublicUser, room, cursor)).messages.map((m) => m.message);
      expect(seen).toEqual(["Written first, committed late", "Written second"]);
    } finally {
      slow.release();
      await other.end();
    }
  });
});

describe("cursors and long rooms", () => {
  let cast: Cast;
  let moc: Doc;
  let seqs: number[];
  beforeAll(async () => {
    cast = await makeCast();
    moc = await createMocOk(cast);
    // 250 messages, as if written over months.
    await getDb().execute(sql`
      insert into chat_messages (chat_id, sender_id, message)
      select ${moc.chat}::uuid, ${cast.originator._id}::uuid, 'Old message ' || n from generate_series(1, 250) n`);
    seqs = (await rows(moc.chat)).map((r) => r.seq);
  });

  it("GET /api/chat returns the latest 100 (the rest by paging back); with after=<seq> only what came later", async () => {
    const latest = await getChat(cast.implementer, moc.chat);
    expect(latest.body.chatData.messages).toHaveLength(100);
    expect(latest.body.chatData.messages[0].message).toBe("Old message 151");
    expect(latest.headers.get("Link")).toBe(`</api/chat?chat_id=${moc.chat}&before=${seqs[150]}>; rel="next"`);
    const later = await getChat(cast.implementer, moc.chat, { after: String(seqs[239]) });
    expect(later.body.chatData.messages.map((m: { message: string }) => m.message)).toEqual(
      Array.from({ length: 10 }, (_, i) => `Old message ${241 + i}`),
    );
    expect(later.body.user._id).toBe(cast.implementer._id);
  });

  it("the panel's first read has the latest 100 and says older ones exist; before=<seq> pages back", async () => {
    const latest = await panelRead(cast.implementer, "moc", moc._id);
    expect(latest.body.hasOlder).toBe(true);
    expect(latest.body.messages).toHaveLength(100);
    expect(latest.body.messages[0].message).toBe("Old message 151");
    expect(latest.body.messages.at(-1).message).toBe("Old message 250");
    expect(Object.keys(latest.body.messages[0]).sort()).toEqual(["_id", "message", "sender", "seq", "timestamp"]);
    expect(latest.body.messages[0].sender).toEqual({ _id: cast.originator._id, name: cast.originator.name });

    const older = await panelRead(cast.implementer, "moc", moc._id, { before: String(latest.body.messages[0].seq) });
    expect(older.body.messages.map((m: { message: string }) => m.message)).toEqual(
      Array.from({ length: 100 }, (_, i) => `Old message ${51 + i}`),
    );
    expect(older.body.hasOlder).toBe(true);
    const oldest = await panelRead(cast.implementer, "moc", moc._id, { before: String(older.body.messages[0].seq) });
    expect(oldest.body.messages).toHaveLength(50);
    expect(oldest.body.hasOlder).toBe(false);
  });

  it("the panel's poll returns what came after its cursor, in batches of at most 200", async () => {
    const first = await panelRead(cast.implementer, "moc", moc._id, { after: "0" });
    expect(first.body.messages).toHaveLength(200);
    expect(first.body.more).toBe(true);
    const rest = await panelRead(cast.implementer, "moc", moc._id, { after: String(first.body.messages.at(-1).seq) });
    expect(rest.body.messages).toHaveLength(50);
    expect(rest.body.more).toBe(false);
    const none = await panelRead(cast.implementer, "moc", moc._id, { after: String(seqs.at(-1)) });
    expect(none.body).toEqual({ messages: [], more: false });
    const text = unique("Fresh");
    await send(cast.originator, moc.chat, text);
    const fresh = await panelRead(cast.implementer, "moc", moc._id, { after: String(seqs.at(-1)) });
    expect(fresh.body.messages.map((m: { message: string }) => m.message)).toEqual([text]);
  });
});

// =============================================================================================
// Plain text

describe("messages are plain text", () => {
  it("markup is stored and returned exactly as sent, as a JSON string (the pages render it escaped)", async () => {
    const cast = await makeCast();
    const moc = await createMocOk(cast);
    const payloads = [
      `<script>alert("chat")</script>`,
      `<img src=x onerror="alert(1)">`,
      `<a href="javascript:alert(1)">click</a> & "quotes" 'too'`,
      "{{constructor.constructor('alert(1)')()}}",
    ];
    for (const payload of payloads) {
      const res = await send(cast.originator, moc.chat, payload);
      expect(res.status).toBe(200);
      expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
      expect(res.body.data.messages.at(-1).message).toBe(payload);
      expect((await rows(moc.chat)).at(-1)!.message).toBe(payload);
    }
    const read = await getChat(cast.implementer, moc.chat);
    expect(read.body.chatData.messages.map((m: { message: string }) => m.message)).toEqual(payloads);
  });
});

// =============================================================================================
// Query counts

describe("read costs", () => {
  const counter: QueryCounter = { count: 0 };
  const holder = globalThis as { __cmQueryCounter?: QueryCounter };

  beforeAll(async () => {
    holder.__cmQueryCounter = counter;
    await closeDb();
  });
  afterAll(async () => {
    delete holder.__cmQueryCounter;
    await closeDb();
  });

  it("GET /api/chat and the panel's reads cost the same with 3 messages as with 300", async () => {
    const cast = await makeCast();
    const moc = await createMocOk(cast);
    const pcr = await createPcrOk(cast.originator);
    const fill = async (chatId: string, n: number, people: PublicUser[]) => {
      for (let i = 0; i < n; i++) await postMessage(people[i % people.length]!, { chatId }, { message: `m${i}` });
    };
    const counted = async (run: () => Promise<CallResult>) => {
      const start = counter.count;
      const res = await run();
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      return counter.count - start;
    };
    const measure = async () => ({
      "GET /api/chat (MOC)": await counted(() => getChat(cast.implementer, moc.chat)),
      "GET /api/chat (PCR)": await counted(() => getChat(cast.originator, pcr.chatId)),
      "panel first read": await counted(() => panelRead(cast.implementer, "moc", moc._id)),
      "panel poll": await counted(() => panelRead(cast.implementer, "moc", moc._id, { after: "0" })),
      "POST /api/chat": await counted(() => send(cast.implementer, moc.chat, "counted")),
    });
    // Sessions first: making one is not part of a read.
    await Promise.all([tokenOf(cast.originator), tokenOf(cast.implementer)]);
    await fill(moc.chat, 3, [cast.originator, cast.implementer] as PublicUser[]);
    await fill(pcr.chatId, 3, [cast.originator] as PublicUser[]);
    const few = await measure();
    await getDb().execute(sql`
      insert into chat_messages (chat_id, sender_id, message)
      select c.id, ${cast.implementer._id}::uuid, 'bulk ' || n
      from (values (${moc.chat}::uuid), (${pcr.chatId}::uuid)) c(id), generate_series(1, 300) n`);
    const many = await measure();
    expect(many).toEqual(few);
    // A post also spends a point of its sender's posting budget (one statement, outside its transaction).
    for (const [name, queries] of Object.entries(many))
      expect(queries, name).toBeLessThanOrEqual(name === "POST /api/chat" ? 9 : 8);
  });
});
