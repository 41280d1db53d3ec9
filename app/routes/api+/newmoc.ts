import { newMocSchema } from "~/models/moc/moc.schema";
import { createMoc } from "~/models/moc/moc.server";
import { followUpRef } from "~/models/moc/follow-up.server";
import { requireApiUser } from "~/web/auth.server";
import { mocListResponse } from "~/web/moc-list-api.server";
import { apiJson, apiRoute, readJson } from "~/utils/http.server";

const route = apiRoute({
  // JSON (whole, filtered, or a page) or CSV, with the list page's filters and order.
  GET: ({ request }) => mocListResponse(request, "newmoc", "my-mocs"),
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const { followUp, ...body } = await readJson(request, newMocSchema);
    return apiJson({
      data: await createMoc(actor, body, { submit: true, followUp: followUp ? followUpRef(followUp) : undefined }),
      status: 200,
    });
  },
});

export const loader = route.loader;
export const action = route.action;
