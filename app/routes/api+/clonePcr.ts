import { clonePcrSchema } from "~/models/pcr/pcr.schema";
import { clonePcr } from "~/models/pcr/pcr.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const { old_pcr } = await readJson(request, clonePcrSchema);
    return ok(await clonePcr(actor, old_pcr.serial_num));
  },
});

export const loader = route.loader;
export const action = route.action;
