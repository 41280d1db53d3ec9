/**
 * /api/oldMoc and /api/oldPcr (with PATCH /[id]): one route factory for both kinds of legacy
 * record. Writers are checked before the body is read, so a reader learns nothing from validation.
 */
import { z } from "zod";
import { ARCHIVE, archiveFilterSchema, archiveSchemas, type ArchiveKind } from "~/models/archive/archive.schema";
import { archiveCsv } from "~/models/archive/archive.server";
import { csvResponse, wantsCsv } from "./csv-download.server";
import {
  archiveOrderName,
  archiveOrderSize,
  assertCanWrite,
  createArchiveRecord,
  deleteArchiveRecord,
  getArchiveRecord,
  listArchive,
  listArchivePage,
  patchArchiveRecord,
} from "~/models/archive/archive.server";
import { uuid } from "~/models/shared/fields.schema";
import { requireApiUser } from "./auth.server";
import { pageResponse, readPage } from "./paging.server";
import { apiRoute, ok, readJson, readQuery, validate } from "~/utils/http.server";

const idOf = (kind: ArchiveKind) => uuid(`${ARCHIVE[kind].label} id`);

/** GET all, POST, PUT (`_id` in the body; merged as PATCH) and DELETE (`?id=`). */
export function archiveCollectionRoute(kind: ArchiveKind) {
  const schemas = archiveSchemas[kind];
  const idQuery = z.object({ id: idOf(kind) });
  return apiRoute({
    async GET({ request }) {
      const user = await requireApiUser(request);
      // The list's filters and order (the archive page's query: q, status, department, year, sort,
      // dir), read once for JSON and CSV alike, and applied in SQL.
      const filter = readQuery(request, archiveFilterSchema);
      // `format=csv` or `Accept: text/csv`: the same rows as CSV.
      if (wantsCsv(request)) return csvResponse(archiveCsv(user, kind, filter), `archive-${kind}s`);
      const page = readPage(request, archiveOrderName(filter), archiveOrderSize(filter));
      if (page) {
        const { rows, next } = await listArchivePage(user, kind, filter, page);
        return pageResponse(
          request,
          rows.map((row) => JSON.stringify(row)),
          next,
          page,
        );
      }
      return ok(await listArchive(user, kind, filter));
    },
    async POST({ request }) {
      const actor = await requireApiUser(request);
      assertCanWrite(actor, kind);
      return ok(await createArchiveRecord(actor, kind, await readJson(request, schemas.create)));
    },
    async PUT({ request }) {
      const actor = await requireApiUser(request);
      assertCanWrite(actor, kind);
      const { _id, ...fields } = await readJson(request, schemas.replace);
      return ok(await patchArchiveRecord(actor, kind, _id, fields));
    },
    async DELETE({ request }) {
      const actor = await requireApiUser(request);
      assertCanWrite(actor, kind);
      const { id } = readQuery(request, idQuery);
      return ok(await deleteArchiveRecord(actor, kind, id));
    },
  });
}

/** GET one and PATCH (a partial update) at /[id]. */
export function archiveItemRoute(kind: ArchiveKind) {
  const idParam = (id: string | undefined) => validate(idOf(kind), id, `The ${ARCHIVE[kind].label} id`);
  return apiRoute({
    async GET({ request, params }) {
      const actor = await requireApiUser(request);
      return ok(await getArchiveRecord(actor, kind, idParam(params.id)));
    },
    async PATCH({ request, params }) {
      const actor = await requireApiUser(request);
      assertCanWrite(actor, kind);
      const id = idParam(params.id);
      return ok(await patchArchiveRecord(actor, kind, id, await readJson(request, archiveSchemas[kind].patch)));
    },
  });
}
