/**
 * "I was asked again": the one check a signature (and /api/verify) makes that the signer is who
 * the session says (docs/decisions/029-oidc-and-notifications.md). With passwords on, or for the
 * break-glass admin, it is the password, spent against the shared failure budgets
 * (`checkCredentials`). With PASSWORD_SIGN_IN=off it is a fresh sign-in at the identity provider
 * (prompt=login, max_age=0, through /auth/oidc/reauth) made in this session in the last five
 * minutes; each one is spent by the check it passes. One function for the PCR page and
 * POST /api/pcr/signatures (docs/decisions/026-four-eyes-by-record.md).
 */
import { env } from "~/utils/env.server";
import { Forbidden, Unauthorized } from "~/utils/errors";
import { freshReauthentication, spendReauthentication } from "~/models/sign-in/oidc-users.server";
import { authenticate, checkCredentials, type Identity } from "./auth.server";
import { REAUTH_WINDOW_SECONDS } from "./oidc.server";
import { passwordAllowedFor } from "./password-policy.server";
import type { PublicUser } from "~/models/people/user.server";

export const REAUTH_REQUIRED = "Signing needs your password again (send it as password)";
export const REAUTH_FAILED = "The password is not correct";

/** How this person re-authenticates: their password, or a fresh sign-in at the provider. */
export const reauthMethodFor = (user: { email: string }): "password" | "provider" =>
  passwordAllowedFor(user.email) ? "password" : "provider";

/** The link that sends the person to the provider to confirm, coming back to `back`. */
export const reauthLink = (back: string) => `/auth/oidc/reauth?redirectTo=${encodeURIComponent(back)}`;

export const reauthNeeded = (back = "/") =>
  `Confirm it is you with ${env().OIDC_DISPLAY_NAME} first (${reauthLink(back)}), then sign within five minutes`;

/**
 * Re-authenticates the identity's person for one signature: their `password` when passwords are
 * allowed for them, else the session's fresh provider re-authentication (spent here). Throws 401
 * (wrong password), 429 (budget spent) or 403 (no fresh confirmation at the provider).
 */
export async function reauthenticate(
  identity: Pick<Identity, "user" | "sessionId">,
  request: Request,
  proof: { password?: string | null; back?: string },
): Promise<void> {
  if (reauthMethodFor(identity.user) === "password") {
    const password = proof.password ?? "";
    // A missing password is a question, not an attempt: it spends no budget.
    if (!password) throw new Unauthorized(REAUTH_REQUIRED);
    try {
      const who = await checkCredentials(identity.user.email, password, request);
      if (who._id !== identity.user._id) throw new Unauthorized(REAUTH_FAILED);
    } catch (error) {
      if (error instanceof Unauthorized) throw new Unauthorized(REAUTH_FAILED);
      throw error;
    }
    return;
  }
  if (!(await spendReauthentication(identity.sessionId, REAUTH_WINDOW_SECONDS))) {
    throw new Forbidden(reauthNeeded(proof.back));
  }
}

/** When the session's fresh provider confirmation was made, if one is waiting to be spent. */
export const pendingReauthentication = (sessionId: string) => freshReauthentication(sessionId, REAUTH_WINDOW_SECONDS);

/**
 * /api/verify for a person whose password is off: the caller must be that person's own session
 * (cookie or bearer) with a fresh confirmation at the provider, which this spends.
 */
export async function verifyWithProvider(request: Request, email: string): Promise<PublicUser> {
  const result = await authenticate(request);
  const identity = result.ok ? result.identity : null;
  if (!identity || identity.user.email.toLowerCase() !== email.trim().toLowerCase()) {
    throw new Forbidden(
      `Password sign-in is turned off for this account: sign in, confirm it is you with ${env().OIDC_DISPLAY_NAME} (${reauthLink("/")}), and call this again with that session`,
    );
  }
  await reauthenticate(identity, request, {});
  return identity.user;
}
