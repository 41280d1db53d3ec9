import { implementerDraftSchema, mocIdQuery, reassignImplementerSchema } from "~/models/moc/moc.schema";
import { assignMocRole, getImplementerForm, saveImplementerDraft } from "~/models/moc/moc.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, issuesUnder, ok, readJson, readQuery } from "~/utils/http.server";

const route = apiRoute({
  /** The implementer form of a MOC the caller may see. */
  async GET({ request }) {
    const actor = await requireApiUser(request);
    const { moc_id } = readQuery(request, mocIdQuery);
    return ok(await getImplementerForm(actor, moc_id));
  },
  /** Same as POST /api/createImplementer. */
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, implementerDraftSchema);
    return ok(
      await issuesUnder("implementer_form", () => saveImplementerDraft(actor, body.moc_id, body.implementer_form)),
    );
  },
  /** Re-assigns the implementer (originator or admin). */
  async PUT({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, reassignImplementerSchema);
    return ok(
      await assignMocRole(
        actor,
        { mocId: body.moc_id, userId: body.implementer_id, role: "implementer" },
        "implementer_id",
      ),
    );
  },
});

export const loader = route.loader;
export const action = route.action;
