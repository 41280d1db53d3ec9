/**
 * GET /api/chat answers a page, not a whole room, and posting is limited per person
 * (docs/decisions/028-untrusted-text-and-sign-in-links.md). The response keys stay the contract's
 * (docs/api-contract.md).
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as chatRoute from "~/routes/api+/chat";
import { CHAT_POST_BUDGET } from "~/models/records/chat.server";
import { getDb } from "~/utils/db.server";
import { api } from "../helpers/api";
import { createMocOk, makeCast, tokenOf, type Doc } from "../helpers/moc-flow";
import type { Cast } from "../helpers/moc";

let cast: Cast;
let moc: Doc;

const messageCount = async (chatId: string) =>
  (
    await getDb().execute<{ n: number }>(sql`select count(*)::int as n from chat_messages where chat_id = ${chatId}`)
  )[0]!.n;

const getChat = async (who: { _id: string }, query: Record<string, string>) =>
  api(chatRoute, { path: "/api/chat", query, token: await tokenOf(who) });

beforeAll(async () => {
  cast = await makeCast();
  moc = await createMocOk(cast);
  await getDb().execute(sql`
    insert into chat_messages (chat_id, sender_id, message)
    select ${moc.chat}::uuid, ${cast.originator._id}::uuid, 'Message ' || n from generate_series(1, 687) n`);
});

describe("GET /api/chat on a long room (687 messages)", () => {
  it("answers the latest 100, oldest first, with the spec's keys and a Link to the page before", async () => {
    const res = await getChat(cast.implementer, { chat_id: moc.chat });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["chatData", "user"]);
    expect(Object.keys(res.body.chatData).sort()).toEqual(["_id", "messages"]);
    const texts = res.body.chatData.messages.map((m: { message: string }) => m.message);
    expect(texts).toEqual(Array.from({ length: 100 }, (_, i) => `Message ${588 + i}`));
    expect(res.headers.get("Link")).toMatch(/^<\/api\/chat\?chat_id=[^>]+&before=\d+>; rel="next"$/);
  });

  it("following the Link pages back through the whole room, each message once", async () => {
    const seen: string[] = [];
    let query: Record<string, string> | null = { chat_id: moc.chat, limit: "200" };
    let pages = 0;
    while (query) {
      const res = await getChat(cast.implementer, query);
      expect(res.status).toBe(200);
      const texts: string[] = res.body.chatData.messages.map((m: { message: string }) => m.message);
      expect(texts.length).toBeLessThanOrEqual(200);
      seen.unshift(...texts);
      pages += 1;
      const link = res.headers.get("Link");
      query = link ? Object.fromEntries(new URL(link.slice(1, link.indexOf(">")), "http://x").searchParams) : null;
    }
    expect(pages).toBe(4);
    expect(seen).toEqual(Array.from({ length: 687 }, (_, i) => `Message ${i + 1}`));
  });

  it("after=<seq> reads on in pages of `limit`, with a Link to the next", async () => {
    const first = await getChat(cast.implementer, { chat_id: moc.chat, after: "0", limit: "50" });
    expect(first.body.chatData.messages.map((m: { message: string }) => m.message)).toEqual(
      Array.from({ length: 50 }, (_, i) => `Message ${i + 1}`),
    );
    const last = first.body.chatData.messages.at(-1).seq;
    expect(first.headers.get("Link")).toBe(`</api/chat?chat_id=${moc.chat}&limit=50&after=${last}>; rel="next"`);
  });

  it.each([
    ["limit=0", { limit: "0" }, "limit"],
    ["limit=201", { limit: "201" }, "limit"],
    ["limit=ten", { limit: "ten" }, "limit"],
    ["before and after together", { before: "5", after: "1" }, "before"],
    ["before=-1", { before: "-1" }, "before"],
  ])("%s: 400 with the issue on the parameter", async (_name, extra, path) => {
    const res = await getChat(cast.implementer, { chat_id: moc.chat, ...extra });
    expect(res.status).toBe(400);
    expect(res.body.issues).toEqual([{ path, message: expect.any(String) }]);
  });

  it("POST answers the room after the change as its latest 100 messages, not the whole room", async () => {
    const res = await api(chatRoute, {
      method: "POST",
      path: "/api/chat",
      token: await tokenOf(cast.implementer),
      body: { chat_id: moc.chat, message: { message: "The newest" } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.messages).toHaveLength(100);
    expect(res.body.data.messages.at(-1).message).toBe("The newest");
  });
});

describe("posting is limited per person", () => {
  it(`${CHAT_POST_BUDGET.limit} messages a minute go through; the next is 429 with Retry-After and is not kept`, async () => {
    const people = await makeCast();
    const room = await createMocOk(people);
    const token = await tokenOf(people.implementer);
    const post = (message: string, who = token) =>
      api(chatRoute, {
        method: "POST",
        path: "/api/chat",
        token: who,
        body: { chat_id: room.chat, message: { message } },
      });
    for (let i = 0; i < CHAT_POST_BUDGET.limit; i++) expect((await post(`m${i}`)).status).toBe(200);
    const before = await messageCount(room.chat);
    const refused = await post("one too many");
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ status: 429, message: expect.stringMatching(/too fast/) });
    const retry = Number(refused.headers.get("Retry-After"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(CHAT_POST_BUDGET.windowSeconds);
    expect(await messageCount(room.chat)).toBe(before);
    // Someone else in the room is not held back by it.
    expect((await post("From the originator", await tokenOf(people.originator))).status).toBe(200);
  });
});
