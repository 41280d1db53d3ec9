import { z } from "zod";
import { uuid } from "~/models/moc.schema";
import { deleteMoc } from "~/models/moc.server";
import { requireApiUser } from "~/utils/auth.server";
import { apiRoute, ok, readQuery } from "~/utils/http.server";

const route = apiRoute({
  async DELETE({ request }) {
    const actor = await requireApiUser(request);
    const { id } = readQuery(request, z.object({ id: uuid("MOC id") }));
    return ok(await deleteMoc(actor, id));
  },
});

export const loader = route.loader;
export const action = route.action;
