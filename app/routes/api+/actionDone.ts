import { markItemDone } from "~/models/moc/action-tasks.server";
import { actionDoneSchema } from "~/models/moc/action-tasks.schema";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

/** POST /api/actionDone: marks one plan item done with a note and, optionally, a file of the MOC as evidence. */
const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, actionDoneSchema);
    return ok(
      await markItemDone(actor, {
        mocId: body.moc_id,
        plan: body.plan,
        itemId: body.item_id,
        note: body.note,
        evidence: body.evidence_id ? { attachmentId: body.evidence_id } : null,
      }),
    );
  },
});

export const loader = route.loader;
export const action = route.action;
