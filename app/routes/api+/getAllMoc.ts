import { apiRoute } from "~/utils/http.server";
import { mocListResponse } from "~/web/moc-list-api.server";

const route = apiRoute({
  // JSON (whole, filtered, or a page) or CSV, with the MOC list page's filters and order.
  GET: ({ request }) => mocListResponse(request, "getAllMoc", "mocs"),
});

export const loader = route.loader;
export const action = route.action;
