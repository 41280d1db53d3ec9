import {
  addReferenceSchema,
  referencesQuerySchema,
  removeReferenceQuerySchema,
} from "~/models/records/references.schema";
import { addReference, listReferences, removeReference } from "~/models/records/references.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson, readQuery } from "~/utils/http.server";

/**
 * A record's external references (issue 42, docs/decisions/057-record-links-and-references.md):
 * GET lists them for those who read the record; POST adds one (201; 409 when the record already
 * carries it); DELETE removes one. Each change is in the record's audit chain.
 */
const route = apiRoute({
  async GET({ request }) {
    const actor = await requireApiUser(request);
    const { record } = readQuery(request, referencesQuerySchema);
    return ok({ references: await listReferences(actor, record) });
  },
  async POST({ request }) {
    const actor = await requireApiUser(request);
    return ok(await addReference(actor, await readJson(request, addReferenceSchema)), 201);
  },
  async DELETE({ request }) {
    const actor = await requireApiUser(request);
    const { id } = readQuery(request, removeReferenceQuerySchema);
    return ok(await removeReference(actor, id));
  },
});

export const loader = route.loader;
export const action = route.action;
