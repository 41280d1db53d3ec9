// GET, POST, PUT and DELETE /api/oldMoc: legacy MOC records (docs/decisions/010-legacy-archive.md).
import { archiveCollectionRoute } from "~/web/archive-api.server";

const route = archiveCollectionRoute("moc");

export const loader = route.loader;
export const action = route.action;
