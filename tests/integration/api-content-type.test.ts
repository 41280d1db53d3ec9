/**
 * Cookie-authenticated writes under /api take JSON only (app/web/auth.server.ts `assertJsonBody`,
 * docs/decisions/028-untrusted-text-and-sign-in-links.md): a page of another site can make a
 * browser send the visitor's cookie with a `text/plain` or form body and no `Origin`, never with
 * `application/json`. Such a write is 415 and changes nothing; bearer clients are unaffected.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as chatRoute from "~/routes/api+/chat";
import * as userRoute from "~/routes/api+/user";
import * as usersRoute from "~/routes/api+/users";
import { getDb } from "~/utils/db.server";
import { api } from "../helpers/api";
import { makeAdmin, tokenFor } from "../helpers/factories";
import { BASE, buildRequest } from "../helpers/request";

let adminToken: string;
let user: Awaited<ReturnType<typeof makeAdmin>>;
let userToken: string;

beforeAll(async () => {
  adminToken = await tokenFor((await makeAdmin())!);
  // An admin: only admins change a display name, their own included (docs/decisions/026-four-eyes-by-record.md); the name is
  // just the field these writes carry.
  user = (await makeAdmin({ name: "Kari Kind" }))!;
  userToken = await tokenFor(user);
});

const nameOf = async (id: string) =>
  (await getDb().execute<{ name: string }>(sql`select name from users where id = ${id}`))[0]!.name;
const userCount = async () => (await getDb().execute<{ n: number }>(sql`select count(*)::int as n from users`))[0]!.n;

const NOT_JSON = [
  { type: "text/plain", body: JSON.stringify({ name: "Changed By Another Site" }) },
  { type: "text/plain;charset=UTF-8", body: JSON.stringify({ name: "Changed By Another Site" }) },
  { type: "application/x-www-form-urlencoded", body: "name=Changed+By+Another+Site" },
  {
    type: "multipart/form-data; boundary=x",
    body: '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nChanged\r\n--x--\r\n',
  },
];

describe("a cookie-authenticated write with a body that is not application/json", () => {
  for (const { type, body } of NOT_JSON) {
    it(`PATCH /api/user as ${type}: 415 with a message, the name unchanged`, async () => {
      const res = await api(userRoute, {
        method: "PATCH",
        path: "/api/user",
        token: userToken,
        cookie: true,
        body,
        headers: { "Content-Type": type },
      });
      expect(res.status).toBe(415);
      expect(res.body).toEqual({ status: 415, message: expect.stringMatching(/application\/json/) });
      expect(await nameOf(user._id)).toBe("Kari Kind");
    });
  }

  it("POST /api/users as text/plain with the admin's cookie and no Origin: 415, nobody created", async () => {
    const before = await userCount();
    const res = await api(usersRoute, {
      method: "POST",
      path: "/api/users",
      token: adminToken,
      cookie: true,
      headers: { "Content-Type": "text/plain" },
      body: JSON.stringify({
        name: "Planted",
        email: "planted@example.com",
        password: "long-enough-pw",
        department: "hseq",
        role: "admin",
      }),
    });
    expect(res.status).toBe(415);
    expect(await userCount()).toBe(before);
  });

  it("a body without any Content-Type (a Blob, as a no-cors fetch may send): 415", async () => {
    const signedIn = await buildRequest({ method: "PATCH", path: "/api/user", token: userToken, cookie: true });
    const text = JSON.stringify({ name: "Blob Body" });
    // What arrives on the socket: the length, and no type.
    signedIn.headers.set("Content-Length", String(text.length));
    const request = new Request(signedIn.url, { method: "PATCH", headers: signedIn.headers, body: new Blob([text]) });
    expect(request.headers.get("Content-Type")).toBeNull();
    const res = await userRoute.action({ request, params: {}, context: {} } as never);
    expect(res.status).toBe(415);
    expect(await nameOf(user._id)).toBe("Kari Kind");
  });
});

describe("what still goes through", () => {
  it("the same write as application/json (with a charset) from our origin", async () => {
    const res = await api(userRoute, {
      method: "PATCH",
      path: "/api/user",
      token: userToken,
      cookie: true,
      body: JSON.stringify({ name: "Kari Json" }),
      headers: { "Content-Type": "application/json; charset=utf-8", Origin: BASE },
    });
    expect(res.status).toBe(200);
    expect(await nameOf(user._id)).toBe("Kari Json");
  });

  it("a bearer client sending text/plain, as before (no browser attaches a bearer token by itself)", async () => {
    const res = await api(userRoute, {
      method: "PATCH",
      path: "/api/user",
      token: userToken,
      body: JSON.stringify({ name: "Kari Bearer" }),
      headers: { "Content-Type": "text/plain" },
    });
    expect(res.status).toBe(200);
    expect(await nameOf(user._id)).toBe("Kari Bearer");
  });

  it("a cookie write without a body (a DELETE by query) is not refused for its type", async () => {
    const res = await api(usersRoute, { method: "DELETE", path: "/api/users", token: userToken, cookie: true });
    expect(res.status).not.toBe(415);
  });

  it("reads with the cookie are not affected", async () => {
    const res = await api(chatRoute, {
      path: "/api/chat",
      query: { chat_id: crypto.randomUUID() },
      token: userToken,
      cookie: true,
      headers: { "Content-Type": "text/plain" },
    });
    expect(res.status).not.toBe(415);
  });
});
