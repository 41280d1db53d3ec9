import { implementerDraftSchema } from "~/models/moc/moc.schema";
import { saveImplementerDraft } from "~/models/moc/moc.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, issuesUnder, ok, readJson } from "~/utils/http.server";

/** Saves Part B as a draft and assigns the approver, without moving the MOC. */
const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, implementerDraftSchema);
    return ok(
      await issuesUnder("implementer_form", () => saveImplementerDraft(actor, body.moc_id, body.implementer_form)),
    );
  },
});

export const loader = route.loader;
export const action = route.action;
