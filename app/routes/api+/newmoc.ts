import { newMocSchema } from "~/models/moc.schema";
import { createMoc, listMocs, mocListCompanion } from "~/models/moc.server";
import { requireApiUser, requireApiUserWith } from "~/web/auth.server";
import { apiJson, apiRoute, okJsonBody, readJson } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request }) {
    const { user, value: tag } = await requireApiUserWith(request, mocListCompanion("newmoc"));
    return okJsonBody(request, await listMocs("newmoc", user, tag));
  },
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, newMocSchema);
    return apiJson({ data: await createMoc(actor, body, { submit: true }), status: 200 });
  },
});

export const loader = route.loader;
export const action = route.action;
