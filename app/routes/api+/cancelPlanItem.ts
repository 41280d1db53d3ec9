import { cancelPlanItemSchema } from "~/models/moc/moc.schema";
import { cancelPlanItem } from "~/models/moc/plan-items.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const { moc_id, ...input } = await readJson(request, cancelPlanItemSchema);
    return ok(await cancelPlanItem(actor, { mocId: moc_id, ...input }));
  },
});

export const loader = route.loader;
export const action = route.action;
