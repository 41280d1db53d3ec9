import { listAllMocs } from "~/models/moc.server";
import { requireApiUser } from "~/utils/auth.server";
import { apiRoute, okJsonBody } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request }) {
    return okJsonBody(request, await listAllMocs(await requireApiUser(request)));
  },
});

export const loader = route.loader;
export const action = route.action;
