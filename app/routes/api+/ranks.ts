import { listRanks } from "~/models/people/ranks.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok } from "~/utils/http.server";

/** The ranks on board (issue 41), in the list's order, deactivated ones marked: anyone signed in reads them. */
const route = apiRoute({
  async GET({ request }) {
    await requireApiUser(request);
    return ok((await listRanks()).map(({ name, sort, active }) => ({ name, sort, active })));
  },
});

export const loader = route.loader;
export const action = route.action;
