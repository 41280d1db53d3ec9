// GET and PATCH (partial update) /api/oldPcr/[id].
import { archiveItemRoute } from "~/web/archive-api.server";

const route = archiveItemRoute("pcr");

export const loader = route.loader;
export const action = route.action;
