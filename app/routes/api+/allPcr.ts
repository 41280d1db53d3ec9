import { pcrListCsv } from "~/models/pcr/pcr-list.server";
import { csvResponse, wantsCsv } from "~/web/csv-download.server";
import { listPcrs, listPcrsPage, pcrListFilter, pcrListQuerySchema } from "~/models/pcr/pcr-list.server";
import { requireApiUser } from "~/web/auth.server";
import { pageResponse, readPage } from "~/web/paging.server";
import { apiRoute, ok, readQuery } from "~/utils/http.server";

/** The PCRs the caller may see (docs/api-contract.md, "PCR"). */
const route = apiRoute({
  async GET({ request }) {
    const user = await requireApiUser(request);
    // `format=csv` or `Accept: text/csv`: the PCR list page's rows, with its filters, as CSV.
    if (wantsCsv(request)) {
      const query = readQuery(request, pcrListQuerySchema);
      return csvResponse(pcrListCsv(user, pcrListFilter(query)), "pcrs");
    }
    const page = readPage(request);
    if (page) {
      const { rows, next } = await listPcrsPage(user, page);
      return pageResponse(
        request,
        rows.map((row) => JSON.stringify(row)),
        next,
        page,
      );
    }
    return ok(await listPcrs(user));
  },
});

export const loader = route.loader;
export const action = route.action;
