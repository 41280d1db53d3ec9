import { pcrSummary } from "~/models/pcr.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, okJsonText } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request }) {
    return okJsonText(await pcrSummary(await requireApiUser(request)));
  },
});

export const loader = route.loader;
export const action = route.action;
