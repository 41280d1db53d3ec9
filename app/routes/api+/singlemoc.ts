import { mocIdQuery } from "~/models/moc/moc.schema";
import { getMocJson } from "~/models/moc/moc.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, readQuery } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request }) {
    const actor = await requireApiUser(request);
    const { moc_id } = readQuery(request, mocIdQuery);
    return new Response(await getMocJson(actor, moc_id), {
      headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" },
    });
  },
});

export const loader = route.loader;
export const action = route.action;
