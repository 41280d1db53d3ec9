import { listPcrs } from "~/models/pcr.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok } from "~/utils/http.server";

/** The PCRs the caller may see (spec access rule 2). */
const route = apiRoute({
  async GET({ request }) {
    return ok(await listPcrs(await requireApiUser(request)));
  },
});

export const loader = route.loader;
export const action = route.action;
