import { recordAttendance } from "~/models/moc/training.server";
import { trainingAttendanceSchema } from "~/models/moc/training.schema";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

/** POST /api/trainingAttendance: records who attended a training on a date (docs/decisions/056-training.md). */
const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, trainingAttendanceSchema);
    return ok(
      await recordAttendance(actor, {
        mocId: body.moc_id,
        itemId: body.item_id,
        attendees: body.attendees,
        date: body.date,
        attended: body.attended,
        note: body.note,
      }),
    );
  },
});

export const loader = route.loader;
export const action = route.action;
