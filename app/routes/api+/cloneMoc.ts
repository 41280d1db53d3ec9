import { cloneMocSchema } from "~/models/moc/moc.schema";
import { cloneMoc } from "~/models/moc/moc.server";
import { requireApiUser } from "~/web/auth.server";
import { apiJson, apiRoute, readJson } from "~/utils/http.server";

const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const { old_moc } = await readJson(request, cloneMocSchema);
    const moc = await cloneMoc(actor, old_moc._id);
    return apiJson({ status: 200, body: `MOC cloned as ${moc.serial_num}`, moc });
  },
});

export const loader = route.loader;
export const action = route.action;
