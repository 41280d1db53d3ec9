/**
 * Starts OpenID Connect sign-in: the login page's button posts here, and a plain link (GET) does
 * the same. `redirectTo` (a same-site path) is where the person lands afterwards.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { assertSameOriginForPage } from "~/web/auth.server";
import { startFlow } from "~/web/oidc.server";
import { oidcPageError } from "~/web/oidc-page.server";
import { OidcRefused } from "~/components/oidc";

export default OidcRefused;

export async function loader({ request }: LoaderFunctionArgs) {
  const redirectTo = new URL(request.url).searchParams.get("redirectTo") ?? "/";
  return oidcPageError(() => startFlow(redirectTo));
}

export async function action({ request }: ActionFunctionArgs) {
  assertSameOriginForPage(request);
  const form = await request.formData().catch(() => null);
  const redirectTo = form?.get("redirectTo");
  return oidcPageError(() => startFlow(typeof redirectTo === "string" ? redirectTo : "/"));
}
