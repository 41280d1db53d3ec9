import { verifyQuery } from "~/models/user.schema";
import { checkCredentials } from "~/web/auth.server";
import { apiJson, apiRoute, readQuery } from "~/utils/http.server";

/** Public and rate limited: checks an email and password without opening a session. */
const route = apiRoute({
  async GET({ request }) {
    const { email, password } = readQuery(request, verifyQuery);
    const user = await checkCredentials(email, password, request);
    return apiJson({ message: "Credentials are valid", status: 200, user });
  },
});

export const loader = route.loader;
export const action = route.action;
