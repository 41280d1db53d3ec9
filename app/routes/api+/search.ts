import { searchQuerySchema } from "~/models/records/search.schema";
import { search } from "~/models/records/search.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readQuery } from "~/utils/http.server";

/** Search over the MOCs, PCRs and archive records the caller may read (docs/decisions/039-search.md). */
const route = apiRoute({
  async GET({ request }) {
    const user = await requireApiUser(request);
    const { q } = readQuery(request, searchQuerySchema);
    return ok(await search(user, q));
  },
});

export const loader = route.loader;
export const action = route.action;
