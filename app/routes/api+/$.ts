/**
 * Any /api address no other route matches: the API's JSON 404 for every method, rather than the
 * HTML page `app/routes/$.tsx` gives browsers.
 */
import { errorResponse } from "~/utils/http.server";

const notFound = ({ request }: { request: Request }) =>
  errorResponse(404, `No API route at ${new URL(request.url).pathname}; /api/openapi.json lists them`);

export const loader = notFound;
export const action = notFound;
