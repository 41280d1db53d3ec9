import type { LoaderFunctionArgs } from "@remix-run/node";
import { reviewPackPdfResponse } from "~/web/review-pack.server";

/** The management review pack as a PDF (the page's content, made on the PDF worker thread), for readers of Insight. */
export async function loader({ request }: LoaderFunctionArgs) {
  return reviewPackPdfResponse(request);
}
