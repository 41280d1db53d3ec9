/**
 * Where the identity provider sends the browser back (app/web/oidc.server.ts). A sign-in opens
 * the app's own session and goes on to `redirectTo`; a refusal is this page, saying why.
 */
import { redirect, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { OidcRefused } from "~/components/oidc";
import { redirectWithFlash } from "~/utils/flash.server";
import { authenticate } from "~/web/auth.server";
import { finishFlow } from "~/web/oidc.server";
import { oidcPageError } from "~/web/oidc-page.server";

export const meta: MetaFunction = () => [{ title: "Sign in · Change Management" }];

export async function loader({ request }: LoaderFunctionArgs) {
  return oidcPageError(async () => {
    const current = await authenticate(request);
    const outcome = await finishFlow(request, current.ok ? current.identity : null);
    if (outcome.kind === "reauthenticated") {
      return redirectWithFlash(
        outcome.redirectTo,
        { kind: "success", message: "Confirmed: it is you. Sign within five minutes." },
        outcome.headers,
      );
    }
    return redirect(outcome.redirectTo, { headers: outcome.headers });
  });
}

export default OidcRefused;
