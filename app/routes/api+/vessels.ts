import {
  optionalVesselIdQuery,
  vesselBodySchema,
  vesselIdQuery,
  vesselUpdateSchema,
} from "~/models/fleet/vessel.schema";
import { createVessel, deleteVessel, getVessel, listVessels, updateVessel } from "~/models/fleet/vessel.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson, readQuery } from "~/utils/http.server";

/** The vessel register (docs/decisions/036-vessels-and-crew-access.md): anyone signed in reads it, admins write it. */
const route = apiRoute({
  async GET({ request }) {
    await requireApiUser(request);
    const { id } = readQuery(request, optionalVesselIdQuery);
    return ok(id ? await getVessel(id) : await listVessels());
  },
  async POST({ request }) {
    const actor = await requireApiUser(request);
    return ok(await createVessel(actor, await readJson(request, vesselBodySchema)));
  },
  async PUT({ request }) {
    const actor = await requireApiUser(request);
    const { id } = readQuery(request, vesselIdQuery);
    return ok(await updateVessel(actor, id, await readJson(request, vesselUpdateSchema)));
  },
  async DELETE({ request }) {
    const actor = await requireApiUser(request);
    const { id } = readQuery(request, vesselIdQuery);
    return ok(await deleteVessel(actor, id));
  },
});

export const loader = route.loader;
export const action = route.action;
