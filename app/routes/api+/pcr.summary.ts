import { pcrSummary, pcrSummaryPage } from "~/models/pcr.server";
import { requireApiUser } from "~/web/auth.server";
import { pageResponse, readPage } from "~/web/paging.server";
import { apiRoute, okJsonText } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request }) {
    const actor = await requireApiUser(request);
    const page = readPage(request);
    if (page) {
      const { rows, next } = await pcrSummaryPage(actor, page);
      return pageResponse(request, rows, next, page.limit);
    }
    return okJsonText(await pcrSummary(actor));
  },
});

export const loader = route.loader;
export const action = route.action;
