import { verifyQuery } from "~/models/people/user.schema";
import { assertJsonBody, assertNotFromAnotherSite, checkCredentials } from "~/web/auth.server";
import { passwordAllowedFor } from "~/web/password-policy.server";
import { verifyWithProvider } from "~/web/reauth.server";
import { apiJson, apiRoute, readJson, readQuery } from "~/utils/http.server";

/**
 * Public and rate limited: checks an email and password without opening a session. POST (a JSON
 * body `{ email, password }`) is the form to use; GET (the contract's query string, docs/api-contract.md) keeps answering
 * existing clients. Either is refused (403, no attempt counted) when a browser says another site
 * started it, so a web page cannot spend an account's failure budget through its visitors
 * (docs/decisions/028-untrusted-text-and-sign-in-links.md). With PASSWORD_SIGN_IN=off the
 * caller's own session re-checks with the identity provider instead (decision 029).
 */
async function verify(request: Request, { email, password }: { email: string; password: string }) {
  const user = passwordAllowedFor(email)
    ? await checkCredentials(email, password, request)
    : await verifyWithProvider(request, email);
  return apiJson({ message: "Credentials are valid", status: 200, user });
}

const route = apiRoute({
  async GET({ request }) {
    assertNotFromAnotherSite(request);
    return verify(request, readQuery(request, verifyQuery));
  },
  async POST({ request }) {
    assertNotFromAnotherSite(request);
    assertJsonBody(request);
    return verify(request, await readJson(request, verifyQuery));
  },
});

export const loader = route.loader;
export const action = route.action;
