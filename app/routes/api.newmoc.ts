import { newMocSchema } from "~/models/moc.schema";
import { createMoc, listMocsForUser } from "~/models/moc.server";
import { requireApiUser } from "~/utils/auth.server";
import { apiJson, apiRoute, okJsonBody, readJson } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request }) {
    return okJsonBody(request, await listMocsForUser(await requireApiUser(request)));
  },
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, newMocSchema);
    return apiJson({ data: await createMoc(actor, body, { submit: true }), status: 200 });
  },
});

export const loader = route.loader;
export const action = route.action;
