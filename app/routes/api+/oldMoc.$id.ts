// GET and PATCH (partial update) /api/oldMoc/[id].
import { archiveItemRoute } from "~/web/archive-api.server";

const route = archiveItemRoute("moc");

export const loader = route.loader;
export const action = route.action;
