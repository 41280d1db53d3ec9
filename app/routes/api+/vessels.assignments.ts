import { assignmentBodySchema, assignmentIdQuery, assignmentQuerySchema } from "~/models/fleet/vessel.schema";
import { addAssignment, listAssignments, removeAssignment } from "~/models/fleet/vessel.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson, readQuery } from "~/utils/http.server";

/** Crew assignments to vessels for periods (docs/decisions/036-vessels-and-crew-access.md): admins write them. */
const route = apiRoute({
  async GET({ request }) {
    const actor = await requireApiUser(request);
    return ok(await listAssignments(actor, readQuery(request, assignmentQuerySchema)));
  },
  async POST({ request }) {
    const actor = await requireApiUser(request);
    return ok(await addAssignment(actor, await readJson(request, assignmentBodySchema)));
  },
  async DELETE({ request }) {
    const actor = await requireApiUser(request);
    const { id } = readQuery(request, assignmentIdQuery);
    return ok(await removeAssignment(actor, id));
  },
});

export const loader = route.loader;
export const action = route.action;
