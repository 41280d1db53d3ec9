/**
 * Whether passwords still open the door (docs/decisions/029-oidc-and-notifications.md):
 * PASSWORD_SIGN_IN=off leaves them to one break-glass admin (BREAK_GLASS_EMAIL, else ADMIN_EMAIL)
 * for when the identity provider is down; everyone else signs in and re-authenticates there.
 */
import { env } from "~/utils/env.server";

/** Whether `email` may still sign in (and re-authenticate) with a password. */
export function passwordAllowedFor(email: string): boolean {
  const config = env();
  if (config.PASSWORD_SIGN_IN === "on") return true;
  const breakGlass = (config.BREAK_GLASS_EMAIL ?? config.ADMIN_EMAIL ?? "").trim().toLowerCase();
  return Boolean(breakGlass) && email.trim().toLowerCase() === breakGlass;
}

export const passwordSignInOff = () =>
  `Password sign-in is turned off; sign in with ${env().OIDC_DISPLAY_NAME} instead`;
