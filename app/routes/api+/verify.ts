import { verifyQuery } from "~/models/user.schema";
import { assertJsonBody, assertNotFromAnotherSite, checkCredentials } from "~/web/auth.server";
import { apiJson, apiRoute, readJson, readQuery } from "~/utils/http.server";

/**
 * Public and rate limited: checks an email and password without opening a session. POST (a JSON
 * body `{ email, password }`) is the form to use; GET (the spec's query string) keeps answering
 * existing clients. Either is refused (403, no attempt counted) when a browser says another site
 * started it, so a web page cannot spend an account's failure budget through its visitors
 * (docs/decisions/028-untrusted-text-and-sign-in-links.md).
 */
const route = apiRoute({
  async GET({ request }) {
    assertNotFromAnotherSite(request);
    const { email, password } = readQuery(request, verifyQuery);
    const user = await checkCredentials(email, password, request);
    return apiJson({ message: "Credentials are valid", status: 200, user });
  },
  async POST({ request }) {
    assertNotFromAnotherSite(request);
    assertJsonBody(request);
    const { email, password } = await readJson(request, verifyQuery);
    const user = await checkCredentials(email, password, request);
    return apiJson({ message: "Credentials are valid", status: 200, user });
  },
});

export const loader = route.loader;
export const action = route.action;
