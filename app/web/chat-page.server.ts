/**
 * The chat panel's server side, shared by the MOC and PCR pages: the panel's first messages (the
 * page loader), the message form (the page action: redirect after a plain post, data for the
 * panel's fetcher), and the panel's poll and "older messages" reads (a resource route per record
 * kind). All of it goes through models/chat.server.ts, like /api/chat.
 */
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "@remix-run/node";
import type { ChatPanelData } from "~/components/chat";
import { chatFormSchema, chatPageQuerySchema } from "~/models/records/chat.schema";
import {
  latestMessages,
  messagesAfter,
  openRoom,
  postMessage,
  type ChatRoom,
  type RoomRef,
} from "~/models/records/chat.server";
import type { PublicUser } from "~/models/people/user.server";
import { apiJson, readQuery } from "~/utils/http.server";
import { runForPage } from "~/utils/page.server";

const paths = (room: ChatRoom) =>
  room.kind === "moc"
    ? { record: `/mocs/${room.recordId}`, action: `/mocs/${room.recordId}?index`, poll: `/mocs/${room.recordId}/chat` }
    : { record: `/pcrs/${room.recordId}`, action: `/pcrs/${room.recordId}`, poll: `/pcrs/${room.recordId}/chat` };

/**
 * What the panel shows first: the latest messages, or (`?chat_before=<seq>`, the way to older
 * messages without JavaScript) the page of messages before that one.
 */
export async function chatPanelData(request: Request, actor: PublicUser, room: ChatRoom): Promise<ChatPanelData> {
  const raw = new URL(request.url).searchParams.get("chat_before");
  const before = raw && /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
  const { messages, hasOlder } = await latestMessages(actor, room, { before });
  return { paths: paths(room), viewerId: actor._id, messages, hasOlder, before: before ?? null };
}

export const isChatPost = (form: FormData) => form.get("intent") === "chat";

/**
 * The page action's chat branch. A plain form post is answered with a redirect back to the
 * record (the new message shown at the end of the panel); the panel's fetcher (`via=js`) gets
 * the message instead. Invalid input is the form again with the error next to the field.
 */
export async function chatPageAction(form: FormData, actor: PublicUser, ref: RoomRef, here: string) {
  const submission = parseWithZod(form, { schema: chatFormSchema });
  if (submission.status !== "success") return data({ chat: submission.reply() }, { status: 400 });
  const result = await runForPage(() => postMessage(actor, ref, { message: submission.value.message }));
  if (!result.ok) {
    const fieldError = result.error.issues?.find((i) => i.path === "message");
    const reply = fieldError
      ? submission.reply({ fieldErrors: { message: [fieldError.message] } })
      : submission.reply({ formErrors: [result.error.message] });
    return data({ chat: reply }, { status: result.error.status });
  }
  if (form.get("via") === "js") {
    return { chat: submission.reply({ resetForm: true }), posted: result.value.message };
  }
  return redirect(`${here}#chat-end`);
}

/** GET /mocs/:id/chat and /pcrs/:id/chat: `?after=<seq>` (the poll) or `?before=<seq>` (older messages). */
export async function chatReadResponse(request: Request, actor: PublicUser, ref: RoomRef): Promise<Response> {
  const { after, before } = readQuery(request, chatPageQuerySchema);
  const room = await openRoom(actor, ref);
  if (after !== undefined) {
    const { messages, more } = await messagesAfter(actor, room, after);
    return apiJson({ messages, more });
  }
  const { messages, hasOlder } = await latestMessages(actor, room, { before });
  return apiJson({ messages, hasOlder });
}
