import { env } from "./env.server";

/** Headers every response carries (documents add a CSP with a nonce in entry.server). */
export const BASE_SECURITY_HEADERS: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
  "Cross-Origin-Opener-Policy": "same-origin",
};

/** The identity provider's origin, for form-action, when OIDC is configured. */
function providerOrigin(): string {
  const issuer = env().OIDC_ISSUER;
  return issuer ? ` ${new URL(issuer).origin}` : "";
}

export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`,
    // The stylesheet is a file of this origin ('self'); style attributes (React `style`) and the
    // sheet written into a first visit's page (app/utils/stylesheet.server.ts) need 'unsafe-inline'.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    // The sign-in and sign-out forms redirect to the identity provider (docs/decisions/029-oidc-and-notifications.md).
    `form-action 'self'${providerOrigin()}`,
    "frame-ancestors 'none'",
  ].join("; ");
}
