import { listReferenceTypes } from "~/models/records/references.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok } from "~/utils/http.server";

/**
 * The external reference types (issue 42, docs/decisions/057-record-links-and-references.md), in the
 * list's order, deactivated ones marked, with their URL templates: anyone signed in reads them.
 * Admins change them on /admin/references.
 */
const route = apiRoute({
  async GET({ request }) {
    await requireApiUser(request);
    return ok(
      (await listReferenceTypes()).map(({ id, name, urlTemplate, sort, active }) => ({
        id,
        name,
        urlTemplate,
        sort,
        active,
      })),
    );
  },
});

export const loader = route.loader;
export const action = route.action;
