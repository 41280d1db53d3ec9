/**
 * Lockout driven from outside (app/models/people/password-attempts.server.ts,
 * app/models/sign-in/sign-in-link.server.ts, docs/decisions/028-untrusted-text-and-sign-in-links.md):
 * budgets follow the account, not its email; IPv6 clients count by /64; /api/verify cannot be
 * spent by another site; and a locked-out owner still gets in with a one-time emailed link.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as signInLinkPage from "~/routes/_auth+/login_.link";
import * as myUserRoute from "~/routes/api+/myUser";
import * as userRoute from "~/routes/api+/user";
import * as verifyRoute from "~/routes/api+/verify";
import { listOutbox } from "~/models/messages/email.server";
import { PASSWORD_BUDGETS, startPasswordAttempt } from "~/models/people/password-attempts.server";
import { CLIENT_ADDRESS_HEADER, clientAddressHeader } from "~/utils/client-address.server";
import { getDb } from "~/utils/db.server";
import { databaseErrorCode } from "~/utils/errors";
import { api } from "../helpers/api";
import { makeAdmin, makeUser, PASSWORD, tokenFor } from "../helpers/factories";
import { postLogin } from "../helpers/login";
import { BASE, buildRequest, call } from "../helpers/request";

const from = (address: string) => ({ [CLIENT_ADDRESS_HEADER]: clientAddressHeader(address) });
const login = (email: string, password: string, address: string) =>
  postLogin({ email, password }, { json: true, headers: from(address) });
const verifyGet = (email: string, password: string, address: string, headers: Record<string, string> = {}) =>
  api(verifyRoute, { path: "/api/verify", query: { email, password }, headers: { ...from(address), ...headers } });
const verifyPost = (body: unknown, address: string, headers: Record<string, string> = {}) =>
  api(verifyRoute, { method: "POST", path: "/api/verify", body, headers: { ...from(address), ...headers } });

describe("failure budgets follow the account, not its email (item 10)", () => {
  it("an account locked from an address stays locked after its email changes", async () => {
    const user = await makeUser();
    const address = "198.51.100.23";
    for (let i = 0; i < 10; i++) expect((await login(user.email, "wrong-password", address)).status).toBe(401);
    expect((await login(user.email, PASSWORD, address)).status).toBe(429);
    const newEmail = `renamed-${randomUUID()}@example.com`;
    const changed = await api(userRoute, {
      method: "PATCH",
      path: "/api/user",
      token: await tokenFor(user),
      // Changing one's email re-authenticates (docs/decisions/026-four-eyes-by-record.md); the lock is on the address, not this check.
      body: { email: newEmail, currentPassword: PASSWORD },
    });
    expect(changed.status, changed.text).toBe(200);
    // Under its new email the account has no fresh budget.
    expect((await login(newEmail, PASSWORD, address)).status).toBe(429);
    expect((await verifyGet(newEmail, "wrong-password", address)).status).toBe(429);
  });

  it("an email no account has still gets a budget of its own (an unknown address behaves like a known one)", async () => {
    const email = `nobody-${randomUUID()}@example.com`;
    for (let i = 0; i < 10; i++) expect((await login(email, "wrong-password", "198.51.100.24")).status).toBe(401);
    expect((await login(email, "wrong-password", "198.51.100.24")).status).toBe(429);
  });
});

describe("IPv6 clients count by their /64 (item 13)", () => {
  it("ten failures from ten addresses of one /64 lock the account from the whole /64, not from elsewhere", async () => {
    const user = await makeUser();
    for (let i = 0; i < 10; i++) {
      expect((await login(user.email, "wrong-password", `2001:db8:7:1::${(i + 1).toString(16)}`)).status).toBe(401);
    }
    expect((await login(user.email, PASSWORD, "2001:db8:7:1:ffff:1234:5678:9abc")).status).toBe(429);
    expect((await login(user.email, PASSWORD, "2001:db8:7:2::1")).status).toBe(200);
  });

  it("a /64 spraying one password over many accounts is one address", async () => {
    const { limit } = PASSWORD_BUDGETS.address;
    for (let i = 0; i < limit; i++) {
      const res = await verifyGet(`spray-${i}-${randomUUID()}@example.com`, "Summer2026!", `2001:db8:9:9::${i + 1}`);
      expect(res.status).toBe(401);
    }
    const target = await makeUser();
    expect((await login(target.email, PASSWORD, "2001:db8:9:9:abcd::1")).status).toBe(429);
  });
});

describe("/api/verify cannot be spent by another site (item 13)", () => {
  it("GET started by another site is 403 and counts nothing", async () => {
    const user = await makeUser();
    const address = "198.51.100.31";
    for (let i = 0; i < 15; i++) {
      expect((await verifyGet(user.email, "wrong-password", address, { "Sec-Fetch-Site": "cross-site" })).status).toBe(
        403,
      );
      expect((await verifyGet(user.email, "wrong-password", address, { Origin: "https://evil.example" })).status).toBe(
        403,
      );
    }
    // The budget is untouched: the right password still answers.
    const fine = await verifyGet(user.email, PASSWORD, address);
    expect(fine.status).toBe(200);
    expect(fine.body).toMatchObject({ message: "Credentials are valid", status: 200, user: { _id: user._id } });
  });

  it("POST with a JSON body answers as GET does; text/plain and other sites are refused uncounted", async () => {
    const user = await makeUser();
    const address = "198.51.100.32";
    const right = await verifyPost({ email: user.email, password: PASSWORD }, address, { Origin: BASE });
    expect(right.status).toBe(200);
    expect(right.body).toMatchObject({ message: "Credentials are valid", status: 200, user: { _id: user._id } });
    expect((await verifyPost({ email: user.email, password: "wrong-password" }, address)).status).toBe(401);
    for (let i = 0; i < 12; i++) {
      const asText = await verifyPost(JSON.stringify({ email: user.email, password: "wrong-password" }), address, {
        "Content-Type": "text/plain",
      });
      expect(asText.status).toBe(415);
      const foreign = await verifyPost({ email: user.email, password: "wrong-password" }, address, {
        Origin: "https://evil.example",
      });
      expect(foreign.status).toBe(403);
    }
    expect((await verifyPost({ email: user.email, password: PASSWORD }, address)).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------
// The owner's way in: a one-time sign-in link

type PageAnswer = { status: number; location: string | null; setCookie: string | null; body: unknown };

async function linkPage(fields: Record<string, string>, address = "198.51.100.50"): Promise<PageAnswer> {
  const request = await buildRequest({
    method: "POST",
    path: "/login/link",
    body: new URLSearchParams(fields).toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: BASE, ...from(address) },
  });
  const result: unknown = await signInLinkPage.action({ request, params: {}, context: {} });
  if (result instanceof Response) {
    return {
      status: result.status,
      location: result.headers.get("Location"),
      setCookie: result.headers.get("Set-Cookie"),
      body: null,
    };
  }
  const { data, init } = result as { data: unknown; init: ResponseInit | null };
  if (result && typeof result === "object" && "type" in result) {
    return { status: init?.status ?? 200, location: null, setCookie: null, body: data };
  }
  return { status: 200, location: null, setCookie: null, body: result };
}

async function linksSentTo(email: string): Promise<string[]> {
  const rows = await getDb().execute<{ text: string }>(
    sql`select text from email_messages where to_email = ${email} order by created_at`,
  );
  return rows.map((r) => r.text.match(/\/login\/link\?token=([A-Za-z0-9_-]+)/)?.[1]).filter((t): t is string => !!t);
}

describe("a locked-out owner signs in with a one-time link (item 13)", () => {
  it("an account locked everywhere: the password is refused, the emailed link signs in once", async () => {
    const user = await makeUser();
    // Five networks spend the whole account's budget.
    for (let i = 0; i < PASSWORD_BUDGETS.account.limit; i++) {
      expect((await verifyGet(user.email, "wrong-password", `10.77.${i % 5}.${i}`)).status).toBe(401);
    }
    expect((await login(user.email, PASSWORD, "192.0.2.200")).status).toBe(429);

    const asked = await linkPage({ intent: "send", email: user.email.toUpperCase() }, "192.0.2.200");
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ sent: true });
    const [token] = await linksSentTo(user.email);
    expect(token).toBeDefined();
    // The database keeps only its hash.
    const [stored] = await getDb().execute<{ token_hash: string }>(
      sql`select token_hash from sign_in_links where user_id = ${user._id}`,
    );
    expect(stored!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored!.token_hash).not.toContain(token!);

    const used = await linkPage({ intent: "redeem", token: token! });
    expect(used.status).toBe(302);
    expect(used.location).toBe("/");
    const cookie = used.setCookie!.split(";")[0]!;
    const me = await call(myUserRoute, { path: "/api/myUser", headers: { Cookie: cookie } });
    expect(me.status).toBe(200);
    expect(me.body._id ?? me.body.data?._id ?? JSON.stringify(me.body)).toContain(user._id);

    // Once only.
    const again = await linkPage({ intent: "redeem", token: token! });
    expect(again.status).toBe(400);
    expect(again.setCookie).toBeNull();
  });

  it("the same answer for an email no account has, and no email sent", async () => {
    const email = `nobody-${randomUUID()}@example.com`;
    const asked = await linkPage({ intent: "send", email });
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ sent: true });
    expect(await linksSentTo(email)).toEqual([]);
  });

  it("an expired link, a made-up token and a deactivated account's link do not sign in", async () => {
    const user = await makeUser();
    await linkPage({ intent: "send", email: user.email });
    const [token] = await linksSentTo(user.email);
    await getDb().execute(
      sql`update sign_in_links set expires_at = now() - interval '1 second' where user_id = ${user._id}`,
    );
    expect((await linkPage({ intent: "redeem", token: token! })).status).toBe(400);
    expect((await linkPage({ intent: "redeem", token: "A".repeat(43) })).status).toBe(400);
    expect((await linkPage({ intent: "redeem", token: "not a token" })).status).toBe(400);

    const leaving = await makeUser();
    await linkPage({ intent: "send", email: leaving.email });
    const [leavingToken] = await linksSentTo(leaving.email);
    await getDb().execute(sql`update users set active = false where id = ${leaving._id}`);
    expect((await linkPage({ intent: "redeem", token: leavingToken! })).status).toBe(400);
  });

  it("using one link voids the account's other links; asking is capped per account without telling", async () => {
    const user = await makeUser();
    for (let i = 0; i < 5; i++) expect((await linkPage({ intent: "send", email: user.email })).status).toBe(200);
    const tokens = await linksSentTo(user.email);
    expect(tokens).toHaveLength(3);
    expect((await linkPage({ intent: "redeem", token: tokens[2]! })).status).toBe(302);
    expect((await linkPage({ intent: "redeem", token: tokens[0]! })).status).toBe(400);
  });

  it("a sign-in link asked for by another site is refused", async () => {
    const user = await makeUser();
    const request = await buildRequest({
      method: "POST",
      path: "/login/link",
      body: new URLSearchParams({ intent: "send", email: user.email }).toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://evil.example" },
    });
    await expect(signInLinkPage.action({ request, params: {}, context: {} })).rejects.toMatchObject({
      init: { status: 403 },
    });
    expect(await linksSentTo(user.email)).toEqual([]);
  });

  it("the admin outbox shows a sign-in email without its token", async () => {
    const admin = await makeAdmin();
    const user = await makeUser();
    await linkPage({ intent: "send", email: user.email });
    const [token] = await linksSentTo(user.email);
    const { messages } = await listOutbox(admin, { recipient: user.email });
    expect(messages.length).toBeGreaterThan(0);
    expect(JSON.stringify(messages)).not.toContain(token!);
    expect(messages[0]!.text).toContain("/login/link?token=(hidden-in-the-outbox)");
  });
});

describe("parallel sign-ins of one account from one address (CI saw a 500 on the admin's sign-in)", () => {
  it("counting and clearing, four at a time, never deadlock: every statement locks the rows in key order", async () => {
    const user = await makeUser();
    const failures: unknown[] = [];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let i = 0; i < 60; i++) {
          try {
            const attempt = await startPasswordAttempt(user.email, "198.51.100.77");
            await attempt.succeeded();
          } catch (error) {
            failures.push(databaseErrorCode(error) ?? String(error));
          }
        }
      }),
    );
    // Before: deadlocks (40P01) in most rounds, then 429s as the deadlocked ones kept their points.
    expect(failures).toEqual([]);
    const [row] = await getDb().execute<{ points: number }>(
      sql`select points from rate_limits where key = ${`login-account:user:${user._id}`}`,
    );
    // Every point was handed back: the account's budget across addresses is whole again.
    expect(row?.points).toBe(0);
  });

  it("eight sign-ins at once, five times over, all succeed", async () => {
    const user = await makeUser();
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all(Array.from({ length: 8 }, () => login(user.email, PASSWORD, "198.51.100.78")));
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    }
  });
});
