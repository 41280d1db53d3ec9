import { data, redirect } from "@remix-run/node";
import { createHash } from "node:crypto";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { startPasswordAttempt } from "~/models/people/password-attempts.server";
import { passwordAllowedFor, passwordSignInOff } from "./password-policy.server";
import { isAdmin, type Actor } from "~/models/authz/authz.server";
import { loadSessionUser, type Companion } from "~/models/sign-in/session.server";
import { loginSchema } from "~/models/people/user.schema";
import { toPublicUser, verifyLogin, type PublicUser } from "~/models/people/user.server";
import { env } from "~/utils/env.server";
import { clientAddress } from "~/utils/client-address.server";
import { Conflict, Forbidden, Invalid, Unauthorized, UnsupportedMediaType } from "~/utils/errors";
import { clearSessionCookie, hasSessionCookie, tokenFromCookie } from "~/utils/cookies.server";
import { pageError } from "~/utils/page.server";
import { TOKEN_INVALID, verifyToken } from "~/utils/token.server";
import { oncePerRequest } from "~/utils/request-context.server";

export type Identity = {
  user: PublicUser;
  sessionId: string;
  token: string;
  /** How the token arrived: cookie-authenticated writes get the cross-origin check. */
  via: "cookie" | "bearer";
};

// ---------------------------------------------------------------------------------------------
// The token: a Bearer header, or else the session cookie (cookies.server.ts)

export { clearSessionCookie, sessionCookie } from "~/utils/cookies.server";

async function tokenFrom(request: Request): Promise<{ token: string | null; via: Identity["via"] }> {
  const authorization = request.headers.get("Authorization");
  const bearer = authorization?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
  if (bearer) return { token: bearer, via: "bearer" };
  return { token: await tokenFromCookie(request), via: "cookie" };
}

// ---------------------------------------------------------------------------------------------
// Cross-origin writes (docs/decisions/001-session-tokens.md)

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Refuses a cookie-borne write that another site started. Bearer requests are exempt. */
export function assertSameOrigin(request: Request): void {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return;
  if (request.headers.get("Sec-Fetch-Site") === "cross-site") {
    throw new Forbidden("Cross-site requests are not allowed");
  }
  const origin = request.headers.get("Origin");
  if (!origin) return;
  const allowed = new Set([new URL(request.url).origin, new URL(env().APP_URL).origin]);
  if (!allowed.has(origin)) throw new Forbidden("Requests from another origin are not allowed");
}

/**
 * Refuses any request, a read too, that a browser says another site started (`Sec-Fetch-Site:
 * cross-site`, or an `Origin` of another site): for the public password check, whose failures a
 * web page could otherwise spend from its visitors' browsers (`<img src="/api/verify?...">`).
 * Clients that are not browsers send neither header and pass.
 */
export function assertNotFromAnotherSite(request: Request): void {
  if (request.headers.get("Sec-Fetch-Site") === "cross-site") {
    throw new Forbidden("Requests started by another site are not allowed here");
  }
  const origin = request.headers.get("Origin");
  if (origin === null) return;
  // An opaque origin (`null`: a sandboxed frame, a data: page) is never ours.
  const allowed = new Set([new URL(request.url).origin, new URL(env().APP_URL).origin]);
  if (!allowed.has(origin)) throw new Forbidden("Requests from another origin are not allowed here");
}

/** For pages and page actions: a refused cross-origin write is a 403 response, not a server error. */
export function assertSameOriginForPage(request: Request): void {
  try {
    assertSameOrigin(request);
  } catch (error) {
    if (error instanceof Forbidden) throw data({ message: error.message }, { status: 403 });
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Identifying the caller

/**
 * The 401 of an /api call that carries no credentials at all (no bearer token, no session cookie).
 * GET /api/myUser keeps the contract's "Token claim validation failed" for it (docs/api-contract.md).
 */
export const SIGN_IN_FIRST = "Sign in first";

/** `signedOut`: the request carried no token at all. */
export type AuthResult = { ok: true; identity: Identity } | { ok: false; message: string; signedOut?: true };

/** Who is calling, or why not (one of the three 401 messages). One query. */
export function authenticate(request: Request): Promise<AuthResult> {
  // A page's loaders (the root's and the route's, run together) each ask who is signed in: on a
  // read, one lookup answers them all. Not after an action, which may change the answer.
  if (!SAFE_METHODS.has(request.method.toUpperCase())) return authenticateNow(request);
  // Keyed by a digest of the credentials, so the request's memo never holds the token itself.
  const credentials = createHash("sha256")
    .update(`${request.headers.get("Authorization") ?? ""}\n${request.headers.get("Cookie") ?? ""}`)
    .digest("base64url");
  return oncePerRequest(`authenticate ${credentials}`, () => authenticateNow(request));
}

async function authenticateNow(request: Request): Promise<AuthResult> {
  const { token, via } = await tokenFrom(request);
  if (!token) return { ok: false, message: TOKEN_INVALID, signedOut: true };
  const verified = verifyToken(token);
  if (!verified.ok) return verified;
  const user = await loadSessionUser(verified.payload);
  if (!user) return { ok: false, message: TOKEN_INVALID };
  return { ok: true, identity: { user, sessionId: verified.payload.sid, token: token!, via } };
}

export const JSON_ONLY_MESSAGE = "Send the request body as JSON, with Content-Type: application/json";

/**
 * A cookie-borne write under /api carries a JSON body or none (docs/decisions/028-untrusted-text-and-sign-in-links.md):
 * a page of another site can make a browser post `text/plain` or a form with the visitor's
 * cookie and no `Origin` (older browsers, some redirects), never `application/json` (that
 * needs a CORS preflight this app never grants). Routes whose contract is a multipart upload say
 * so with `multipart`. Bearer requests are exempt: no browser attaches a bearer token by itself.
 */
export function assertJsonBody(request: Request, options: { multipart?: boolean } = {}): void {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return;
  const type = request.headers.get("Content-Type")?.split(";")[0]?.trim().toLowerCase();
  if (!type) {
    const length = request.headers.get("Content-Length");
    const chunked = request.headers.has("Transfer-Encoding");
    if (!chunked && (length === null || length.trim() === "0")) return; // no body at all
  } else if (type === "application/json" || (options.multipart && type === "multipart/form-data")) return;
  throw new UnsupportedMediaType(options.multipart ? `${JSON_ONLY_MESSAGE}, or a multipart form` : JSON_ONLY_MESSAGE);
}

/** What `/api` asks of every caller once identified: our origin and a JSON body for cookie writes, a chosen password. */
function admit(
  request: Request,
  identity: Pick<Identity, "user" | "via">,
  options: { allowNotOnboarded?: boolean; multipart?: boolean },
) {
  if (identity.via === "cookie") {
    assertSameOrigin(request);
    assertJsonBody(request, options);
  }
  if (!options.allowNotOnboarded && !identity.user.onboarded) {
    throw new Forbidden("Choose your own password first (PATCH /api/user with password and currentPassword)");
  }
}

/**
 * For `/api`: the signed-in, onboarded caller, or a 401/403 domain error. Cookie-authenticated
 * writes must come from our own origin.
 */
export async function requireIdentity(
  request: Request,
  options: { allowNotOnboarded?: boolean; multipart?: boolean } = {},
): Promise<Identity> {
  const result = await authenticate(request);
  if (!result.ok) throw new Unauthorized(result.signedOut ? SIGN_IN_FIRST : result.message);
  admit(request, result.identity, options);
  return result.identity;
}

export async function requireApiUser(request: Request): Promise<PublicUser> {
  return (await requireIdentity(request)).user;
}

/**
 * requireApiUser, and in the same round trip a value computed for the caller (a list's fingerprint).
 * `companionFor` picks the value's SQL from the identity the signed token names; the answer counts
 * only if the live user gets the same SQL, otherwise (a role changed since sign-in) it runs again
 * for the live user. So the value always belongs to the user returned with it.
 */
export async function requireApiUserWith<T>(
  request: Request,
  companionFor: (actor: Actor) => Companion<T>,
): Promise<{ user: PublicUser; value: T }> {
  const { token, via } = await tokenFrom(request);
  if (!token) throw new Unauthorized(SIGN_IN_FIRST);
  const verified = verifyToken(token);
  if (!verified.ok) throw new Unauthorized(verified.message);
  let companion = companionFor(verified.payload);
  for (let attempt = 0; attempt < 3; attempt++) {
    const found = await loadSessionUser(verified.payload, companion);
    if (!found) throw new Unauthorized(TOKEN_INVALID);
    const live = companionFor(found.user);
    if (live.name === companion.name) {
      admit(request, { user: found.user, via }, {});
      return found;
    }
    companion = live;
  }
  throw new Conflict("Your account changed while this request ran; try again");
}

/** Same-origin path for redirectTo; anything else falls back to "/". */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = "/"): string {
  if (typeof to !== "string" || !to.startsWith("/") || to.startsWith("//") || to.startsWith("/\\")) return fallback;
  // Browsers drop tabs and newlines from a Location, so "/\t/evil.com" would become "//evil.com";
  // anything outside printable ASCII cannot go in a header at all (a Location with U+2028 threw
  // after the session was made). The app's own links are percent-encoded, so they pass.
  if ([...to].some((c) => c.charCodeAt(0) < 0x21 || c.charCodeAt(0) > 0x7e)) return fallback;
  return to;
}

/**
 * For pages: the signed-in identity, or a redirect to /login (and to /onboarding for a user who
 * has not chosen their own password yet).
 */
export async function requirePageIdentity(
  request: Request,
  options: { allowNotOnboarded?: boolean } = {},
): Promise<Identity> {
  const result = await authenticate(request);
  const url = new URL(request.url);
  if (!result.ok) {
    const redirectTo = `${url.pathname}${url.search}`;
    throw redirect(`/login${redirectTo === "/" ? "" : `?redirectTo=${encodeURIComponent(redirectTo)}`}`, {
      headers: hasSessionCookie(request) ? { "Set-Cookie": await clearSessionCookie() } : undefined,
    });
  }
  if (result.identity.via === "cookie") assertSameOriginForPage(request);
  if (!options.allowNotOnboarded && !result.identity.user.onboarded) {
    // After choosing their password they land where they were going (an email's link, say).
    const redirectTo = `${url.pathname}${url.search}`;
    throw redirect(`/onboarding${redirectTo === "/" ? "" : `?redirectTo=${encodeURIComponent(redirectTo)}`}`);
  }
  return result.identity;
}

export async function requirePageUser(request: Request): Promise<PublicUser> {
  return (await requirePageIdentity(request)).user;
}

/**
 * A page guard: the signed-in user when the authorization predicate `may` (app/models/authz/authz.server.ts)
 * allows them, otherwise the 403 page saying `refusal`, that predicate's own refusal for this page.
 * Loaders and actions both call it, so a refused write is refused before its form is read.
 */
export async function requirePageUserWho(
  request: Request,
  may: (actor: Actor) => boolean,
  refusal: string,
): Promise<PublicUser> {
  const user = await requirePageUser(request);
  if (!may(user)) pageError(new Forbidden(refusal));
  return user;
}

/** The guard of a page only administrators open, whatever it is for (`refusal` says what). */
export const requireAdmin = (request: Request, refusal: string) => requirePageUserWho(request, isAdmin, refusal);

// ---------------------------------------------------------------------------------------------
// Signing in (remix-auth + remix-auth-form)

/**
 * Checks credentials against the failure budgets every password check shares (sign-in,
 * /api/verify, PCR signing, password change; app/models/people/password-attempts.server.ts), counted for
 * the caller's address (`request`).
 */
export async function checkCredentials(email: string, password: string, request: Request): Promise<PublicUser> {
  // PASSWORD_SIGN_IN=off: nobody but the break-glass admin gets a password checked at all.
  if (!passwordAllowedFor(email)) throw new Forbidden(passwordSignInOff());
  const attempt = await startPasswordAttempt(email, clientAddress(request));
  // A wrong password keeps its point.
  const user = await verifyLogin(email, password);
  await attempt.succeeded();
  return toPublicUser(user);
}

const holder = globalThis as typeof globalThis & { __cmAuthenticator?: Authenticator<PublicUser> };

export function authenticator(): Authenticator<PublicUser> {
  if (!holder.__cmAuthenticator) {
    const auth = new Authenticator<PublicUser>();
    auth.use(
      new FormStrategy(async ({ form, request }) => {
        const parsed = loginSchema.safeParse(Object.fromEntries(form));
        if (!parsed.success) {
          throw new Invalid(
            "Enter a valid email and password",
            parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
          );
        }
        return checkCredentials(parsed.data.email, parsed.data.password, request);
      }),
      "form",
    );
    holder.__cmAuthenticator = auth;
  }
  return holder.__cmAuthenticator;
}
