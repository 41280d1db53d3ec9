// GET, POST, PUT and DELETE /api/oldMoc: legacy MOC records (clarifications section 10).
import { archiveCollectionRoute } from "~/utils/archive-api.server";

const route = archiveCollectionRoute("moc");

export const loader = route.loader;
export const action = route.action;
