import { z } from "zod";
import { uuid } from "~/models/moc.schema";
import { getMoc } from "~/models/moc.server";
import { requireApiUser } from "~/utils/auth.server";
import { apiJson, apiRoute, readQuery } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request }) {
    const actor = await requireApiUser(request);
    const { moc_id } = readQuery(request, z.object({ moc_id: uuid("MOC id") }));
    return apiJson(await getMoc(actor, moc_id));
  },
});

export const loader = route.loader;
export const action = route.action;
