import { DomainError } from "~/utils/errors";
import { createCookie } from "@remix-run/node";

/** The round trip's cookie, expired: a refused callback cannot be tried again with it. */
const expiredFlow = () =>
  createCookie("oidc_flow", { path: "/auth/oidc", maxAge: 0, expires: new Date(0) }).serialize("");

/**
 * Runs a step of the OIDC round trip for a page: a domain error becomes the callback page's
 * message with its status (nothing was written), and the round trip's cookie is dropped.
 */
export async function oidcPageError(run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof DomainError) {
      return Response.json(
        { message: error.message },
        { status: error.status, headers: { "Set-Cookie": await expiredFlow(), "Cache-Control": "no-store" } },
      );
    }
    throw error;
  }
}
