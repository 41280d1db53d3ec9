import { pcrListCsv } from "~/models/pcr/pcr-list.server";
import { pcrListFilter, pcrListQuerySchema, pcrSummary, pcrSummaryPage } from "~/models/pcr/pcr-list.server";
import { requireApiUser } from "~/web/auth.server";
import { csvResponse, wantsCsv } from "~/web/csv-download.server";
import { pageResponse, readPage } from "~/web/paging.server";
import { apiRoute, okJsonText, readQuery } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request }) {
    const actor = await requireApiUser(request);
    // `format=csv` or `Accept: text/csv`: the PCR list page's rows, with its filters, as CSV.
    if (wantsCsv(request)) {
      return csvResponse(pcrListCsv(actor, pcrListFilter(readQuery(request, pcrListQuerySchema))), "pcrs");
    }
    const page = readPage(request);
    if (page) {
      const { rows, next } = await pcrSummaryPage(actor, page);
      return pageResponse(request, rows, next, page);
    }
    return okJsonText(await pcrSummary(actor));
  },
});

export const loader = route.loader;
export const action = route.action;
