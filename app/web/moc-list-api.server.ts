/**
 * GET /api/newmoc and /api/getAllMoc: one list handler for both. The query's filters and order
 * (the MOC list page's: q, status, department, vessel, scope, state, overdue, temporary, risk,
 * sort) are read once and applied in SQL to the JSON list, its pages and its CSV alike
 * (docs/api-contract.md, "Lists").
 */
import type { MocList } from "~/models/authz/authz.server";
import { mocListCsv } from "~/models/moc/moc-list.server";
import {
  isWholeMocList,
  mocListDocuments,
  mocListDocumentsPage,
  mocListFilter,
  mocListQuerySchema,
  mocOrderSize,
} from "~/models/moc/moc-list.server";
import { listMocs, mocListCompanion } from "~/models/moc/moc.server";
import { holdsVersion, okJsonBody, readQuery } from "~/utils/http.server";
import { requireApiUser, requireApiUserWith } from "./auth.server";
import { csvResponse, wantsCsv } from "./csv-download.server";
import { pageResponse, readPage } from "./paging.server";

const CSV_ROWS: Record<"newmoc" | "getAllMoc", MocList> = { newmoc: "newmoc", getAllMoc: "visible" };

export async function mocListResponse(request: Request, list: "newmoc" | "getAllMoc", csvName: string) {
  const query = readQuery(request, mocListQuerySchema);
  const filter = mocListFilter(query);
  const page = readPage(request, query.sort, mocOrderSize(query.sort));
  // The whole list in its own order: the stored body with its ETag (one round trip when unchanged).
  if (!page && !wantsCsv(request) && isWholeMocList(query)) {
    const { user, value: tag } = await requireApiUserWith(request, mocListCompanion(list));
    // The version the client holds is the one the session lookup read: 304 without reading the list.
    if (tag && holdsVersion(request, tag)) return okJsonBody(request, { etag: tag, body: new Uint8Array() });
    return okJsonBody(request, await listMocs(list, user, tag));
  }
  const user = await requireApiUser(request);
  // The CSV of /api/getAllMoc is the MOC list page's rows (every MOC the caller may read, as its
  // OpenAPI entry says), a wider set than the JSON's for a standard user; /api/newmoc's are its own.
  if (wantsCsv(request)) return csvResponse(mocListCsv(user, filter, CSV_ROWS[list]), csvName);
  if (page) {
    const { rows, next } = await mocListDocumentsPage(user, list, filter, page);
    return pageResponse(request, rows, next, page);
  }
  const data = await mocListDocuments(user, list, filter);
  return okJsonBody(request, { etag: null, body: Buffer.from(`{"data":${data},"status":200}`) });
}
