import { newMocSchema } from "~/models/moc.schema";
import { createMoc, listMocs, listMocsPage, mocListCompanion } from "~/models/moc.server";
import { mocListCsv } from "~/models/csv-export.server";
import { csvResponse, wantsCsv } from "~/web/csv-download.server";
import { mocListFilter, mocListQuerySchema } from "~/models/moc-list.server";
import { mocScopeOf } from "~/models/authz.server";
import { requireApiUser, requireApiUserWith } from "~/web/auth.server";
import { pageResponse, readPage } from "~/web/paging.server";
import { apiJson, apiRoute, okJsonBody, readJson, readQuery } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request }) {
    // `format=csv` or `Accept: text/csv`: the list page's rows for its filters, limited to the MOCs
    // this list answers (the caller's own, unless admin or HSEQ), as CSV.
    if (wantsCsv(request)) {
      const user = await requireApiUser(request);
      const filter = mocListFilter(readQuery(request, mocListQuerySchema));
      if (mocScopeOf.newmoc(user) === "involved") filter.mine = true;
      return csvResponse(mocListCsv(user, filter), "my-mocs");
    }
    const page = readPage(request);
    if (page) {
      const { rows, next } = await listMocsPage("newmoc", await requireApiUser(request), page);
      return pageResponse(request, rows, next, page.limit);
    }
    const { user, value: tag } = await requireApiUserWith(request, mocListCompanion("newmoc"));
    return okJsonBody(request, await listMocs("newmoc", user, tag));
  },
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const body = await readJson(request, newMocSchema);
    return apiJson({ data: await createMoc(actor, body, { submit: true }), status: 200 });
  },
});

export const loader = route.loader;
export const action = route.action;
