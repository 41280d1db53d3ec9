import { idQuery } from "~/models/moc/moc.schema";
import { newPcrSchema, updatePcrSchema } from "~/models/pcr/pcr.schema";
import { createPcr, deletePcr, updatePcr } from "~/models/pcr/pcr.server";
import { requireApiUser } from "~/web/auth.server";
import { apiJson, apiRoute, ok, readJson, readQuery } from "~/utils/http.server";

const pcrId = idQuery("PCR id");

const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, newPcrSchema);
    return apiJson({ success: true, data: await createPcr(actor, body) });
  },
  async PUT({ request }) {
    const actor = await requireApiUser(request);
    const { id } = readQuery(request, pcrId);
    return ok(await updatePcr(actor, id, await readJson(request, updatePcrSchema)));
  },
  async DELETE({ request }) {
    const actor = await requireApiUser(request);
    const { id } = readQuery(request, pcrId);
    return ok(await deletePcr(actor, id));
  },
});

export const loader = route.loader;
export const action = route.action;
