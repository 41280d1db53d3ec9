import type { LoaderFunctionArgs } from "@remix-run/node";
import { mocPdfResponse } from "~/web/record-out.server";

/** The MOC as a PDF (the print view's content, made on the PDF worker thread), for whoever may see the MOC. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return mocPdfResponse(request, params.id);
}
