/**
 * Sign-in through a real OpenID provider (`oidc-provider` on a loopback port with its own key,
 * tests/helpers/oidc-provider.ts), docs/decisions/029-oidc-and-notifications.md: the round trip,
 * each refused token, who gets in as what, the link to the provider's account (issuer and
 * subject, docs/decisions/052-oidc-subject-link.md) and its conflicts, passwords off with a
 * break-glass admin, and a PCR signature re-authenticated at the provider.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import * as oidcRoute from "~/routes/auth+/oidc";
import * as reauthRoute from "~/routes/auth+/oidc_.reauth";
import * as callbackRoute from "~/routes/auth+/oidc_.callback";
import * as logoutRoute from "~/routes/_auth+/logout";
import * as loginRoute from "~/routes/_auth+/login";
import * as myUserRoute from "~/routes/api+/myUser";
import * as verifyRoute from "~/routes/api+/verify";
import * as signaturesRoute from "~/routes/api+/pcr.signatures";
import * as adminUsersPage from "~/routes/admin+/users";
import * as adminUserPage from "~/routes/admin+/users.$id";
import { historyOf, verifyAuditTrail } from "~/models/audit/audit.server";
import { getDb } from "~/utils/db.server";
import { resetEnv } from "~/utils/env.server";
import { tokenFromCookie } from "~/utils/cookies.server";
import { readFlash } from "~/utils/flash.server";
import type { PublicUser } from "~/models/people/user.server";
import { resetOidc } from "~/web/oidc.server";
import { CookieJar, followProvider, startTestProvider, type TestProvider } from "../helpers/oidc-provider";
import { makeAdmin, makeUser, PASSWORD, tokenFor } from "../helpers/factories";
import { BASE, buildRequest, call, type CallResult } from "../helpers/request";
import { postLogin } from "../helpers/login";
import { chainWith, createPcrOk, makeHolders } from "../helpers/pcr";
import { deactivate } from "../helpers/pcr";

let provider: TestProvider;
const saved = { ...process.env };

const OIDC_ENV = (p: TestProvider) => ({
  OIDC_ISSUER: p.issuer,
  OIDC_CLIENT_ID: p.clientId,
  OIDC_CLIENT_SECRET: p.clientSecret,
  OIDC_SCOPES: "openid email profile groups",
  OIDC_DISPLAY_NAME: "Contoso",
});

function configure(extra: Record<string, string | undefined> = {}) {
  for (const key of Object.keys(process.env)) {
    if (/^(OIDC_|PASSWORD_SIGN_IN|BREAK_GLASS_EMAIL)/.test(key)) delete process.env[key];
  }
  Object.assign(process.env, OIDC_ENV(provider));
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  resetEnv();
}

beforeAll(async () => {
  provider = await startTestProvider({
    redirectUri: `${BASE}/auth/oidc/callback`,
    postLogoutUri: `${BASE}/login`,
  });
});

afterAll(async () => {
  await provider.close();
  process.env = saved;
  resetEnv();
  resetOidc();
});

beforeEach(() => {
  configure();
  resetOidc();
  provider.tamper(null);
});

afterEach(() => provider.tamper(null));

let accounts = 0;
/** An account at the provider (and its id there). */
function account(claims: {
  email: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
  roles?: string[];
}): string {
  accounts += 1;
  const id = `account-${accounts}`;
  provider.accounts.set(id, { email_verified: true, name: "Provider Person", ...claims });
  return id;
}

type RoundTrip = { start: CallResult; callback: CallResult; jar: CookieJar };

/**
 * The browser's round trip: the app's start step, the provider's steps, and the app's callback,
 * with one cookie jar per site. `alter` changes the URL the provider sends back (a forged state).
 */
async function roundTrip(
  accountId: string,
  options: { redirectTo?: string; jar?: CookieJar; reauth?: boolean; alter?: (url: URL) => void } = {},
): Promise<RoundTrip> {
  const jar = options.jar ?? new CookieJar();
  provider.loginAs(accountId);
  const start = options.reauth
    ? await call(reauthRoute, {
        path: "/auth/oidc/reauth",
        query: { redirectTo: options.redirectTo ?? "/" },
        headers: { Cookie: jar.header() },
      })
    : await call(oidcRoute, {
        method: "POST",
        path: "/auth/oidc",
        body: new URLSearchParams({ redirectTo: options.redirectTo ?? "/" }).toString(),
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE, Cookie: jar.header() },
      });
  expect(start.status, start.text).toBe(302);
  jar.store(start.headers);
  const back = await followProvider(start.headers.get("Location")!, provider.issuer, new CookieJar());
  expect(back.origin + back.pathname).toBe(`${BASE}/auth/oidc/callback`);
  options.alter?.(back);
  const callback = await call(callbackRoute, {
    path: `${back.pathname}${back.search}`,
    headers: { Cookie: jar.header() },
  });
  jar.store(callback.headers);
  return { start, callback, jar };
}

const loginPage = () => loginRoute.loader({ request: new Request(`${BASE}/login`), params: {}, context: {} } as never);

const sessionCount = async (userId?: string) => {
  const [row] = await getDb().execute<{ n: number }>(
    userId
      ? sql`select count(*)::int as n from sessions where user_id = ${userId}`
      : sql`select count(*)::int as n from sessions`,
  );
  return row!.n;
};

async function tokenIn(jar: CookieJar): Promise<string | null> {
  const value = jar.get("session");
  if (!value) return null;
  return tokenFromCookie(new Request(BASE, { headers: { Cookie: `session=${value}` } }));
}

/** A refused callback: a 4xx page with the reason, no session cookie, no session row. */
async function expectRefused(trip: Promise<RoundTrip>, message: RegExp) {
  const before = await sessionCount();
  const { callback, jar } = await trip;
  expect(callback.status, callback.text).toBeGreaterThanOrEqual(400);
  expect(callback.status).toBeLessThan(500);
  expect(callback.body.message).toMatch(message);
  expect(jar.get("session")).toBeUndefined();
  expect(await sessionCount()).toBe(before);
}

describe("signing in at the identity provider", () => {
  it("the login page offers the button only when configured", async () => {
    expect((await loginPage()).oidc).toEqual({ displayName: "Contoso" });
    configure({ OIDC_ISSUER: "", OIDC_CLIENT_ID: "", OIDC_CLIENT_SECRET: "" });
    expect((await loginPage()).oidc).toBeNull();
  });

  it("signs a known person in with PKCE, state and nonce, and keeps redirectTo", async () => {
    const user = await makeUser({ email: "mariner@example.com" });
    const { start, callback, jar } = await roundTrip(account({ email: "Mariner@Example.com" }), {
      redirectTo: "/mocs?tab=mine",
    });
    const authorize = new URL(start.headers.get("Location")!);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(authorize.searchParams.get("state")).toBeTruthy();
    expect(authorize.searchParams.get("nonce")).toBeTruthy();
    expect(callback.status).toBe(302);
    expect(callback.headers.get("Location")).toBe("/mocs?tab=mine");
    const token = await tokenIn(jar);
    expect(token).not.toBeNull();
    const me = await call(myUserRoute, { path: "/api/myUser", token: token! });
    expect(me.body.userData).toMatchObject({ _id: user._id, email: "mariner@example.com" });
    const [row] = await getDb().execute<{ method: string }>(
      sql`select method from sessions where user_id = ${user._id}`,
    );
    expect(row!.method).toBe("oidc");
  });

  it("an off-site redirectTo falls back to the dashboard", async () => {
    await makeUser({ email: "offsite@example.com" });
    const { callback } = await roundTrip(account({ email: "offsite@example.com" }), { redirectTo: "//evil.example/" });
    expect(callback.headers.get("Location")).toBe("/");
  });

  it("refuses a wrong state", async () => {
    await makeUser({ email: "state@example.com" });
    await expectRefused(
      roundTrip(account({ email: "state@example.com" }), { alter: (url) => url.searchParams.set("state", "forged") }),
      /state/i,
    );
  });

  it("refuses a callback without the round trip's cookie", async () => {
    const before = await sessionCount();
    provider.loginAs(account({ email: "nocookie@example.com" }));
    const start = await call(oidcRoute, { path: "/auth/oidc" });
    const back = await followProvider(start.headers.get("Location")!, provider.issuer, new CookieJar());
    const callback = await call(callbackRoute, { path: `${back.pathname}${back.search}` });
    expect(callback.status).toBe(400);
    expect(callback.body.message).toMatch(/expired or was already used/);
    expect(await sessionCount()).toBe(before);
  });

  it("refuses an ID token with a wrong nonce", async () => {
    await makeUser({ email: "nonce@example.com" });
    provider.tamper((claims) => ({ ...claims, nonce: "another-nonce" }));
    await expectRefused(roundTrip(account({ email: "nonce@example.com" })), /nonce/i);
  });

  it("refuses an ID token signed by another key", async () => {
    await makeUser({ email: "key@example.com" });
    provider.tamper((claims) => claims, { otherKey: true });
    await expectRefused(roundTrip(account({ email: "key@example.com" })), /signature/i);
  });

  it("refuses an expired ID token", async () => {
    await makeUser({ email: "expired@example.com" });
    const past = Math.floor(Date.now() / 1000) - 3600;
    provider.tamper((claims) => ({ ...claims, iat: past - 600, exp: past }));
    await expectRefused(roundTrip(account({ email: "expired@example.com" })), /exp/i);
  });

  it("refuses an ID token for another audience", async () => {
    await makeUser({ email: "audience@example.com" });
    provider.tamper((claims) => ({ ...claims, aud: "another-client" }));
    await expectRefused(roundTrip(account({ email: "audience@example.com" })), /aud/i);
  });

  it("refuses an unverified email, unless the issuer is trusted for emails", async () => {
    await makeUser({ email: "unverified@example.com" });
    const id = account({ email: "unverified@example.com", email_verified: false });
    await expectRefused(roundTrip(id), /not confirmed your email/);
    configure({ OIDC_TRUST_EMAIL: "1" });
    const { callback } = await roundTrip(id);
    expect(callback.status).toBe(302);
  });

  it("refuses unknown people when auto-create is off, and creates them when on", async () => {
    const id = account({ email: "newcomer@example.com", name: "New Comer", groups: ["hseq-team"] });
    await expectRefused(roundTrip(id), /no account here/i);
    const [none] = await getDb().execute(sql`select id from users where email = 'newcomer@example.com'`);
    expect(none).toBeUndefined();

    configure({ OIDC_AUTO_CREATE: "1", OIDC_GROUP_MAP: JSON.stringify({ "hseq-team": { department: "hseq" } }) });
    const { callback, jar } = await roundTrip(id);
    expect(callback.status).toBe(302);
    const me = await call(myUserRoute, { path: "/api/myUser", token: (await tokenIn(jar))! });
    expect(me.body.userData).toMatchObject({
      name: "New Comer",
      email: "newcomer@example.com",
      role: "user",
      department: "hseq",
      access: "standard",
    });
    const history = await historyOf("user", me.body.userData._id);
    expect(history.map((h) => h.action)).toContain("Created at first sign-in with the identity provider");
    // Its creation entry describes the account the way the verification reads it: the chain holds.
    const broken = (await verifyAuditTrail(getDb(), "/nonexistent/no-seals")).broken;
    expect(broken.filter((b) => b.recordId === me.body.userData._id)).toEqual([]);
    // The account has no password anyone knows.
    const login = await postLogin({ email: "newcomer@example.com", password: PASSWORD }, { json: true });
    expect(login.status).toBe(401);
  });

  it("group mapping sets and changes a role at each sign-in, audited", async () => {
    configure({
      OIDC_GROUP_MAP: JSON.stringify({
        "moc-admins": { role: "admin" },
        "hseq-team": { department: "hseq", access: "full" },
      }),
    });
    await makeAdmin(); // so the mapped person is never the last admin
    const user = await makeUser({ email: "deckofficer@example.com", department: "fleet" });
    const id = account({ email: "deckofficer@example.com", groups: ["moc-admins", "hseq-team"] });
    await roundTrip(id);
    const roleOf = async () =>
      (
        await getDb().execute<{ role: string; department: string; access: string }>(
          sql`select role, department, access from users where id = ${user._id}`,
        )
      )[0]!;
    expect(await roleOf()).toEqual({ role: "admin", department: "hseq", access: "full" });
    let history = await historyOf("user", user._id);
    expect(history.find((h) => h.action === "Changed role")).toMatchObject({ from: "user", to: "admin" });

    // Out of the admins' group at the provider: the next sign-in takes the role back.
    provider.accounts.set(id, { ...provider.accounts.get(id)!, groups: ["hseq-team"] });
    await roundTrip(id);
    expect(await roleOf()).toEqual({ role: "user", department: "hseq", access: "full" });
    history = await historyOf("user", user._id);
    expect(history.filter((h) => h.action === "Changed role").map((h) => [h.from, h.to])).toEqual(
      expect.arrayContaining([
        ["user", "admin"],
        ["admin", "user"],
      ]),
    );
    // Nothing changed: nothing more recorded.
    const entries = history.length;
    await roundTrip(id);
    expect((await historyOf("user", user._id)).length).toBe(entries);
  });

  it("reads the groups from the claim OIDC_GROUPS_CLAIM names, and maps a position, audited", async () => {
    configure({
      OIDC_GROUPS_CLAIM: "roles",
      OIDC_GROUP_MAP: JSON.stringify({ "fleet-vp": { position: "VP Fleet Management", department: "fleet" } }),
    });
    const user = await makeUser({ email: "vp-fleet@example.com", department: "engineering" });
    // A `groups` claim naming the group does not count: the configured claim is `roles`.
    const id = account({ email: "vp-fleet@example.com", groups: ["fleet-vp"], roles: [] });
    await roundTrip(id);
    const fieldsOf = async () =>
      (
        await getDb().execute<{ position: string | null; department: string }>(
          sql`select position, department from users where id = ${user._id}`,
        )
      )[0]!;
    expect(await fieldsOf()).toEqual({ position: null, department: "operations" });
    provider.accounts.set(id, { ...provider.accounts.get(id)!, roles: ["fleet-vp"] });
    await roundTrip(id);
    expect(await fieldsOf()).toEqual({ position: "VP Fleet Management", department: "fleet" });
    const history = await historyOf("user", user._id);
    expect(history.find((h) => h.action === "Changed position")).toMatchObject({
      from: null,
      to: "VP Fleet Management",
    });
  });

  it("refuses a deactivated person whatever the provider says", async () => {
    const user = await makeUser({ email: "leaver@example.com" });
    await deactivate(user);
    const id = account({ email: "leaver@example.com", groups: ["moc-admins"] });
    await expectRefused(roundTrip(id), /deactivated/);
    // Nor does auto-create or an admins' group bring the account back.
    configure({ OIDC_AUTO_CREATE: "1", OIDC_GROUP_MAP: JSON.stringify({ "moc-admins": { role: "admin" } }) });
    await expectRefused(roundTrip(id), /deactivated/);
    const rows = await getDb().execute<{ role: string; active: boolean }>(
      sql`select role, active from users where email = 'leaver@example.com'`,
    );
    expect([...rows]).toEqual([{ role: "user", active: false }]);
  });

  it("sign-out ends the provider's session too (RP-initiated logout)", async () => {
    await makeUser({ email: "logout@example.com" });
    const { jar } = await roundTrip(account({ email: "logout@example.com" }));
    const res = await call(logoutRoute, {
      method: "POST",
      path: "/logout",
      headers: { Cookie: jar.header(), Origin: BASE },
    });
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get("Location")!);
    expect(to.origin).toBe(provider.issuer);
    expect(to.searchParams.get("client_id")).toBe(provider.clientId);
    expect(to.searchParams.get("post_logout_redirect_uri")).toBe(`${BASE}/login`);
    expect(res.headers.get("Set-Cookie")).toMatch(/^session=;/);
    const token = await tokenIn(jar);
    expect((await call(myUserRoute, { path: "/api/myUser", token: token! })).status).toBe(401);
  });
});

/** The person's link to an account at the provider, as stored. */
const linkOf = async (userId: string) =>
  (
    await getDb().execute<{ issuer: string | null; subject: string | null; linked: boolean }>(
      sql`select oidc_issuer as issuer, oidc_subject as subject, oidc_linked_at is not null as linked
        from users where id = ${userId}`,
    )
  )[0]!;

/** The admin users page as the admin sees it (its loader's data). */
async function adminList(admin: PublicUser) {
  const request = await buildRequest({ path: "/admin/users", token: await tokenFor(admin), cookie: true });
  return adminUsersPage.loader({ request, params: {}, context: {} } as never);
}

/** An admin's button on a refused sign-in (the page's form post); the redirect it answers. */
async function settle(admin: PublicUser, intent: string, conflictId: string, back?: string): Promise<Response> {
  const request = await buildRequest({
    method: "POST",
    path: "/admin/users",
    token: await tokenFor(admin),
    cookie: true,
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE },
    body: new URLSearchParams({ intent, conflictId, ...(back ? { back } : {}) }).toString(),
  });
  // The conflict buttons always answer a redirect (the create form's errors are data instead).
  return (await adminUsersPage.action({ request, params: {}, context: {} } as never)) as Response;
}

/** The flash message a redirect carries to the next page. */
async function flashOf(res: Response): Promise<{ kind: string; message: string } | undefined> {
  const jar = new CookieJar();
  jar.store(res.headers);
  const request = new Request(BASE, { headers: { Cookie: jar.header() } });
  return (await readFlash(request)).flash ?? undefined;
}

describe("the link to the provider's account (issuer and subject)", () => {
  it("the first sign-in of a person made before the link stores the issuer and subject, audited", async () => {
    // An account made here (or by a sign-in before the link existed): no issuer or subject yet.
    const user = await makeUser({ email: "first-link@example.com" });
    expect(await linkOf(user._id)).toEqual({ issuer: null, subject: null, linked: false });
    const id = account({ email: "first-link@example.com" });
    const { callback } = await roundTrip(id);
    expect(callback.status).toBe(302);
    expect(await linkOf(user._id)).toEqual({ issuer: provider.issuer, subject: id, linked: true });
    const history = await historyOf("user", user._id);
    expect(history.filter((h) => h.action === "Linked to an account at the identity provider")).toEqual([
      expect.objectContaining({ from: null, to: `${id} at ${provider.issuer}`, actorId: null }),
    ]);
    // The next sign-in finds the person by the link; nothing more is recorded.
    const entries = history.length;
    expect((await roundTrip(id)).callback.status).toBe(302);
    expect((await historyOf("user", user._id)).length).toBe(entries);
  });

  it("a person created at the first sign-in is linked from the start", async () => {
    configure({ OIDC_AUTO_CREATE: "1" });
    const id = account({ email: "created-linked@example.com" });
    const { jar } = await roundTrip(id);
    const me = await call(myUserRoute, { path: "/api/myUser", token: (await tokenIn(jar))! });
    expect(await linkOf(me.body.userData._id)).toEqual({ issuer: provider.issuer, subject: id, linked: true });
  });

  it("another account at the provider with the same email is refused, nothing signed in, the conflict listed for admins", async () => {
    const admin = await makeAdmin();
    const user = await makeUser({ email: "shared-mailbox@example.com" });
    const first = account({ email: "shared-mailbox@example.com" });
    await roundTrip(first);
    const other = account({ email: "Shared-Mailbox@example.com", name: "Someone Else" });

    await expectRefused(
      roundTrip(other),
      /^This company account is not the one linked to shared-mailbox@example\.com; ask an administrator$/,
    );
    const { callback } = await roundTrip(other);
    expect(callback.status).toBe(403);
    // The link is as it was, and the linked account still signs in.
    expect(await linkOf(user._id)).toMatchObject({ subject: first });
    expect((await roundTrip(first)).callback.status).toBe(302);

    const { conflicts } = await adminList(admin);
    const mine = conflicts.filter((c) => c.user._id === user._id);
    expect(mine).toEqual([
      expect.objectContaining({
        issuer: provider.issuer,
        subject: other,
        email: "shared-mailbox@example.com",
        name: "Someone Else",
        linkedTo: `${first} at ${provider.issuer}`,
        attempts: 2,
      }),
    ]);
    expect(Date.parse(mine[0]!.lastAt)).toBeGreaterThanOrEqual(Date.parse(mine[0]!.firstAt));
    // What is kept names the account, never a token (a JWT starts "eyJ") or the client's secret.
    const stored = await getDb().execute<{ row: string }>(
      sql`select row_to_json(c)::text as row from oidc_conflicts c where user_id = ${user._id}`,
    );
    for (const { row } of stored) {
      expect(row).not.toMatch(/eyJ/);
      expect(row).not.toContain(provider.clientSecret);
    }
    // The person's page lists it too, with the link.
    const request = await buildRequest({
      path: `/admin/users/${user._id}`,
      token: await tokenFor(admin),
      cookie: true,
    });
    const page = await adminUserPage.loader({ request, params: { id: user._id }, context: {} } as never);
    expect(page.provider?.link?.account).toBe(`${first} at ${provider.issuer}`);
    expect(page.provider?.conflicts.map((c) => c.subject)).toEqual([other]);
    // One audit entry for the conflict, however many attempts.
    const refusals = (await historyOf("user", user._id)).filter(
      (h) => h.action === "Refused a sign-in by another account at the identity provider",
    );
    expect(refusals).toEqual([
      expect.objectContaining({ from: `${first} at ${provider.issuer}`, to: `${other} at ${provider.issuer}` }),
    ]);
    // Nobody but an admin sees the list.
    const plain = await makeUser();
    await expect(adminList(plain)).rejects.toMatchObject({ init: { status: 403 } });
  });

  it("re-linking to the refused account lets it sign in, refuses the old one and ends its sessions, audited", async () => {
    const admin = await makeAdmin();
    const user = await makeUser({ email: "new-laptop@example.com" });
    const old = account({ email: "new-laptop@example.com" });
    const { jar: oldJar } = await roundTrip(old);
    const replacement = account({ email: "new-laptop@example.com" });
    await expectRefused(roundTrip(replacement), /not the one linked to new-laptop@example\.com/);
    const conflict = (await adminList(admin)).conflicts.find((c) => c.user._id === user._id)!;

    const res = await settle(admin, "relink", conflict.id, `/admin/users/${user._id}`);
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe(`/admin/users/${user._id}`);
    expect((await flashOf(res))?.kind).toBe("success");
    expect(await linkOf(user._id)).toMatchObject({ issuer: provider.issuer, subject: replacement });
    expect((await adminList(admin)).conflicts.find((c) => c.user._id === user._id)).toBeUndefined();
    const [row] = await getDb().execute<{ resolution: string; resolved_by: string }>(
      sql`select resolution, resolved_by from oidc_conflicts where id = ${conflict.id}`,
    );
    expect(row).toEqual({ resolution: "relinked", resolved_by: admin._id });
    expect((await historyOf("user", user._id)).at(-1)).toMatchObject({
      action: "Re-linked to another account at the identity provider",
      actorId: admin._id,
      from: `${old} at ${provider.issuer}`,
      to: `${replacement} at ${provider.issuer}`,
    });
    // The session the old account opened is over; the new account signs in, the old one is refused.
    expect((await call(myUserRoute, { path: "/api/myUser", token: (await tokenIn(oldJar))! })).status).toBe(401);
    const { jar } = await roundTrip(replacement);
    const me = await call(myUserRoute, { path: "/api/myUser", token: (await tokenIn(jar))! });
    expect(me.body.userData._id).toBe(user._id);
    await expectRefused(roundTrip(old), /not the one linked to new-laptop@example\.com/);

    // Settled once: a second click changes nothing and says why.
    const again = await settle(admin, "dismiss", conflict.id);
    expect(again.status).toBe(302);
    expect(await flashOf(again)).toEqual({ kind: "error", message: "This refused sign-in was already resolved" });
    expect(await linkOf(user._id)).toMatchObject({ subject: replacement });
  });

  it("dismissing leaves the link as it was, audited; a bad or unknown id changes nothing", async () => {
    const admin = await makeAdmin();
    const user = await makeUser({ email: "dismissed@example.com" });
    const mine = account({ email: "dismissed@example.com" });
    await roundTrip(mine);
    const intruder = account({ email: "dismissed@example.com" });
    await expectRefused(roundTrip(intruder), /not the one linked/);
    const conflict = (await adminList(admin)).conflicts.find((c) => c.user._id === user._id)!;

    for (const [intent, id] of [
      ["dismiss", "not-an-id"],
      ["relink", "00000000-0000-4000-8000-000000000000"],
      ["unlink", conflict.id],
    ] as const) {
      const res = await settle(admin, intent, id);
      expect(res.status).toBe(302);
      expect((await flashOf(res))?.kind).toBe("error");
    }
    // A non-admin's post is refused.
    const plain = await makeUser();
    await expect(settle(plain, "relink", conflict.id)).rejects.toMatchObject({ init: { status: 403 } });
    expect(await linkOf(user._id)).toMatchObject({ subject: mine });
    expect((await adminList(admin)).conflicts.map((c) => c.id)).toContain(conflict.id);

    const res = await settle(admin, "dismiss", conflict.id);
    expect((await flashOf(res))?.kind).toBe("success");
    expect(await linkOf(user._id)).toMatchObject({ subject: mine });
    expect((await adminList(admin)).conflicts.map((c) => c.id)).not.toContain(conflict.id);
    expect((await historyOf("user", user._id)).at(-1)).toMatchObject({
      action: "Dismissed a refused sign-in by another account at the identity provider",
      actorId: admin._id,
      to: `${intruder} at ${provider.issuer}`,
    });
    // Still refused; a new attempt is a new conflict to look at.
    await expectRefused(roundTrip(intruder), /not the one linked/);
    expect((await adminList(admin)).conflicts.filter((c) => c.user._id === user._id)).toHaveLength(1);
  });

  it("re-linking to an account linked to someone else meanwhile is refused", async () => {
    const admin = await makeAdmin();
    const user = await makeUser({ email: "taken-a@example.com" });
    const colleague = await makeUser({ email: "taken-b@example.com" });
    await roundTrip(account({ email: "taken-a@example.com" }));
    const shared = account({ email: "taken-a@example.com" });
    await expectRefused(roundTrip(shared), /not the one linked/);
    // The same account at the provider then signs in as the colleague, and is linked to them.
    provider.accounts.set(shared, { ...provider.accounts.get(shared)!, email: "taken-b@example.com" });
    expect((await roundTrip(shared)).callback.status).toBe(302);
    expect(await linkOf(colleague._id)).toMatchObject({ subject: shared });
    const conflict = (await adminList(admin)).conflicts.find((c) => c.user._id === user._id)!;
    const res = await settle(admin, "relink", conflict.id);
    expect(await flashOf(res)).toEqual({
      kind: "error",
      message: `That company account is linked to ${colleague.name} (taken-b@example.com); resolve that first`,
    });
    expect(await linkOf(user._id)).not.toMatchObject({ subject: shared });
  });

  it("a person whose email changes at the provider is still found by the subject", async () => {
    const user = await makeUser({ email: "maiden-name@example.com" });
    const other = await makeUser({ email: "someone-else@example.com" });
    const id = account({ email: "maiden-name@example.com" });
    await roundTrip(id);
    for (const email of ["married-name@example.com", "someone-else@example.com"]) {
      provider.accounts.set(id, { ...provider.accounts.get(id)!, email });
      const { callback, jar } = await roundTrip(id);
      expect(callback.status).toBe(302);
      const me = await call(myUserRoute, { path: "/api/myUser", token: (await tokenIn(jar))! });
      expect(me.body.userData).toMatchObject({ _id: user._id, email: "maiden-name@example.com" });
    }
    // The other person with that email is untouched, and still not linked.
    expect(await linkOf(other._id)).toEqual({ issuer: null, subject: null, linked: false });
  });
});

describe("PASSWORD_SIGN_IN=off", () => {
  it("refuses passwords except the break-glass admin's", async () => {
    const admin = await makeAdmin({ email: "breakglass@example.com" });
    const user = await makeUser();
    configure({ PASSWORD_SIGN_IN: "off", BREAK_GLASS_EMAIL: admin.email });
    const refused = await postLogin({ email: user.email, password: PASSWORD }, { json: true });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/Password sign-in is turned off; sign in with Contoso/);
    const allowed = await postLogin({ email: admin.email, password: PASSWORD }, { json: true });
    expect(allowed.status).toBe(200);
    expect((await loginPage()).passwordsOn).toBe(false);
  });

  it("a PCR signature needs a fresh sign-in at the provider, spent by one signature", async () => {
    const originator = await makeUser({ email: "originator-pcr@example.com" });
    const holders = await makeHolders(`oidc-${Date.now()}`);
    const admin = await makeAdmin({ email: "breakglass2@example.com" });
    configure({ PASSWORD_SIGN_IN: "off", BREAK_GLASS_EMAIL: admin.email });
    const pcr = await createPcrOk(originator);
    const id = account({ email: originator.email });
    const { jar } = await roundTrip(id);
    const token = (await tokenIn(jar))!;
    const post = async (body: unknown) =>
      call(signaturesRoute, { method: "POST", path: "/api/pcr/signatures", token, body });

    const body = {
      pcrId: pcr._id,
      signatures: await chainWith(pcr._id, "Change Originator", { signature: originator.name }),
    };
    const refused = await post(body);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/Confirm it is you with Contoso/);

    // The re-authentication: prompt=login and max_age=0 at the provider, as the same person.
    const loginsBefore = provider.logins();
    const { start, callback } = await roundTrip(id, { jar, reauth: true, redirectTo: `/pcrs/${pcr._id}` });
    const authorize = new URL(start.headers.get("Location")!);
    expect(authorize.searchParams.get("prompt")).toBe("login");
    expect(authorize.searchParams.get("max_age")).toBe("0");
    expect(provider.logins()).toBe(loginsBefore + 1);
    expect(callback.status).toBe(302);
    expect(callback.headers.get("Location")).toBe(`/pcrs/${pcr._id}`);

    const signed = await post(body);
    expect(signed.status, signed.text).toBe(200);
    expect(signed.body.data.signatures[0].Signature).toBe(originator.name);

    // Spent: the next signature asks again.
    void holders;
    const [again] = await getDb().execute<{ at: string | null }>(
      sql`select reauthenticated_at as at from sessions where user_id = ${originator._id}`,
    );
    expect(again!.at).toBeNull();
  });

  it("a re-authentication as someone else does not count", async () => {
    const admin = await makeAdmin({ email: "breakglass3@example.com" });
    const user = await makeUser({ email: "first@example.com" });
    await makeUser({ email: "second@example.com" });
    configure({ PASSWORD_SIGN_IN: "off", BREAK_GLASS_EMAIL: admin.email });
    const { jar } = await roundTrip(account({ email: user.email }));
    const { callback } = await roundTrip(account({ email: "second@example.com" }), { jar, reauth: true });
    expect(callback.status).toBe(403);
    expect(callback.body.message).toMatch(/someone else/);
    const [row] = await getDb().execute<{ at: string | null }>(
      sql`select reauthenticated_at as at from sessions where user_id = ${user._id}`,
    );
    expect(row!.at).toBeNull();
  });

  it("a re-authentication by another account with the person's email does not count", async () => {
    const admin = await makeAdmin({ email: "breakglass5@example.com" });
    const user = await makeUser({ email: "reauth-linked@example.com" });
    configure({ PASSWORD_SIGN_IN: "off", BREAK_GLASS_EMAIL: admin.email });
    const { jar } = await roundTrip(account({ email: user.email }));
    const { callback } = await roundTrip(account({ email: user.email }), { jar, reauth: true });
    expect(callback.status).toBe(403);
    expect(callback.body.message).toBe(
      "This company account is not the one linked to reauth-linked@example.com; ask an administrator",
    );
    const [row] = await getDb().execute<{ at: string | null }>(
      sql`select reauthenticated_at as at from sessions where user_id = ${user._id}`,
    );
    expect(row!.at).toBeNull();
  });

  it("/api/verify re-checks with the provider through the caller's own session", async () => {
    const admin = await makeAdmin({ email: "breakglass4@example.com" });
    const user = await makeUser({ email: "verifier-oidc@example.com" });
    configure({ PASSWORD_SIGN_IN: "off", BREAK_GLASS_EMAIL: admin.email });
    const id = account({ email: user.email });
    const { jar } = await roundTrip(id);
    const token = (await tokenIn(jar))!;
    const verify = (t?: string) =>
      call(verifyRoute, { path: "/api/verify", query: { email: user.email, password: "anything" }, token: t });
    expect((await verify()).status).toBe(403);
    expect((await verify(token)).status).toBe(403);
    await roundTrip(id, { jar, reauth: true });
    const ok = await verify(token);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.user.email).toBe(user.email);
    expect((await verify(token)).status).toBe(403);
    // The break-glass admin's password still verifies.
    const glass = await call(verifyRoute, {
      path: "/api/verify",
      query: { email: admin.email, password: PASSWORD },
    });
    expect(glass.status).toBe(200);
  });
});
