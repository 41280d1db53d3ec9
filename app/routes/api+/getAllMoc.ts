import { listMocs, mocListCompanion } from "~/models/moc.server";
import { requireApiUserWith } from "~/web/auth.server";
import { apiRoute, okJsonBody } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request }) {
    const { user, value: tag } = await requireApiUserWith(request, mocListCompanion("getAllMoc"));
    return okJsonBody(request, await listMocs("getAllMoc", user, tag));
  },
});

export const loader = route.loader;
export const action = route.action;
