import { restoreMocSchema } from "~/models/moc/moc.schema";
import { restoreMoc } from "~/models/moc/moc.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

/** An admin restores a deleted MOC (docs/decisions/034-approved-content-and-deleting.md). */
const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const { moc_id } = await readJson(request, restoreMocSchema);
    return ok(await restoreMoc(actor, moc_id));
  },
});

export const loader = route.loader;
export const action = route.action;
