/** The MOC chat panel's reads: new messages after a cursor (its poll) and older ones (JSON). */
import { requireApiUser } from "~/web/auth.server";
import { chatReadResponse } from "~/web/chat-page.server";
import { apiRoute } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request, params }) {
    const actor = await requireApiUser(request);
    return chatReadResponse(request, actor, { mocId: params.id ?? "" });
  },
});

export const loader = route.loader;
export const action = route.action;
