import { verifyQuery } from "~/models/user.schema";
import { checkCredentials } from "~/web/auth.server";
import { passwordAllowedFor } from "~/web/password-policy.server";
import { verifyWithProvider } from "~/web/reauth.server";
import { apiJson, apiRoute, readQuery } from "~/utils/http.server";

/** Public and rate limited: checks an email and password without opening a session. */
const route = apiRoute({
  async GET({ request }) {
    const { email, password } = readQuery(request, verifyQuery);
    // PASSWORD_SIGN_IN=off: the caller's own session re-checks with the provider instead.
    const user = passwordAllowedFor(email)
      ? await checkCredentials(email, password, request)
      : await verifyWithProvider(request, email);
    return apiJson({ message: "Credentials are valid", status: 200, user });
  },
});

export const loader = route.loader;
export const action = route.action;
