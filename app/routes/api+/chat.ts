import { chatPostSchema, chatQuerySchema } from "~/models/chat.schema";
import { chatDocumentJson, openRoom, postMessage } from "~/models/chat.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, okJsonText, readJson, readQuery } from "~/utils/http.server";

const JSON_HEADERS = { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" };

const route = apiRoute({
  /** `{ chatData: { _id, messages }, user: { _id, name } }`; `after=<seq>` for only the newer messages. */
  async GET({ request }) {
    const actor = await requireApiUser(request);
    const { chat_id, after } = readQuery(request, chatQuerySchema);
    const room = await openRoom(actor, { chatId: chat_id });
    const chatData = await chatDocumentJson(room, { after });
    const user = JSON.stringify({ _id: actor._id, name: actor.name });
    return new Response(`{"chatData":${chatData},"user":${user}}`, { headers: JSON_HEADERS });
  },
  /** Appends the message as the caller; `{ status: 200, data: <the room after the change> }`. */
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, chatPostSchema);
    const { room } = await postMessage(actor, { chatId: body.chat_id }, body.message);
    return okJsonText(await chatDocumentJson(room));
  },
});

export const loader = route.loader;
export const action = route.action;
