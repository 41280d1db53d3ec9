import { data, redirect } from "@remix-run/node";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { clearAttempts, consumeAttempt } from "~/models/rate-limit.server";
import type { Actor } from "~/models/authz.server";
import { loadSessionUser, type Companion } from "~/models/session.server";
import { loginSchema } from "~/models/user.schema";
import { toPublicUser, verifyLogin, type PublicUser } from "~/models/user.server";
import { env } from "./env.server";
import { Conflict, Forbidden, Invalid, RateLimited, Unauthorized } from "./errors";
import { TOKEN_INVALID, SESSION_TTL_SECONDS, verifyToken } from "./token.server";

export const SESSION_COOKIE = "session";

export type Identity = {
  user: PublicUser;
  sessionId: string;
  token: string;
  /** How the token arrived: cookie-authenticated writes get the cross-origin check. */
  via: "cookie" | "bearer";
};

// ---------------------------------------------------------------------------------------------
// The cookie

function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("Cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index > -1 && part.slice(0, index).trim() === name) {
      try {
        return decodeURIComponent(part.slice(index + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
}

/** Secure only when the app is served over https (stack.md pitfall 11). */
const secureFlag = () => (env().APP_URL.startsWith("https:") ? "; Secure" : "");

export function sessionCookie(token: string): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_TTL_SECONDS}${secureFlag()}`;
}

export function clearSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT${secureFlag()}`;
}

function tokenFrom(request: Request): { token: string | null; via: Identity["via"] } {
  const authorization = request.headers.get("Authorization");
  const bearer = authorization?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
  if (bearer) return { token: bearer, via: "bearer" };
  return { token: readCookie(request, SESSION_COOKIE), via: "cookie" };
}

// ---------------------------------------------------------------------------------------------
// Cross-origin writes (clarifications section 2)

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

export type AuthResult = { ok: true; identity: Identity } | { ok: false; message: string };

/** Who is calling, or why not (one of the three 401 messages). One query. */
export async function authenticate(request: Request): Promise<AuthResult> {
  const { token, via } = tokenFrom(request);
  const verified = verifyToken(token);
  if (!verified.ok) return verified;
  const user = await loadSessionUser(verified.payload);
  if (!user) return { ok: false, message: TOKEN_INVALID };
  return { ok: true, identity: { user, sessionId: verified.payload.sid, token: token!, via } };
}

/** What `/api` asks of every caller once identified: our origin for cookie writes, a chosen password. */
function admit(request: Request, identity: Pick<Identity, "user" | "via">, options: { allowNotOnboarded?: boolean }) {
  if (identity.via === "cookie") assertSameOrigin(request);
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
  options: { allowNotOnboarded?: boolean } = {},
): Promise<Identity> {
  const result = await authenticate(request);
  if (!result.ok) throw new Unauthorized(result.message);
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
  const { token, via } = tokenFrom(request);
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
  // Browsers drop tabs and newlines from a Location, so "/\t/evil.com" would become "//evil.com".
  if ([...to].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return fallback;
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
      headers: readCookie(request, SESSION_COOKIE) ? { "Set-Cookie": clearSessionCookie() } : undefined,
    });
  }
  if (result.identity.via === "cookie") assertSameOriginForPage(request);
  if (!options.allowNotOnboarded && !result.identity.user.onboarded) throw redirect("/onboarding");
  return result.identity;
}

export async function requirePageUser(request: Request): Promise<PublicUser> {
  return (await requirePageIdentity(request)).user;
}

// ---------------------------------------------------------------------------------------------
// Signing in (remix-auth + remix-auth-form)

const rateKey = (email: string) => `login:${email}`;

/**
 * Checks credentials with the per-email failure budget shared by /login and /api/verify:
 * 10 failures per 15 minutes, then 429 until the window ends.
 */
export async function checkCredentials(email: string, password: string): Promise<PublicUser> {
  const key = rateKey(email);
  const attempt = await consumeAttempt(key);
  if (attempt.blocked) {
    throw new RateLimited(attempt.retryAfterSeconds, "Too many failed sign-in attempts; try again later");
  }
  // A wrong password keeps its point; a success clears the count.
  const user = await verifyLogin(email, password);
  await clearAttempts(key);
  return toPublicUser(user);
}

const holder = globalThis as typeof globalThis & { __cmAuthenticator?: Authenticator<PublicUser> };

export function authenticator(): Authenticator<PublicUser> {
  if (!holder.__cmAuthenticator) {
    const auth = new Authenticator<PublicUser>();
    auth.use(
      new FormStrategy(async ({ form }) => {
        const parsed = loginSchema.safeParse(Object.fromEntries(form));
        if (!parsed.success) {
          throw new Invalid(
            "Enter a valid email and password",
            parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
          );
        }
        return checkCredentials(parsed.data.email, parsed.data.password);
      }),
      "form",
    );
    holder.__cmAuthenticator = auth;
  }
  return holder.__cmAuthenticator;
}
