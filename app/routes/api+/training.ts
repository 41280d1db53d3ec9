import { setTrainingAttendees } from "~/models/moc/training.server";
import { trainingSchema } from "~/models/moc/training.schema";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

/** POST /api/training: makes an action-plan item a training, naming who must attend (docs/decisions/056-training.md). */
const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, trainingSchema);
    return ok(
      await setTrainingAttendees(actor, { mocId: body.moc_id, itemId: body.item_id, attendees: body.attendees }),
    );
  },
});

export const loader = route.loader;
export const action = route.action;
