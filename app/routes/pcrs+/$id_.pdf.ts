import type { LoaderFunctionArgs } from "@remix-run/node";
import { pcrPdfResponse } from "~/web/record-out.server";

/** The PCR as a PDF (the print view's content, made on the PDF worker thread), for whoever may see the PCR. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return pcrPdfResponse(request, params.id);
}
