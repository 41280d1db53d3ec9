// GET, POST, PUT and DELETE /api/oldPcr: legacy PCR records (clarifications section 10).
import { archiveCollectionRoute } from "~/utils/archive-api.server";

const route = archiveCollectionRoute("pcr");

export const loader = route.loader;
export const action = route.action;
