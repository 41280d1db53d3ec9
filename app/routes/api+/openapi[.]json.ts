import { openApiDocument } from "~/web/openapi.server";
import { apiJson, apiRoute } from "~/utils/http.server";

/** GET /api/openapi.json: the OpenAPI 3.1 description of /api (public, like the API's shape). */
const route = apiRoute({
  async GET() {
    return apiJson(openApiDocument());
  },
});

export const loader = route.loader;
export const action = route.action;
