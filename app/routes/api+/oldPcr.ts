// GET, POST, PUT and DELETE /api/oldPcr: legacy PCR records (docs/decisions/010-legacy-archive.md).
import { archiveCollectionRoute } from "~/web/archive-api.server";

const route = archiveCollectionRoute("pcr");

export const loader = route.loader;
export const action = route.action;
