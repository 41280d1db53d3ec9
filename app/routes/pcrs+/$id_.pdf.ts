import type { LoaderFunctionArgs } from "@remix-run/node";
import { pdfResponse, pcrRecordFor } from "~/web/record-out.server";

/** The PCR as a PDF (the print view's content), for whoever may see the PCR. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  return pdfResponse(await pcrRecordFor(request, params.id));
}
