import { z } from "zod";
import { refuseControlCharacters } from "~/models/shared/text-rules";
import { newUserSchema, userIdBody, userUpdateSchema } from "~/models/people/user.schema";
import { createUser, deleteUser, listUsers, listUsersPage, updateUser } from "~/models/people/user.server";
import { usersCsv } from "~/models/records-out/csv-export.server";
import { requireApiUser } from "~/web/auth.server";
import { csvResponse, wantsCsv } from "~/web/csv-download.server";
import { pageResponse, readPage } from "~/web/paging.server";
import { apiJson, apiRoute, ok, readJson, readQuery } from "~/utils/http.server";

/** `search` filters by name or email; control characters are a 400 on it (docs/decisions/028-untrusted-text-and-sign-in-links.md). */
const directoryQuery = z.object({ search: refuseControlCharacters(z.string().optional()) });

const route = apiRoute({
  async GET({ request }) {
    const actor = await requireApiUser(request);
    const { search } = readQuery(request, directoryQuery);
    // `format=csv` or `Accept: text/csv`: the same directory as CSV.
    if (wantsCsv(request)) return csvResponse(usersCsv(actor, search), "users");
    const page = readPage(request);
    if (page) {
      const { rows, next } = await listUsersPage({ search }, page);
      return pageResponse(
        request,
        rows.map((row) => JSON.stringify(row)),
        next,
        page,
      );
    }
    return ok(await listUsers({ search }));
  },
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const input = await readJson(request, newUserSchema);
    const user = await createUser(actor, input);
    return apiJson({ status: 201, data: user }, { status: 201 });
  },
  async PUT({ request }) {
    const actor = await requireApiUser(request);
    return ok(await updateUser(actor, await readJson(request, userUpdateSchema)));
  },
  async DELETE({ request }) {
    const actor = await requireApiUser(request);
    const { _id } = await readJson(request, userIdBody);
    return ok(await deleteUser(actor, _id));
  },
});

export const loader = route.loader;
export const action = route.action;
