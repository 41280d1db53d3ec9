import { redirect, type ActionFunctionArgs } from "@remix-run/node";
import { revokeSession } from "~/models/sign-in/session.server";
import { isProviderSession } from "~/models/sign-in/oidc-users.server";
import { providerLogoutUrl } from "~/web/oidc.server";
import { assertSameOriginForPage, authenticate, clearSessionCookie } from "~/web/auth.server";

export async function action({ request }: ActionFunctionArgs) {
  assertSameOriginForPage(request);
  const result = await authenticate(request);
  // A session opened at the identity provider ends there too (RP-initiated logout), when it offers that.
  const viaProvider = result.ok && (await isProviderSession(result.identity.sessionId));
  if (result.ok) await revokeSession(result.identity.sessionId);
  const next = (viaProvider && (await providerLogoutUrl())) || "/login";
  return redirect(next, { headers: { "Set-Cookie": await clearSessionCookie() } });
}

// Signing out changes state, so it is a POST; a GET (a typed URL) just goes to the sign-in page.
export async function loader() {
  return redirect("/login");
}
