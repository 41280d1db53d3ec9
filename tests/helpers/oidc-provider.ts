/**
 * A real OpenID provider for the tests: the certified `oidc-provider` library on a loopback port,
 * with its own RSA signing key. Its login step signs in whichever account the test names next
 * (`provider.loginAs`), so a test drives the whole round trip over HTTP: the app's /auth/oidc, the
 * provider's authorize, login and resume steps, and back to the app's callback with a code.
 *
 * `provider.tamper` rewrites the ID token the token endpoint answers (re-signed with the provider's
 * key, or with another key under the same key id), so the client's checks meet real bad tokens.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from "jose";
import Provider from "oidc-provider";

export type Account = {
  email: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
  roles?: string[];
};

export type Tamper = (claims: JWTPayload) => JWTPayload;

export type TestProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, Account>;
  /** The account the next login step signs in. */
  loginAs: (accountId: string) => void;
  /** How many login steps the provider has run (a re-authentication adds one). */
  logins: () => number;
  /** Rewrites the next ID tokens (null: leave them alone); `otherKey` signs with a key the provider never published. */
  tamper: (change: Tamper | null, options?: { otherKey?: boolean }) => void;
  close: () => Promise<void>;
};

const KID = "test-signing-key";

async function signingKey(): Promise<{ jwk: JWK; key: CryptoKey }> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: KID, alg: "RS256", use: "sig" };
  return { jwk, key: privateKey as CryptoKey };
}

export async function startTestProvider(options: {
  redirectUri: string;
  postLogoutUri: string;
}): Promise<TestProvider> {
  const own = await signingKey();
  const other = await signingKey();
  const accounts = new Map<string, Account>();
  let next: string | null = null;
  let loginCount = 0;
  let tampering: { change: Tamper; otherKey: boolean } | null = null;

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = "change-management";
  const clientSecret = "a-client-secret-of-the-tests-0123456789";

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        post_logout_redirect_uris: [options.postLogoutUri],
        response_types: ["code"],
        grant_types: ["authorization_code"],
      },
    ],
    jwks: { keys: [own.jwk] },
    cookies: { keys: ["cookie-key-of-the-test-provider"] },
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["name"],
      // `roles`: a provider whose groups claim has another name (OIDC_GROUPS_CLAIM).
      groups: ["groups", "roles"],
    },
    features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    // Every client is first-party here: the scopes it asks for are granted without a consent page.
    async loadExistingGrant(ctx: {
      oidc: {
        client: { clientId: string };
        session: { accountId: string; grantIdFor: (id: string) => string | undefined };
        provider: Provider;
      };
    }) {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope("openid email profile groups");
      await grant.save();
      return grant;
    },
    async findAccount(_ctx: unknown, id: string) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...account }) };
    },
  } as never);

  // The login step: the account the test named, at once.
  provider.use(async (ctx, nextMiddleware) => {
    const match = /^\/interaction\/([^/]+)$/.exec(ctx.path);
    if (!match) {
      await nextMiddleware();
      if (ctx.path === "/token" && tampering && ctx.body && typeof ctx.body === "object") {
        const body = ctx.body as { id_token?: string };
        if (body.id_token) {
          const claims = tampering.change(decodeJwt(body.id_token));
          const key = tampering.otherKey ? other.key : own.key;
          body.id_token = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: KID }).sign(key);
        }
      }
      return;
    }
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    if (details.prompt.name !== "login") throw new Error(`unexpected prompt ${details.prompt.name}`);
    if (!next) throw new Error("the test named nobody to sign in (provider.loginAs)");
    loginCount += 1;
    const to = await provider.interactionResult(
      ctx.req,
      ctx.res,
      { login: { accountId: next } },
      { mergeWithLastSubmission: false },
    );
    ctx.redirect(to);
  });
  server.on("request", provider.callback());

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    loginAs: (id) => {
      next = id;
    },
    logins: () => loginCount,
    tamper: (change, opts = {}) => {
      tampering = change ? { change, otherKey: Boolean(opts.otherKey) } : null;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A cookie jar for one site: what a browser would send back. */
export class CookieJar {
  private cookies = new Map<string, string>();

  store(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const index = pair!.indexOf("=");
      const name = pair!.slice(0, index).trim();
      const value = pair!.slice(index + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /expires=thu, 01 jan 1970/i.test(a));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
}

/**
 * Follows the provider's redirects from `url` (the app's redirect to the authorize endpoint) until
 * one leads off the provider: the URL the provider sends the browser back to (the app's callback).
 */
export async function followProvider(url: string, issuer: string, jar: CookieJar): Promise<URL> {
  let current = new URL(url);
  for (let hop = 0; hop < 10; hop++) {
    if (current.origin !== new URL(issuer).origin) return current;
    const res = await fetch(current, { redirect: "manual", headers: { Cookie: jar.header() } });
    jar.store(res.headers);
    const location = res.headers.get("Location");
    if (!location) throw new Error(`the provider answered ${res.status} at ${current.pathname}: ${await res.text()}`);
    current = new URL(location, current);
  }
  throw new Error("too many redirects at the provider");
}
