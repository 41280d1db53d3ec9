/**
 * OpenID Connect sign-in through `openid-client` (docs/decisions/029-oidc-and-notifications.md):
 * the authorization code flow with PKCE (S256), `state` and `nonce`. What the round trip must
 * remember (the three secrets, where to go afterwards, and whether it signs in or re-authenticates
 * a signed-in person) travels in a short-lived signed, HttpOnly cookie scoped to /auth/oidc, so any
 * instance can finish a flow another began. The ID token's signature, issuer, audience, expiry and
 * nonce are checked by the library against the provider's published keys.
 */
import { createCookie, redirect } from "@remix-run/node";
import * as client from "openid-client";
import { z } from "zod";
import { createSession } from "~/models/sign-in/session.server";
import {
  accountForProvider,
  claimsNamePerson,
  markProviderSession,
  recordReauthentication,
} from "~/models/sign-in/oidc-users.server";
import type { PublicUser } from "~/models/people/user.server";
import { env } from "~/utils/env.server";
import { DomainError, Forbidden, Invalid } from "~/utils/errors";
import { secureCookies } from "~/utils/cookies.server";
import { logger } from "~/utils/logger.server";
import { sessionSecrets } from "~/utils/token.server";
import { safeRedirect, sessionCookie, type Identity } from "./auth.server";

export const CALLBACK_PATH = "/auth/oidc/callback";
/** How long a re-authentication at the provider counts for one signature (seconds). */
export const REAUTH_WINDOW_SECONDS = 5 * 60;
/** How long the person has at the provider before the round trip's cookie lapses. */
const FLOW_SECONDS = 10 * 60;

export type OidcSettings = { displayName: string };

/** Whether OIDC sign-in is configured, and what the button says. */
export function oidcSettings(): OidcSettings | null {
  const config = env();
  if (!config.OIDC_ISSUER || !config.OIDC_CLIENT_ID || !config.OIDC_CLIENT_SECRET) return null;
  return { displayName: config.OIDC_DISPLAY_NAME };
}

// ---------------------------------------------------------------------------------------------
// The provider's configuration (discovery), fetched once per process and issuer

const holder = globalThis as typeof globalThis & { __cmOidc?: { key: string; config: Promise<client.Configuration> } };

const isLoopback = (url: URL) => ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);

async function providerConfig(): Promise<client.Configuration> {
  const config = env();
  if (!oidcSettings()) throw new DomainError(404, "Sign-in with an identity provider is not configured");
  const key = `${config.OIDC_ISSUER}|${config.OIDC_CLIENT_ID}`;
  if (holder.__cmOidc?.key !== key) {
    const issuer = new URL(config.OIDC_ISSUER!);
    const pending = client.discovery(issuer, config.OIDC_CLIENT_ID!, config.OIDC_CLIENT_SECRET!, undefined, {
      // Plain http only for a provider on this machine (tests, a local Keycloak).
      // The ID token's signature is checked against the provider's published keys even though it
      // comes straight from the token endpoint (the library skips that unless asked).
      execute: [
        client.enableNonRepudiationChecks,
        ...(issuer.protocol === "http:" && isLoopback(issuer) ? [client.allowInsecureRequests] : []),
      ],
      timeout: 10,
    });
    holder.__cmOidc = { key, config: pending };
    // A failed discovery is tried again at the next sign-in rather than remembered.
    pending.catch(() => {
      if (holder.__cmOidc?.config === pending) holder.__cmOidc = undefined;
    });
  }
  return holder.__cmOidc.config;
}

/** Forget the discovered configuration (tests start a new provider). */
export function resetOidc(): void {
  holder.__cmOidc = undefined;
}

// ---------------------------------------------------------------------------------------------
// The round trip's cookie

const flowSchema = z.object({
  state: z.string().min(1),
  nonce: z.string().min(1),
  verifier: z.string().min(1),
  redirectTo: z.string(),
  /** `signin`, or `reauth` of the session `sid`. */
  purpose: z.enum(["signin", "reauth"]),
  sid: z.string().nullable(),
});
type Flow = z.infer<typeof flowSchema>;

const flowCookie = () =>
  createCookie("oidc_flow", {
    httpOnly: true,
    sameSite: "lax",
    path: "/auth/oidc",
    secrets: sessionSecrets(),
    secure: secureCookies(),
    maxAge: FLOW_SECONDS,
  });

async function readFlow(request: Request): Promise<Flow | null> {
  try {
    const parsed = flowSchema.safeParse(await flowCookie().parse(request.headers.get("Cookie")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const clearFlow = () => flowCookie().serialize("", { maxAge: 0, expires: new Date(0) });

// ---------------------------------------------------------------------------------------------
// Starting and finishing

/**
 * Redirects the browser to the provider. `reauth` (a signed-in person confirming it is them
 * before a signature) asks the provider for a fresh sign-in: `prompt=login` and `max_age=0`.
 */
export async function startFlow(
  redirectTo: string,
  reauth: Pick<Identity, "sessionId" | "user"> | null = null,
): Promise<Response> {
  const config = await providerConfig().catch(unreachable);
  const verifier = client.randomPKCECodeVerifier();
  const flow: Flow = {
    state: client.randomState(),
    nonce: client.randomNonce(),
    verifier,
    redirectTo: safeRedirect(redirectTo),
    purpose: reauth ? "reauth" : "signin",
    sid: reauth?.sessionId ?? null,
  };
  const parameters: Record<string, string> = {
    redirect_uri: `${env().APP_URL}${CALLBACK_PATH}`,
    scope: env().OIDC_SCOPES,
    response_type: "code",
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state: flow.state,
    nonce: flow.nonce,
  };
  if (reauth) {
    parameters.prompt = "login";
    parameters.max_age = "0";
    parameters.login_hint = reauth.user.email;
  }
  const url = client.buildAuthorizationUrl(config, parameters);
  return redirect(url.href, { headers: { "Set-Cookie": await flowCookie().serialize(flow) } });
}

function unreachable(error: unknown): never {
  if (error instanceof DomainError) throw error;
  logger().warn({ err: error }, "the identity provider's configuration could not be read");
  throw new DomainError(502, "The identity provider cannot be reached just now; try again in a minute");
}

export type CallbackOutcome =
  | { kind: "signed-in"; user: PublicUser; redirectTo: string; headers: Headers }
  | { kind: "reauthenticated"; redirectTo: string; headers: Headers };

/**
 * Finishes the round trip at the callback: the code is exchanged (with the PKCE verifier), the
 * state and the ID token (signature, issuer, audience, expiry, nonce) are checked, and then the
 * person is matched (sign-in) or confirmed to be the session's (re-authentication). Anything wrong
 * is a 4xx domain error whose message the callback page shows; nothing is written then.
 */
export async function finishFlow(request: Request, current: Identity | null): Promise<CallbackOutcome> {
  const flow = await readFlow(request);
  if (!flow) {
    throw new Invalid("This sign-in link has expired or was already used; start again from the sign-in page");
  }
  const url = new URL(request.url);
  const providerError = url.searchParams.get("error");
  if (providerError) {
    const description = url.searchParams.get("error_description");
    throw new Forbidden(`The identity provider did not sign you in (${description || providerError})`);
  }
  const config = await providerConfig().catch(unreachable);
  // The library compares against the redirect_uri sent, so the URL is rebuilt on APP_URL (the
  // server may sit behind a proxy that changed the host).
  const currentUrl = new URL(`${env().APP_URL}${CALLBACK_PATH}${url.search}`);
  let claims: Record<string, unknown> & { sub: string };
  try {
    const tokens = await client.authorizationCodeGrant(config, currentUrl, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
      ...(flow.purpose === "reauth" && { maxAge: REAUTH_WINDOW_SECONDS }),
    });
    const idClaims = tokens.claims();
    if (!idClaims) throw new Error("no ID token claims");
    claims = { ...idClaims };
    // Providers that keep the scopes' claims out of the ID token give them at userinfo.
    if (claims.email === undefined && config.serverMetadata().userinfo_endpoint) {
      const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      claims = { ...info, ...idClaims, email: info.email, email_verified: info.email_verified, ...groupsFrom(info) };
    }
  } catch (error) {
    // Which check failed, from the library's error; it carries no secret (docs/security.md).
    const reason = failedCheck(error);
    logger().info({ reason }, "an identity provider callback was refused");
    throw new Forbidden(`The sign-in could not be completed (${reason}); start again from the sign-in page`);
  }
  const headers = new Headers({ "Set-Cookie": await clearFlow() });
  if (flow.purpose === "reauth") {
    // The person confirmed must be the session's, and the session the one that asked.
    if (!current || current.sessionId !== flow.sid) {
      throw new Forbidden("Your session changed during the confirmation; sign in again");
    }
    if (!(await claimsNamePerson(claims, current.user._id))) {
      throw new Forbidden("You confirmed as someone else at the identity provider; sign in again as yourself");
    }
    const authTime = typeof claims.auth_time === "number" ? new Date(claims.auth_time * 1000) : new Date();
    await recordReauthentication(current.sessionId, current.user._id, authTime);
    return { kind: "reauthenticated", redirectTo: flow.redirectTo, headers };
  }
  const user = await accountForProvider(claims);
  const { token, sessionId } = await createSession(user);
  await markProviderSession(sessionId);
  headers.append("Set-Cookie", await sessionCookie(token));
  return { kind: "signed-in", user, redirectTo: flow.redirectTo, headers };
}

function failedCheck(error: unknown): string {
  if (!(error instanceof Error)) return "unknown error";
  // openid-client wraps oauth4webapi's error, whose message names the check ("unexpected ID Token
  // "nonce" claim value", "JWT signature verification failed").
  return error.cause instanceof Error ? error.cause.message : error.message;
}

function groupsFrom(info: Record<string, unknown>) {
  const name = env().OIDC_GROUPS_CLAIM;
  return info[name] === undefined ? {} : { [name]: info[name] };
}

/**
 * Where sign-out sends the browser after the app's session ends: the provider's end-session
 * endpoint (RP-initiated logout) when the session came from it and the provider has one, so the
 * provider's session ends too; otherwise null.
 */
export async function providerLogoutUrl(): Promise<string | null> {
  if (!oidcSettings()) return null;
  try {
    const config = await providerConfig();
    if (!config.serverMetadata().end_session_endpoint) return null;
    return client.buildEndSessionUrl(config, {
      client_id: env().OIDC_CLIENT_ID!,
      post_logout_redirect_uri: `${env().APP_URL}/login`,
    }).href;
  } catch (error) {
    logger().warn({ err: error }, "the identity provider's sign-out could not be reached");
    return null;
  }
}
