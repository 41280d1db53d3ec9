import { redirect, type ActionFunctionArgs } from "@remix-run/node";
import { revokeSession } from "~/models/session.server";
import { assertSameOriginForPage, authenticate, clearSessionCookie } from "~/web/auth.server";

export async function action({ request }: ActionFunctionArgs) {
  assertSameOriginForPage(request);
  const result = await authenticate(request);
  if (result.ok) await revokeSession(result.identity.sessionId);
  return redirect("/login", { headers: { "Set-Cookie": await clearSessionCookie() } });
}

// Signing out changes state, so it is a POST; a GET (a typed URL) just goes to the sign-in page.
export async function loader() {
  return redirect("/login");
}
