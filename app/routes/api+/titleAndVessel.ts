import { completeMocContext, mocContextSchema } from "~/models/moc/moc-context.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

/** Records the title and vessel a MOC raised without them lacks (docs/decisions/036-vessels-and-crew-access.md). */
const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    return ok(await completeMocContext(actor, await readJson(request, mocContextSchema)));
  },
});

export const loader = route.loader;
export const action = route.action;
