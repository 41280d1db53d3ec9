/**
 * Signing in and out, session tokens, the failed-login budget, cross-origin writes and /healthz
 * (docs/api-contract.md, "Sign-in"; docs/decisions/001-session-tokens.md).
 */
import { afterEach, describe, expect, it } from "vitest";
import * as healthz from "~/routes/healthz";
import * as logout from "~/routes/_auth+/logout";
import * as myUserRoute from "~/routes/api+/myUser";
import * as userRoute from "~/routes/api+/user";
import * as fromDbRoute from "~/routes/api+/UserFromDatabase";
import * as usersRoute from "~/routes/api+/users";
import * as verifyRoute from "~/routes/api+/verify";
import { createSession } from "~/models/sign-in/session.server";
import type { PublicUser } from "~/models/people/user.server";
import { resetEnv } from "~/utils/env.server";
import { signToken, type TokenPayload } from "~/utils/token.server";
import { authenticate, requireApiUserWith } from "~/web/auth.server";
import { withRequestId } from "~/utils/request-context.server";
import { getDb } from "~/utils/db.server";
import { sql } from "drizzle-orm";
import { api } from "../helpers/api";
import { expectUnchanged, userRow } from "../helpers/db-state";
import { makeAdmin, makeUser, PASSWORD, tokenFor } from "../helpers/factories";
import { postLogin, type LoginResult } from "../helpers/login";
import { BASE, buildRequest, call } from "../helpers/request";
import { tokenFromCookie } from "~/utils/cookies.server";

const TOKEN_INVALID = "Token claim validation failed";
const TOKEN_EXPIRED = "Token has expired";
const TOKEN_NOT_YET_VALID = "Token is not yet valid";
const BAD_CREDENTIALS = "Invalid email or password";
const WEEK = 7 * 24 * 60 * 60;
const EVIL = "https://evil.example";

// Reads and refused sign-ins never change a user or a session; every call here checks that.
const myUser = (token?: string, cookie = false) =>
  expectUnchanged(() => api(myUserRoute, { path: "/api/myUser", token, cookie }));
const listUsers = (token?: string) => expectUnchanged(() => api(usersRoute, { path: "/api/users", token }));
const verify = (email: string, password: string) =>
  expectUnchanged(() => api(verifyRoute, { path: "/api/verify", query: { email, password } }));
const jsonLogin = (email: string, password: string) => postLogin({ email, password }, { json: true });
const failedLogin = (email: string, password: string) => expectUnchanged(() => jsonLogin(email, password));

/** The token from a Set-Cookie header that opens a session, read back through the app's cookie. */
async function cookieToken(res: LoginResult): Promise<string> {
  const header = res.headers.get("Set-Cookie");
  expect(header).toMatch(/^session=[^;]+;/);
  const token = await tokenFromCookie(new Request(BASE, { headers: { Cookie: header!.split(";")[0]! } }));
  expect(token).not.toBeNull();
  return token!;
}

/** The attributes of the session cookie: HttpOnly, SameSite=Lax, the whole site, and its lifetime. */
function expectSessionCookie(header: string | null, maxAge: number) {
  const attributes = header!.split("; ").slice(1);
  expect(attributes).toEqual(expect.arrayContaining([`Max-Age=${maxAge}`, "Path=/", "HttpOnly", "SameSite=Lax"]));
}

/** The claims a real session's token carries, to re-sign with other times or keys. */
function claimsOf(token: string): Omit<TokenPayload, "iat" | "nbf" | "exp"> {
  const {
    iat: _iat,
    nbf: _nbf,
    exp: _exp,
    ...claims
  } = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as TokenPayload;
  return claims;
}

function expect401(res: { status: number; body: unknown }, message: string) {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ status: 401, message });
}

// ---------------------------------------------------------------------------------------------

describe("POST /login", () => {
  it("answers an API client with { token, admin, onboarded } and sets the session cookie", async () => {
    const user = await makeUser();
    const res = await jsonLogin(user.email, PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ token: expect.any(String), admin: false, onboarded: true });
    // The cookie carries the same token, signed by Remix's cookie (docs/decisions/019).
    expect(await cookieToken(res)).toBe(res.body.token);
    expectSessionCookie(res.headers.get("Set-Cookie"), WEEK);
    expect(res.headers.get("Set-Cookie")).not.toMatch(/secure/i);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    // The token works as a cookie and as a bearer token.
    expect((await myUser(res.body.token, true)).body.userData._id).toBe(user._id);
    expect((await myUser(res.body.token)).body.userData._id).toBe(user._id);
  });

  it("says admin: true for an admin", async () => {
    const admin = await makeAdmin();
    const res = await jsonLogin(admin.email, PASSWORD);
    expect(res.body).toEqual({ token: expect.any(String), admin: true, onboarded: true });
  });

  it("finds the user whatever the case and padding of the email", async () => {
    const user = await makeUser();
    const res = await jsonLogin(`  ${user.email.toUpperCase()} `, PASSWORD);
    expect(res.status).toBe(200);
  });

  it("redirects a browser to redirectTo, or to / without one, with the cookie set", async () => {
    const user = await makeUser();
    const res = await postLogin({ email: user.email, password: PASSWORD, redirectTo: "/mocs?tab=mine" });
    expect(res.status).toBe(302);
    expect(res.location).toBe("/mocs?tab=mine");
    const token = await cookieToken(res);
    expect((await myUser(token, true)).status).toBe(200);
    const plain = await postLogin({ email: user.email, password: PASSWORD });
    expect(plain.status).toBe(302);
    expect(plain.location).toBe("/");
  });

  it.each(["//evil.com", "https://evil.com", "/\\evil.com", "/\t/evil.com", "javascript:alert(1)", "evil.com"])(
    "sends redirectTo %j back to / instead",
    async (redirectTo) => {
      const user = await makeUser();
      const res = await postLogin({ email: user.email, password: PASSWORD, redirectTo });
      expect(res.status).toBe(302);
      expect(res.location).toBe("/");
    },
  );

  it("sends a user who has not onboarded to /onboarding first, carrying a safe redirectTo on", async () => {
    const user = await makeUser({ onboarded: false });
    const res = await postLogin({ email: user.email, password: PASSWORD, redirectTo: "/admin/users" });
    expect(res.status).toBe(302);
    expect(res.location).toBe("/onboarding?redirectTo=%2Fadmin%2Fusers");
    const unsafe = await postLogin({ email: user.email, password: PASSWORD, redirectTo: "//evil.com" });
    expect(unsafe.location).toBe("/onboarding");
    const json = await jsonLogin(user.email, PASSWORD);
    expect(json.body).toEqual({ token: expect.any(String), admin: false, onboarded: false });
  });

  it("answers a wrong password and an unknown email with the same 401, and opens no session", async () => {
    const user = await makeUser();
    const wrong = await failedLogin(user.email, "wrong-password");
    const unknown = await failedLogin("nobody-here@example.com", "wrong-password");
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ status: 401, message: BAD_CREDENTIALS });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    for (const res of [wrong, unknown]) expect(res.headers.get("Set-Cookie")).toBeNull();

    const browserWrong = await expectUnchanged(() => postLogin({ email: user.email, password: "wrong-password" }));
    const browserUnknown = await expectUnchanged(() =>
      postLogin({ email: "nobody-here@example.com", password: "wrong-password" }),
    );
    expect(browserWrong.status).toBe(401);
    expect(browserUnknown.status).toBe(401);
    expect(browserWrong.body.error).toEqual({ "": [BAD_CREDENTIALS] });
    expect(browserUnknown.body.error).toEqual(browserWrong.body.error);
    expect(browserWrong.headers.get("Set-Cookie")).toBeNull();
  });

  it("answers an inactive user's right password with the same 401", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    const off = await api(usersRoute, {
      method: "PUT",
      path: "/api/users",
      token: await tokenFor(admin),
      body: { _id: user._id, active: false },
    });
    expect(off.status).toBe(200);
    const res = await failedLogin(user.email, PASSWORD);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 401, message: BAD_CREDENTIALS });
  });

  it.each<{ label: string; fields: Record<string, string>; path: string }>([
    { label: "a malformed email", fields: { email: "not-an-email", password: PASSWORD }, path: "email" },
    { label: "an empty password", fields: { email: "someone@example.com", password: "" }, path: "password" },
    { label: "no fields at all", fields: {}, path: "email" },
  ])("answers $label with 400", async ({ fields, path }) => {
    const json = await expectUnchanged(() => postLogin(fields, { json: true }));
    expect(json.status).toBe(400);
    expect(json.body).toMatchObject({ status: 400, message: expect.any(String) });
    expect(json.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    const browser = await expectUnchanged(() => postLogin(fields));
    expect(browser.status).toBe(400);
    expect(Object.keys(browser.body.error)).toContain(path);
  });

  it("answers a JSON body (not a form) with 400, not a server error", async () => {
    const user = await makeUser();
    const res = await expectUnchanged(() =>
      postLogin(
        {},
        {
          json: true,
          rawBody: JSON.stringify({ email: user.email, password: PASSWORD }),
          headers: { "Content-Type": "application/json" },
        },
      ),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, message: expect.any(String) });
  });

  it("refuses a sign-in form posted from another site with 403 and no cookie", async () => {
    const user = await makeUser();
    const attempts: Record<string, string>[] = [{ Origin: EVIL }, { "Sec-Fetch-Site": "cross-site" }];
    for (const headers of attempts) {
      const res = await expectUnchanged(() => postLogin({ email: user.email, password: PASSWORD }, { headers }));
      expect(res.status).toBe(403);
      expect(res.headers.get("Set-Cookie")).toBeNull();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe("the failed sign-in budget", () => {
  it("refuses the 11th attempt after 10 failures, even with the right password, with Retry-After", async () => {
    const user = await makeUser();
    for (let i = 0; i < 10; i++) {
      // The budget is per email, whatever its case.
      const email = i % 2 ? user.email.toUpperCase() : user.email;
      expect((await failedLogin(email, `wrong-password-${i}`)).status).toBe(401);
    }
    const blocked = await failedLogin(user.email, PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual({ status: 429, message: expect.any(String) });
    const retryAfter = Number(blocked.headers.get("Retry-After"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(blocked.headers.get("Set-Cookie")).toBeNull();

    const browser = await expectUnchanged(() => postLogin({ email: user.email, password: PASSWORD }));
    expect(browser.status).toBe(429);
    expect(Number(browser.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(browser.headers.get("Set-Cookie")).toBeNull();

    // Another user's budget is untouched.
    const other = await makeUser();
    expect((await jsonLogin(other.email, PASSWORD)).status).toBe(200);
  });

  it("is shared with /api/verify, which is rate limited too", async () => {
    const user = await makeUser();
    for (let i = 0; i < 5; i++) expect((await failedLogin(user.email, "wrong-password")).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await verify(user.email, "wrong-password")).status).toBe(401);
    const viaVerify = await verify(user.email, PASSWORD);
    expect(viaVerify.status).toBe(429);
    expect(viaVerify.body).toEqual({ status: 429, message: expect.any(String) });
    expect(Number(viaVerify.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect((await failedLogin(user.email, PASSWORD)).status).toBe(429);
  });

  it("limits /api/verify on its own", async () => {
    const user = await makeUser();
    for (let i = 0; i < 10; i++) expect((await verify(user.email, "wrong-password")).status).toBe(401);
    expect((await verify(user.email, PASSWORD)).status).toBe(429);
  });

  it("starts again after a successful sign-in", async () => {
    const user = await makeUser();
    for (let i = 0; i < 9; i++) expect((await failedLogin(user.email, "wrong-password")).status).toBe(401);
    expect((await jsonLogin(user.email, PASSWORD)).status).toBe(200);
    for (let i = 0; i < 9; i++) expect((await failedLogin(user.email, "wrong-password")).status).toBe(401);
    expect((await jsonLogin(user.email, PASSWORD)).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------

describe("POST /logout", () => {
  const postLogout = async (token: string | undefined, headers: Record<string, string> = {}) =>
    logout.action({
      request: await buildRequest({ method: "POST", path: "/logout", token, cookie: true, headers }),
      params: {},
      context: {},
    });

  it("revokes the session, clears the cookie and redirects to /login", async () => {
    const user = await makeUser();
    const token = await tokenFor(user);
    const otherDevice = await tokenFor(user);
    expect((await myUser(token, true)).status).toBe(200);
    const res = await postLogout(token);
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/login");
    expect(res.headers.get("Set-Cookie")).toMatch(/^session=/);
    expectSessionCookie(res.headers.get("Set-Cookie"), 0);
    expect401(await myUser(token, true), TOKEN_INVALID);
    expect401(await myUser(token), TOKEN_INVALID);
    // Only this session ends.
    expect((await myUser(otherDevice)).status).toBe(200);
  });

  it("redirects to /login without a session too", async () => {
    const res = await postLogout(undefined);
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/login");
  });

  it("refuses a sign-out started by another site with 403 and keeps the session", async () => {
    const user = await makeUser();
    const token = await tokenFor(user);
    const refused = await expectUnchanged(() => postLogout(token, { Origin: EVIL }).catch((thrown: unknown) => thrown));
    expect(refused).toMatchObject({ init: { status: 403 } });
    expect((await myUser(token, true)).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------

describe("session tokens", () => {
  const OLD_KEY = process.env.SESSION_SECRET!;
  const NEW_KEY = "new-secret-abcdefghijklmnopqrstuvwxyz-0123";

  function useSecret(secret: string) {
    process.env.SESSION_SECRET = secret;
    resetEnv();
  }
  afterEach(() => useSecret(OLD_KEY));

  async function realClaims(user?: PublicUser) {
    const { token } = await createSession(user ?? (await makeUser()));
    return claimsOf(token);
  }

  it("answers an expired token with 401 'Token has expired'", async () => {
    const claims = await realClaims();
    const token = signToken(claims, Date.now() - WEEK * 1000 - 60_000);
    expect401(await myUser(token), TOKEN_EXPIRED);
    expect401(await myUser(token, true), TOKEN_EXPIRED);
    expect401(await listUsers(token), TOKEN_EXPIRED);
  });

  it("answers a token that is not valid yet with 401 'Token is not yet valid'", async () => {
    const claims = await realClaims();
    const token = signToken(claims, Date.now() + 60 * 60 * 1000);
    expect401(await myUser(token), TOKEN_NOT_YET_VALID);
    expect401(await listUsers(token), TOKEN_NOT_YET_VALID);
  });

  it("accepts the same claims signed now (the forged-time cases differ only in time)", async () => {
    const claims = await realClaims();
    expect((await myUser(signToken(claims))).status).toBe(200);
  });

  it.each([
    { label: "no token", token: () => undefined },
    { label: "garbage", token: () => "not-a-token" },
    { label: "three empty parts", token: () => ".." },
    { label: "an unsigned token", token: (t: string) => `${t.split(".").slice(0, 2).join(".")}.` },
    {
      label: "a payload edited to admin",
      token: (t: string) => {
        const [header, payload, signature] = t.split(".");
        const claims = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8"));
        const forged = Buffer.from(JSON.stringify({ ...claims, role: "admin" })).toString("base64url");
        return `${header}.${forged}.${signature}`;
      },
    },
  ])("answers $label with 401 'Token claim validation failed'", async ({ token }) => {
    const real = await tokenFor(await makeUser());
    const forged = token(real);
    expect401(await myUser(forged), TOKEN_INVALID);
    expect401(await myUser(forged, true), TOKEN_INVALID);
    // The rest of /api tells a caller with no credentials at all to sign in (GET /api/myUser keeps
    // the contract's message).
    expect401(await listUsers(forged), forged === undefined ? "Sign in first" : TOKEN_INVALID);
  });

  it("answers a token signed with another key with 401 'Token claim validation failed'", async () => {
    const claims = await realClaims();
    useSecret(NEW_KEY);
    const token = signToken(claims);
    useSecret(OLD_KEY);
    expect401(await myUser(token), TOKEN_INVALID);
  });

  it("answers a well-signed token naming no session with 401 'Token claim validation failed'", async () => {
    const claims = await realClaims();
    const token = signToken({ ...claims, sid: crypto.randomUUID() });
    expect401(await myUser(token), TOKEN_INVALID);
  });

  it("rotates keys: the first key signs, every listed key verifies", async () => {
    const user = await makeUser();
    const oldToken = await tokenFor(user);
    useSecret(`${NEW_KEY},${OLD_KEY}`);
    expect((await myUser(oldToken)).status).toBe(200);
    const newToken = await tokenFor(user);
    expect((await myUser(newToken)).status).toBe(200);
    // The new token is signed with the new key alone ...
    useSecret(OLD_KEY);
    expect401(await myUser(newToken), TOKEN_INVALID);
    // ... and once the old key is dropped, old tokens stop working.
    useSecret(NEW_KEY);
    expect401(await myUser(oldToken), TOKEN_INVALID);
    expect((await myUser(newToken)).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------

describe("cross-origin writes", () => {
  async function setup() {
    const admin = await makeAdmin();
    const target = await makeUser();
    return { admin, target, token: await tokenFor(admin) };
  }

  const WRITES = [
    {
      name: "PUT /api/users",
      run: (o: { token: string; target: PublicUser; headers: Record<string, string>; cookie: boolean }) =>
        api(usersRoute, { method: "PUT", path: "/api/users", body: { _id: o.target._id, name: "Changed" }, ...o }),
    },
    {
      name: "POST /api/users",
      run: (o: { token: string; headers: Record<string, string>; cookie: boolean }) =>
        api(usersRoute, {
          method: "POST",
          path: "/api/users",
          body: {
            name: "Made",
            email: `made-${crypto.randomUUID()}@example.com`,
            password: "pass-word-1",
            department: "fleet",
          },
          ...o,
        }),
    },
    {
      name: "DELETE /api/users",
      run: (o: { token: string; target: PublicUser; headers: Record<string, string>; cookie: boolean }) =>
        api(usersRoute, { method: "DELETE", path: "/api/users", body: { _id: o.target._id }, ...o }),
    },
    {
      name: "PATCH /api/user",
      run: (o: { token: string; headers: Record<string, string>; cookie: boolean }) =>
        api(userRoute, { method: "PATCH", path: "/api/user", body: { name: "Changed" }, ...o }),
    },
    {
      name: "PUT /api/UserFromDatabase",
      run: (o: { token: string; headers: Record<string, string>; cookie: boolean }) =>
        api(fromDbRoute, { method: "PUT", path: "/api/UserFromDatabase", body: { name: "Changed" }, ...o }),
    },
  ];

  it.each(WRITES)("$name with the cookie and a foreign Origin: 403, nothing changes", async ({ run }) => {
    const { token, target } = await setup();
    const res = await expectUnchanged(() => run({ token, target, cookie: true, headers: { Origin: EVIL } }));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ status: 403, message: expect.any(String) });
  });

  it.each(WRITES)("$name with the cookie and Sec-Fetch-Site: cross-site: 403, nothing changes", async ({ run }) => {
    const { token, target } = await setup();
    const res = await expectUnchanged(() =>
      run({ token, target, cookie: true, headers: { "Sec-Fetch-Site": "cross-site" } }),
    );
    expect(res.status).toBe(403);
  });

  it.each(WRITES)("$name with the cookie from our own origin goes through", async ({ run }) => {
    const { token, target } = await setup();
    const res = await run({ token, target, cookie: true, headers: { Origin: BASE, "Sec-Fetch-Site": "same-origin" } });
    expect(res.status).toBeLessThan(300);
  });

  it.each(WRITES)("$name with a bearer token is exempt from the origin check", async ({ run }) => {
    const { token, target } = await setup();
    const res = await run({ token, target, cookie: false, headers: { Origin: EVIL, "Sec-Fetch-Site": "cross-site" } });
    expect(res.status).toBeLessThan(300);
  });

  it("lets cross-origin reads through (GET is not a write)", async () => {
    const { token } = await setup();
    const res = await api(usersRoute, { path: "/api/users", token, cookie: true, headers: { Origin: EVIL } });
    expect(res.status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------

describe("role changes", () => {
  it("apply at once to existing sessions", async () => {
    const [boss, colleague] = [await makeAdmin(), await makeAdmin()];
    const [bossToken, colleagueToken] = [await tokenFor(boss), await tokenFor(colleague)];
    const body = () => ({
      name: "Made",
      email: `made-${crypto.randomUUID()}@example.com`,
      password: "pass-word-1",
      department: "fleet",
    });
    const demoted = await api(usersRoute, {
      method: "PUT",
      path: "/api/users",
      token: bossToken,
      body: { _id: colleague._id, role: "user" },
    });
    expect(demoted.status).toBe(200);
    const refused = await expectUnchanged(() =>
      api(usersRoute, { method: "POST", path: "/api/users", token: colleagueToken, body: body() }),
    );
    expect(refused.status).toBe(403);
    expect((await myUser(colleagueToken)).body.userData.role).toBe("user");
    // And the other way round: a promotion lets the same token create users.
    const member = await makeUser();
    const memberToken = await tokenFor(member);
    const notYet = await expectUnchanged(() =>
      api(usersRoute, { method: "POST", path: "/api/users", token: memberToken, body: body() }),
    );
    expect(notYet.status).toBe(403);
    await api(usersRoute, {
      method: "PUT",
      path: "/api/users",
      token: bossToken,
      body: { _id: member._id, role: "admin" },
    });
    expect((await userRow(member._id))?.role).toBe("admin");
    expect(
      (await api(usersRoute, { method: "POST", path: "/api/users", token: memberToken, body: body() })).status,
    ).toBe(201);
  });
});

// ---------------------------------------------------------------------------------------------

describe("GET /healthz", () => {
  it("answers { status: 'ok' } while the database answers", async () => {
    const res = await call(healthz, { path: "/healthz" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
    expect(res.headers.get("Cache-Control")).toBe("no-store");
  });
});

// ---------------------------------------------------------------------------------------------

describe("requireApiUserWith (a value read in the session lookup's statement)", () => {
  const request = (token: string) => buildRequest({ path: "/api/newmoc", token });

  it("returns the live user and the value computed for them", async () => {
    const user = await makeUser();
    const found = await requireApiUserWith(await request(await tokenFor(user)), () => ({
      name: "test_email_of_user",
      sql: (userId) => sql<string>`(select email from users where id = ${userId})`,
    }));
    expect(found.user._id).toBe(user._id);
    expect(found.value).toBe(user.email);
  });

  it("gives up with 409 when the value's SQL keeps changing under it, rather than answer for someone else", async () => {
    const user = await makeUser();
    let round = 0;
    const companionFor = () => ({ name: `test_shifting_${round++ % 4}`, sql: () => sql<number>`1` });
    await expect(requireApiUserWith(await request(await tokenFor(user)), companionFor)).rejects.toMatchObject({
      status: 409,
    });
    expect(round).toBe(4); // the token's pick, then three reads that each named another
  });
});

describe("one identity lookup per read (authenticate's memo)", () => {
  const request = (token: string, method: string) =>
    new Request(`${BASE}/`, { method, headers: { Authorization: `Bearer ${token}`, Origin: BASE } });

  it("a page's loaders reading together share one lookup; another request, or a write, looks again", async () => {
    const user = await makeUser();
    const token = await tokenFor(user);
    const [a, b] = await withRequestId("memo-read", () =>
      Promise.all([authenticate(request(token, "GET")), authenticate(request(token, "GET"))]),
    );
    expect(a.ok && b.ok).toBe(true);
    expect(b).toBe(a);
    const other = await withRequestId("memo-other", () => authenticate(request(token, "GET")));
    expect(other).not.toBe(a);

    // After an action the answer may differ (here: the session revoked between two calls).
    const afterRevoke = await withRequestId("memo-write", async () => {
      const first = await authenticate(request(token, "POST"));
      await getDb().execute(sql`update sessions set revoked_at = now() where user_id = ${user._id}`);
      return [first, await authenticate(request(token, "POST"))] as const;
    });
    expect(afterRevoke[0].ok).toBe(true);
    expect(afterRevoke[1].ok).toBe(false);
  });

  it("never shares an identity between different credentials in one request", async () => {
    const [first, second] = [await makeUser(), await makeUser()];
    const [t1, t2] = [await tokenFor(first), await tokenFor(second)];
    const [a, b] = await withRequestId("memo-two", () =>
      Promise.all([authenticate(request(t1, "GET")), authenticate(request(t2, "GET"))]),
    );
    expect(a.ok && a.identity.user._id).toBe(first._id);
    expect(b.ok && b.identity.user._id).toBe(second._id);
  });
});
