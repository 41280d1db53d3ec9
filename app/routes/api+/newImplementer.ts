import { newMocSchema } from "~/models/moc/moc.schema";
import { createMoc } from "~/models/moc/moc.server";
import { followUpRef } from "~/models/moc/follow-up.server";
import { requireApiUser } from "~/web/auth.server";
import { apiJson, apiRoute, readJson } from "~/utils/http.server";

/** Legacy twin of POST /api/newmoc (docs/decisions/004-moc-workflow.md): same body, same effect. */
const route = apiRoute({
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
