import { chatPostSchema, chatQuerySchema } from "~/models/records/chat.schema";
import { chatDocumentJson, openRoom, postMessage } from "~/models/records/chat.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, okJsonText, readJson, readQuery } from "~/utils/http.server";

const JSON_HEADERS = { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" };

const route = apiRoute({
  /**
   * `{ chatData: { _id, messages }, user: { _id, name } }`: the latest 100 messages, oldest first;
   * `before=<seq>` pages back, `after=<seq>` reads on, `limit` (1-200) sizes a page. When there is
   * a page beyond, `Link: <...>; rel="next"` names it (docs/decisions/028-untrusted-text-and-sign-in-links.md).
   */
  async GET({ request }) {
    const actor = await requireApiUser(request);
    const { chat_id, after, before, limit } = readQuery(request, chatQuerySchema);
    const room = await openRoom(actor, { chatId: chat_id });
    const { body, next } = await chatDocumentJson(room, { after, before, limit });
    const user = JSON.stringify({ _id: actor._id, name: actor.name });
    const headers: Record<string, string> = { ...JSON_HEADERS };
    if (next) {
      const url = new URL(request.url);
      url.searchParams.delete("after");
      url.searchParams.delete("before");
      for (const [key, value] of Object.entries(next)) url.searchParams.set(key, String(value));
      headers.Link = `<${url.pathname}${url.search}>; rel="next"`;
    }
    return new Response(`{"chatData":${body},"user":${user}}`, { headers });
  },
  /**
   * Appends the message as the caller; `{ status: 200, data: <the room after the change> }` (its
   * latest 100 messages). Posting is limited per person (429 with Retry-After).
   */
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, chatPostSchema);
    const { room } = await postMessage(actor, { chatId: body.chat_id }, body.message);
    return okJsonText((await chatDocumentJson(room)).body);
  },
});

export const loader = route.loader;
export const action = route.action;
