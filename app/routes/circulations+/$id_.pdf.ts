import type { LoaderFunctionArgs } from "@remix-run/node";
import { circulationPdfResponse } from "~/web/circulation-out.server";

/** One circulation's tracking as a PDF (the print view's content, made on the PDF worker thread), for whoever may see the tracking. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return circulationPdfResponse(request, params.id);
}
