import type { LoaderFunctionArgs } from "@remix-run/node";
import { circulationCsvResponse } from "~/web/circulation-out.server";

/** One circulation's tracking as CSV (the print view's content), for whoever may see the tracking. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return circulationCsvResponse(request, params.id);
}
