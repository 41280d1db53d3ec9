/**
 * The app's two cookies, both Remix cookie primitives with the same options and secret rotation
 * (docs/decisions/019-cookie-session-storage-and-express.md): `session` carries the signed session
 * token (`createCookie`), `flash` the one-time message of the next page
 * (`createCookieSessionStorage`). Each is signed with the first SESSION_SECRET key and verified
 * against all of them, HttpOnly, SameSite=Lax, and Secure when APP_URL is https.
 */
import { createCookie, createCookieSessionStorage, type CookieOptions } from "@remix-run/node";
import { env } from "./env.server";
import { SESSION_TTL_SECONDS, sessionSecrets } from "./token.server";

export const SESSION_COOKIE = "session";

/** Whether the app's cookies carry Secure: when APP_URL is https. */
export const secureCookies = (): boolean => env().APP_URL.startsWith("https:");

const options = (): CookieOptions => ({
  httpOnly: true,
  sameSite: "lax",
  path: "/",
  secrets: sessionSecrets(),
  secure: secureCookies(),
});

// Made per call: the secrets come from the environment, which rotation changes between starts
// (and tests change at run time).
const tokenCookie = () => createCookie(SESSION_COOKIE, { ...options(), maxAge: SESSION_TTL_SECONDS });

/** The Set-Cookie header that carries the token for the session's 7 days. */
export const sessionCookie = (token: string): Promise<string> => tokenCookie().serialize(token);

/** The Set-Cookie header that removes the session cookie. */
export const clearSessionCookie = (): Promise<string> =>
  tokenCookie().serialize("", { maxAge: 0, expires: new Date(0) });

/** Whether the request sends a session cookie at all (valid or not). */
export const hasSessionCookie = (request: Request): boolean =>
  /(?:^|;\s*)session=/.test(request.headers.get("Cookie") ?? "");

/** The token in the request's session cookie: null when absent, unsigned by every key, or malformed. */
export async function tokenFromCookie(request: Request): Promise<string | null> {
  const header = request.headers.get("Cookie");
  if (!header || !hasSessionCookie(request)) return null;
  try {
    const value: unknown = await tokenCookie().parse(header);
    return typeof value === "string" && value ? value : null;
  } catch {
    return null;
  }
}

export type Flash = { kind: "success" | "error" | "info"; message: string };

export const flashStorage = () =>
  createCookieSessionStorage<Record<string, never>, { flash: Flash }>({ cookie: { name: "flash", ...options() } });
