import { authenticate } from "~/web/auth.server";
import { apiJson, apiRoute, errorResponse } from "~/utils/http.server";

const route = apiRoute({
  async GET({ request }) {
    const result = await authenticate(request);
    // The contract's three messages (docs/api-contract.md): expired, not yet valid, or anything else.
    if (!result.ok) return errorResponse(401, result.message);
    const { _id, name, email, role, department, access, position } = result.identity.user;
    return apiJson({ userData: { _id, name, email, role, department, access, position }, status: 200 });
  },
});

export const loader = route.loader;
export const action = route.action;
