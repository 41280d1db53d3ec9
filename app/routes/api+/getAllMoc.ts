import { listMocs, listMocsPage, mocListCompanion } from "~/models/moc.server";
import { mocListCsv } from "~/models/csv-export.server";
import { csvResponse, wantsCsv } from "~/web/csv-download.server";
import { mocListFilter, mocListQuerySchema } from "~/models/moc-list.server";
import { requireApiUser, requireApiUserWith } from "~/web/auth.server";
import { pageResponse, readPage } from "~/web/paging.server";
import { apiRoute, okJsonBody, readQuery } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request }) {
    // `format=csv` or `Accept: text/csv`: the MOC list page's rows, with its filters, as CSV.
    if (wantsCsv(request)) {
      const user = await requireApiUser(request);
      const query = readQuery(request, mocListQuerySchema);
      return csvResponse(mocListCsv(user, mocListFilter(query)), "mocs");
    }
    const page = readPage(request);
    if (page) {
      const { rows, next } = await listMocsPage("getAllMoc", await requireApiUser(request), page);
      return pageResponse(request, rows, next, page.limit);
    }
    const { user, value: tag } = await requireApiUserWith(request, mocListCompanion("getAllMoc"));
    return okJsonBody(request, await listMocs("getAllMoc", user, tag));
  },
});

export const loader = route.loader;
export const action = route.action;
