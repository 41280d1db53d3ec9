import { linkIdQuerySchema, linksQuerySchema, newLinkSchema } from "~/models/records/record-links.schema";
import { linkRecords, linksOf, unlinkRecord } from "~/models/records/record-links.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson, readQuery } from "~/utils/http.server";
import { getDb } from "~/utils/db.server";

/**
 * Links between records (issue 42, docs/decisions/057-record-links-and-references.md): GET a
 * record's links the caller may see (both ends readable), each from that record's side; POST links
 * two records (201; the same active link again answers it with 200 and `created: false`); DELETE
 * removes one (kept in the history).
 */
const route = apiRoute({
  async GET({ request }) {
    const actor = await requireApiUser(request);
    const { record } = readQuery(request, linksQuerySchema);
    const { record: described, links } = await linksOf(actor, record);
    return ok({ record: described, links });
  },
  async POST({ request }) {
    const actor = await requireApiUser(request);
    const { link, created } = await linkRecords(getDb(), actor, await readJson(request, newLinkSchema));
    return ok({ ...link, created }, created ? 201 : 200);
  },
  async DELETE({ request }) {
    const actor = await requireApiUser(request);
    const { id } = readQuery(request, linkIdQuerySchema);
    return ok(await unlinkRecord(getDb(), actor, id));
  },
});

export const loader = route.loader;
export const action = route.action;
