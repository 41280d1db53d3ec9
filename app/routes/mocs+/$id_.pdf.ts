import type { LoaderFunctionArgs } from "@remix-run/node";
import { pdfResponse, mocRecordFor } from "~/web/record-out.server";

/** The MOC as a PDF (the print view's content), for whoever may see the MOC. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return pdfResponse(await mocRecordFor(request, params.id));
}
