/**
 * Sends a signed-in person to the identity provider to sign in again (prompt=login, max_age=0)
 * before a signature, when passwords are off for them (app/web/reauth.server.ts). Comes back to
 * `redirectTo`.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { requirePageIdentity } from "~/web/auth.server";
import { startFlow } from "~/web/oidc.server";
import { oidcPageError } from "~/web/oidc-page.server";
import { OidcRefused } from "~/components/oidc";

export default OidcRefused;

async function start(request: Request) {
  const identity = await requirePageIdentity(request);
  const url = new URL(request.url);
  let redirectTo = url.searchParams.get("redirectTo");
  if (request.method === "POST") {
    const form = await request.formData().catch(() => null);
    const posted = form?.get("redirectTo");
    if (typeof posted === "string") redirectTo = posted;
  }
  return oidcPageError(() => startFlow(redirectTo ?? "/", identity));
}

export const loader = ({ request }: LoaderFunctionArgs) => start(request);
export const action = ({ request }: ActionFunctionArgs) => start(request);
