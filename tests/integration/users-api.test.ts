/**
 * The users API: /api/users, /api/user, /api/UserFromDatabase, /api/myUser and /api/verify
 * (docs/api-contract.md, "Users"; docs/decisions/001-session-tokens.md, docs/decisions/002-differences-from-spec.md, app/models/authz/authz.server.ts). Every answer goes through `api`, which also checks
 * that no password or hash leaks and that /api answers are not cached.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as myUserRoute from "~/routes/api+/myUser";
import * as userRoute from "~/routes/api+/user";
import * as fromDbRoute from "~/routes/api+/UserFromDatabase";
import * as usersRoute from "~/routes/api+/users";
import * as verifyRoute from "~/routes/api+/verify";
import type { PublicUser } from "~/models/people/user.server";
import { getDb } from "~/utils/db.server";
import { users } from "#db/schema";
import { api } from "../helpers/api";
import { describeMocInvariants, expectUnchanged, userRow } from "../helpers/db-state";
import { makeAdmin, makeUser, PASSWORD, tokenFor } from "../helpers/factories";
import { postLogin, signsIn } from "../helpers/login";
import type { CallResult } from "../helpers/request";

type RouteModule = Parameters<typeof api>[0];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PUBLIC_KEYS = ["_id", "access", "active", "department", "email", "name", "onboarded", "position", "rank", "role"];
const TOKEN_INVALID = "Token claim validation failed";
const SIGN_IN_FIRST = "Sign in first";

/** The public view of a user as every endpoint returns it: exactly these keys. */
function publicView(user: PublicUser, changes: Partial<PublicUser> = {}) {
  const merged = { ...user, ...changes };
  return {
    _id: merged._id,
    name: merged.name,
    email: merged.email,
    role: merged.role,
    department: merged.department,
    access: merged.access,
    position: merged.position,
    rank: merged.rank,
    active: merged.active,
    onboarded: merged.onboarded,
  };
}

let seq = 0;
const uniqueEmail = (label = "new") => `${label.toLowerCase()}-${++seq}-${randomUUID().slice(0, 6)}@example.com`;

const newUserBody = (overrides: Record<string, unknown> = {}) => ({
  name: "New Person",
  email: uniqueEmail(),
  password: "initial-pass-1",
  department: "operations",
  ...overrides,
});

function expectError(res: CallResult, status: number) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ status, message: expect.any(String) });
  expect(res.body.message.length).toBeGreaterThan(0);
}

function expectIssues(res: CallResult, path?: string) {
  expectError(res, 400);
  expect(Array.isArray(res.body.issues)).toBe(true);
  expect(res.body.issues.length).toBeGreaterThan(0);
  for (const issue of res.body.issues) expect(issue).toEqual({ path: expect.any(String), message: expect.any(String) });
  if (path !== undefined) expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
}

// Reads: whatever they answer, they never change a user or a session.
const listUsers = (token: string) => expectUnchanged(() => api(usersRoute, { path: "/api/users", token }));
const createUser = (token: string | undefined, body: unknown) =>
  api(usersRoute, { method: "POST", path: "/api/users", token, body });
const updateUser = (token: string | undefined, body: unknown) =>
  api(usersRoute, { method: "PUT", path: "/api/users", token, body });
const deleteUser = (token: string | undefined, body: unknown) =>
  api(usersRoute, { method: "DELETE", path: "/api/users", token, body });
const myUser = (token?: string) => expectUnchanged(() => api(myUserRoute, { path: "/api/myUser", token }));
/** A refused sign-in opens no session and changes no user. */
const cannotSignIn = async (email: string, password: string) =>
  expect(await expectUnchanged(() => signsIn(email, password))).toBe(false);

/** Leaves `admin` as the only admin in this file's database (tests in a file run one by one). */
async function soleAdmin() {
  await getDb().update(users).set({ role: "user" }).where(eq(users.role, "admin"));
  const admin = await makeAdmin();
  return { admin, token: await tokenFor(admin) };
}

/**
 * Two admins acting on each other at once: one wins; the other is refused, with 409 (the last-admin
 * check), 403 (the winner's change took their admin role before they were identified) or 401 (the
 * winner deleted them, and their session with them, before they were identified).
 */
function expectOneWinner(results: CallResult[]) {
  const statuses = results.map((r) => r.status).sort();
  expect(statuses[0]).toBe(200);
  expect([401, 403, 409]).toContain(statuses[1]);
}

async function adminSession() {
  const admin = await makeAdmin();
  return { admin, token: await tokenFor(admin) };
}

const ONE_MIB_AND_MORE = JSON.stringify({ name: "x".repeat(1024 * 1024 + 10), email: "big@example.com" });

// ---------------------------------------------------------------------------------------------

type Endpoint = {
  name: string;
  route: RouteModule;
  method: string;
  path: string;
  body?: (target: PublicUser) => unknown;
};

const REQUIRED_ENDPOINTS: Endpoint[] = [
  { name: "GET /api/users", route: usersRoute, method: "GET", path: "/api/users" },
  { name: "POST /api/users", route: usersRoute, method: "POST", path: "/api/users", body: () => newUserBody() },
  {
    name: "PUT /api/users",
    route: usersRoute,
    method: "PUT",
    path: "/api/users",
    body: (t) => ({ _id: t._id, role: "admin" }),
  },
  { name: "DELETE /api/users", route: usersRoute, method: "DELETE", path: "/api/users", body: (t) => ({ _id: t._id }) },
  { name: "GET /api/user", route: userRoute, method: "GET", path: "/api/user" },
  { name: "PATCH /api/user", route: userRoute, method: "PATCH", path: "/api/user", body: () => ({ name: "Changed" }) },
  { name: "GET /api/UserFromDatabase", route: fromDbRoute, method: "GET", path: "/api/UserFromDatabase" },
  {
    name: "PUT /api/UserFromDatabase",
    route: fromDbRoute,
    method: "PUT",
    path: "/api/UserFromDatabase",
    body: () => ({ name: "Changed" }),
  },
  { name: "GET /api/myUser", route: myUserRoute, method: "GET", path: "/api/myUser" },
];

describe("signed-out callers", () => {
  it.each(REQUIRED_ENDPOINTS)("$name answers 401 without a session and changes nothing", async (endpoint) => {
    const target = await makeUser();
    const res = await expectUnchanged(() =>
      api(endpoint.route, { method: endpoint.method, path: endpoint.path, body: endpoint.body?.(target) }),
    );
    expect(res.status).toBe(401);
    // GET /api/myUser keeps the contract's message for "no cookie" (docs/api-contract.md).
    expect(res.body).toEqual({ status: 401, message: endpoint.path === "/api/myUser" ? TOKEN_INVALID : SIGN_IN_FIRST });
  });

  it.each(REQUIRED_ENDPOINTS)("$name answers 401 to a cookie holding a forged token", async (endpoint) => {
    const target = await makeUser();
    const res = await expectUnchanged(() =>
      api(endpoint.route, {
        method: endpoint.method,
        path: endpoint.path,
        body: endpoint.body?.(target),
        token: "eyJhbGciOiJub25lIn0.eyJyb2xlIjoiYWRtaW4ifQ.",
        cookie: true,
      }),
    );
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 401, message: TOKEN_INVALID });
  });
});

describe("unsupported methods", () => {
  it.each([
    { route: usersRoute, path: "/api/users", method: "PATCH", allow: "GET, POST, PUT, DELETE" },
    { route: userRoute, path: "/api/user", method: "DELETE", allow: "GET, PATCH" },
    { route: fromDbRoute, path: "/api/UserFromDatabase", method: "POST", allow: "GET, PUT" },
    { route: myUserRoute, path: "/api/myUser", method: "POST", allow: "GET" },
    { route: verifyRoute, path: "/api/verify", method: "PUT", allow: "GET, POST" },
  ])("$method $path answers 405 with Allow: $allow", async ({ route, path, method, allow }) => {
    const { token } = await adminSession();
    const res = await expectUnchanged(() => api(route, { method, path, token, body: { name: "Changed" } }));
    expectError(res, 405);
    expect(res.headers.get("Allow")).toBe(allow);
  });
});

// ---------------------------------------------------------------------------------------------

describe("GET /api/users", () => {
  it("lists every user, without secrets, to any signed-in user", async () => {
    const admin = await makeAdmin();
    const reader = await makeUser({ department: "fleet" });
    const res = await listUsers(await tokenFor(reader));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 200, data: expect.any(Array) });
    const all = await getDb().select().from(users);
    expect(res.body.data).toHaveLength(all.length);
    for (const item of res.body.data) expect(Object.keys(item).sort()).toEqual(PUBLIC_KEYS);
    expect(res.body.data).toContainEqual(publicView(admin));
    expect(res.body.data).toContainEqual(publicView(reader));
  });

  it("filters by ?search= on name or email, case-insensitively and literally", async () => {
    const match = await makeUser({ name: "Quentin Zebrafish" });
    const byEmail = await makeUser({ email: `zebrafish-${randomUUID().slice(0, 6)}@example.com` });
    const other = await makeUser({ name: "100% Someone" });
    const token = await tokenFor(other);
    const res = await api(usersRoute, { path: "/api/users", query: { search: "ZEBRAFISH" }, token });
    expect(res.status).toBe(200);
    expect(res.body.data.map((u: PublicUser) => u._id).sort()).toEqual([match._id, byEmail._id].sort());
    const literal = await api(usersRoute, { path: "/api/users", query: { search: "100%" }, token });
    expect(literal.body.data.map((u: PublicUser) => u._id)).toEqual([other._id]);
  });
});

// ---------------------------------------------------------------------------------------------

describe("POST /api/users", () => {
  it("lets an admin create a user: 201, normalised email, defaults, hashed password, not onboarded", async () => {
    const { token } = await adminSession();
    const email = uniqueEmail("Created");
    const res = await createUser(token, {
      name: "  Ada Lovelace  ",
      email: `  ${email.toUpperCase()}  `,
      password: "initial-pass-1",
      department: "operations",
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      status: 201,
      data: {
        _id: expect.stringMatching(UUID),
        name: "Ada Lovelace",
        email,
        role: "user",
        department: "operations",
        access: "standard",
        position: null,
        rank: null,
        active: true,
        onboarded: false,
      },
    });
    const row = await userRow(res.body.data._id);
    expect(row?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(await signsIn(email, "initial-pass-1")).toBe(true);
    const listed = await listUsers(token);
    expect(listed.body.data).toContainEqual(res.body.data);
  });

  it("stores every allowed field the admin sends", async () => {
    const { token } = await adminSession();
    const body = newUserBody({ role: "admin", department: "hseq", access: "full", position: "HSEQ Coordinator" });
    const res = await createUser(token, body);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      role: "admin",
      department: "hseq",
      access: "full",
      position: "HSEQ Coordinator",
      onboarded: false,
    });
    expect(await userRow(res.body.data._id)).toMatchObject({ role: "admin", position: "HSEQ Coordinator" });
  });

  it.each([
    { label: "the same email", variant: (e: string) => e },
    { label: "the email in capitals", variant: (e: string) => e.toUpperCase() },
    { label: "the email padded with spaces", variant: (e: string) => `  ${e}  ` },
  ])("answers 409 to $label of an existing user and creates nothing", async ({ variant }) => {
    const { token } = await adminSession();
    const existing = await makeUser();
    const res = await expectUnchanged(() => createUser(token, newUserBody({ email: variant(existing.email) })));
    expectError(res, 409);
  });

  it.each([
    { label: "a standard user", overrides: {} },
    { label: "an hseq user", overrides: { department: "hseq" as const } },
    { label: "a full-access user", overrides: { access: "full" as const } },
    { label: "a position holder", overrides: { position: "President" as const } },
  ])("answers 403 to $label and creates nothing", async ({ overrides }) => {
    const token = await tokenFor(await makeUser(overrides));
    const res = await expectUnchanged(() => createUser(token, newUserBody({ role: "admin" })));
    expectError(res, 403);
  });

  it.each([
    { label: "a name that is not a string", body: newUserBody({ name: 42 }), path: "name" },
    { label: "a blank name", body: newUserBody({ name: "   " }), path: "name" },
    { label: "a malformed email", body: newUserBody({ email: "not-an-email" }), path: "email" },
    { label: "an email that is not a string", body: newUserBody({ email: ["a@b.co"] }), path: "email" },
    { label: "a password of 7 characters", body: newUserBody({ password: "1234567" }), path: "password" },
    { label: "a password that is not a string", body: newUserBody({ password: 12345678 }), path: "password" },
    { label: "an unknown department", body: newUserBody({ department: "marketing" }), path: "department" },
    { label: "an unknown role", body: newUserBody({ role: "superuser" }), path: "role" },
    { label: "an unknown access level", body: newUserBody({ access: "partial" }), path: "access" },
    { label: "an unknown position", body: newUserBody({ position: "CEO" }), path: "position" },
    { label: "missing required fields", body: {}, path: "email" },
    { label: "an array", body: [newUserBody()], path: "" },
    { label: "a JSON string", body: JSON.stringify("hello"), path: "" },
    { label: "malformed JSON", body: '{"name": "Broken",', path: "" },
    { label: "an empty body", body: "", path: "" },
    { label: "a whitespace body", body: "   \n", path: "" },
  ])("answers 400 with issues to $label and creates nothing", async ({ body, path }) => {
    const { token } = await adminSession();
    const res = await expectUnchanged(() => createUser(token, body));
    expectIssues(res, path);
  });

  it("lists every missing field at once", async () => {
    const { token } = await adminSession();
    const res = await expectUnchanged(() => createUser(token, {}));
    expectIssues(res);
    expect(res.body.issues.map((i: { path: string }) => i.path).sort()).toEqual([
      "department",
      "email",
      "name",
      "password",
    ]);
  });

  it("answers 413 to a body over 1 MiB and creates nothing", async () => {
    const { token } = await adminSession();
    const res = await expectUnchanged(() => createUser(token, ONE_MIB_AND_MORE));
    expectError(res, 413);
  });
});

// ---------------------------------------------------------------------------------------------

describe("PUT /api/users", () => {
  it("lets an admin change another user's fields", async () => {
    const { token } = await adminSession();
    const target = await makeUser();
    const email = uniqueEmail("moved");
    const changes = {
      name: "Renamed Person",
      email: email.toUpperCase(),
      department: "fleet",
      access: "full",
      position: "VP Fleet Management",
    } as const;
    const res = await updateUser(token, { _id: target._id, ...changes });
    expect(res.status).toBe(200);
    const expected = publicView(target, { ...changes, email });
    expect(res.body).toEqual({ status: 200, data: expected });
    expect(await userRow(target._id)).toMatchObject({ ...changes, email, id: target._id });
    // position can be cleared again
    const cleared = await updateUser(token, { _id: target._id, position: null });
    expect(cleared.body.data.position).toBeNull();
  });

  it("re-hashes a new password, signs the user out and makes them onboard again", async () => {
    const { token } = await adminSession();
    const target = await makeUser();
    const targetToken = await tokenFor(target);
    const before = await userRow(target._id);
    const res = await updateUser(token, { _id: target._id, password: "admin-chosen-9" });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(publicView(target, { onboarded: false }));
    const after = await userRow(target._id);
    expect(after?.passwordHash).not.toBe(before?.passwordHash);
    expect(after?.passwordHash).toMatch(/^\$argon2id\$/);
    expect(after?.onboarded).toBe(false);
    expect((await myUser(targetToken)).status).toBe(401);
    await cannotSignIn(target.email, PASSWORD);
    expect(await signsIn(target.email, "admin-chosen-9")).toBe(true);
    // Signed in again, they may only see their own profile until they choose a password.
    const signedIn = await postLogin({ email: target.email, password: "admin-chosen-9" }, { json: true });
    expect(signedIn.body).toMatchObject({ onboarded: false });
    const fresh: string = signedIn.body.token;
    expect((await listUsers(fresh)).status).toBe(403);
    expect((await api(userRoute, { path: "/api/user", token: fresh })).status).toBe(200);
  });

  it("keeps the hash, the onboarding and the sessions when the password is the same", async () => {
    const { token } = await adminSession();
    const target = await makeUser();
    const targetToken = await tokenFor(target);
    const before = await userRow(target._id);
    const res = await updateUser(token, { _id: target._id, password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.data.onboarded).toBe(true);
    expect((await userRow(target._id))?.passwordHash).toBe(before?.passwordHash);
    expect((await myUser(targetToken)).status).toBe(200);
  });

  it("deactivating a user ends their sessions and stops them signing in; reactivating lets them back", async () => {
    const { token } = await adminSession();
    const target = await makeUser();
    const targetToken = await tokenFor(target);
    const res = await updateUser(token, { _id: target._id, active: false });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(publicView(target, { active: false }));
    const refused = await myUser(targetToken);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe(TOKEN_INVALID);
    expect((await listUsers(targetToken)).status).toBe(401);
    await cannotSignIn(target.email, PASSWORD);
    const verify = await expectUnchanged(() =>
      api(verifyRoute, { path: "/api/verify", query: { email: target.email, password: PASSWORD } }),
    );
    expect(verify.status).toBe(401);

    expect((await updateUser(token, { _id: target._id, active: true })).status).toBe(200);
    expect((await myUser(targetToken)).status).toBe(401);
    expect(await signsIn(target.email, PASSWORD)).toBe(true);
  });

  it("answers 409 to an email another user has (in any case) and changes nothing", async () => {
    const { token } = await adminSession();
    const [target, other] = [await makeUser(), await makeUser()];
    const res = await expectUnchanged(() =>
      updateUser(token, { _id: target._id, name: "Should Not Stick", email: ` ${other.email.toUpperCase()} ` }),
    );
    expectError(res, 409);
  });

  it("answers 404 to an unknown id", async () => {
    const { token } = await adminSession();
    const res = await expectUnchanged(() => updateUser(token, { _id: randomUUID(), name: "Nobody" }));
    expectError(res, 404);
  });

  it.each([
    { label: "a malformed _id", body: (id: string) => ({ _id: `${id}x`, name: "X" }), path: "_id" },
    { label: "no _id", body: () => ({ name: "X" }), path: "_id" },
    { label: "a key that is not a user field", body: (id: string) => ({ _id: id, onboarded: true }), path: "" },
    { label: "active that is not a boolean", body: (id: string) => ({ _id: id, active: "no" }), path: "active" },
    { label: "an unknown role", body: (id: string) => ({ _id: id, role: "root" }), path: "role" },
    { label: "an unknown department", body: (id: string) => ({ _id: id, department: "it" }), path: "department" },
    { label: "a short password", body: (id: string) => ({ _id: id, password: "short" }), path: "password" },
    { label: "a malformed email", body: (id: string) => ({ _id: id, email: "a@" }), path: "email" },
    { label: "malformed JSON", body: () => "{", path: "" },
    { label: "an empty body", body: () => "", path: "" },
  ])("answers 400 with issues to $label and changes nothing", async ({ body, path }) => {
    const { token } = await adminSession();
    const target = await makeUser();
    const res = await expectUnchanged(() => updateUser(token, body(target._id)));
    expectIssues(res, path);
  });

  it("answers 403 to a non-admin, even changing themselves, and changes nothing", async () => {
    const actor = await makeUser({ department: "hseq", access: "full" });
    const actorToken = await tokenFor(actor);
    const other = await makeUser();
    const self = await expectUnchanged(() => updateUser(actorToken, { _id: actor._id, role: "admin" }));
    expectError(self, 403);
    const res = await expectUnchanged(() => updateUser(actorToken, { _id: other._id, name: "Changed" }));
    expectError(res, 403);
  });

  it("answers 413 to a body over 1 MiB", async () => {
    const { token } = await adminSession();
    const res = await expectUnchanged(() => updateUser(token, ONE_MIB_AND_MORE));
    expectError(res, 413);
  });

  describe("the last active admin", () => {
    it.each([
      { label: "demote", change: { role: "user" } },
      { label: "deactivate", change: { active: false } },
    ])("cannot $label themselves: 409 and nothing changes", async ({ change }) => {
      const { admin, token } = await soleAdmin();
      const res = await expectUnchanged(() => updateUser(token, { _id: admin._id, ...change }));
      expectError(res, 409);
      expect((await createUser(token, newUserBody())).status).toBe(201);
    });

    it("counts only active admins", async () => {
      const { admin, token } = await soleAdmin();
      const dormant = await makeAdmin();
      expect((await updateUser(token, { _id: dormant._id, active: false })).status).toBe(200);
      const res = await expectUnchanged(() => updateUser(token, { _id: admin._id, role: "user" }));
      expectError(res, 409);
    });

    it("can step down once another active admin exists", async () => {
      const { admin, token } = await soleAdmin();
      await makeAdmin();
      const res = await updateUser(token, { _id: admin._id, role: "user" });
      expect(res.status).toBe(200);
      expect(res.body.data.role).toBe("user");
    });

    it("two admins demoting each other at the same moment leave one admin", async () => {
      for (let round = 0; round < 5; round++) {
        const { admin: a, token: ta } = await soleAdmin();
        const b = await makeAdmin();
        const tb = await tokenFor(b);
        const results = await Promise.all([
          updateUser(ta, { _id: b._id, role: "user" }),
          updateUser(tb, { _id: a._id, role: "user" }),
        ]);
        expectOneWinner(results);
        const admins = await getDb().select().from(users).where(eq(users.role, "admin"));
        expect(admins).toHaveLength(1);
      }
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe("DELETE /api/users", () => {
  it("lets an admin delete a user for good; their sessions end", async () => {
    const { token } = await adminSession();
    const target = await makeUser();
    const targetToken = await tokenFor(target);
    const res = await deleteUser(token, { _id: target._id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 200, data: { _id: target._id } });
    expect(await userRow(target._id)).toBeUndefined();
    const after = await myUser(targetToken);
    expect(after.status).toBe(401);
    expect(after.body.message).toBe(TOKEN_INVALID);
    await cannotSignIn(target.email, PASSWORD);
    expect((await listUsers(token)).body.data.map((u: PublicUser) => u._id)).not.toContain(target._id);
    // Deleting again: gone.
    expectError(await expectUnchanged(() => deleteUser(token, { _id: target._id })), 404);
  });

  it("refuses to delete yourself with 409", async () => {
    const { admin, token } = await adminSession();
    await makeAdmin();
    const res = await expectUnchanged(() => deleteUser(token, { _id: admin._id }));
    expectError(res, 409);
  });

  it("refuses to delete the last admin with 409 (yourself, as the only admin)", async () => {
    const { admin, token } = await soleAdmin();
    const res = await expectUnchanged(() => deleteUser(token, { _id: admin._id }));
    expectError(res, 409);
  });

  it("two admins deleting each other at the same moment leave one admin", async () => {
    for (let round = 0; round < 5; round++) {
      const { admin: a, token: ta } = await soleAdmin();
      const b = await makeAdmin();
      const tb = await tokenFor(b);
      const results = await Promise.all([deleteUser(ta, { _id: b._id }), deleteUser(tb, { _id: a._id })]);
      expectOneWinner(results);
      const admins = await getDb().select().from(users).where(eq(users.role, "admin"));
      expect(admins).toHaveLength(1);
    }
  });

  it("answers 404 to an unknown id", async () => {
    const { token } = await adminSession();
    const res = await expectUnchanged(() => deleteUser(token, { _id: randomUUID() }));
    expectError(res, 404);
  });

  it.each([
    { label: "a malformed _id", body: { _id: "42" }, path: "_id" },
    { label: "no _id", body: {}, path: "_id" },
    { label: "malformed JSON", body: "{]", path: "" },
    { label: "an empty body", body: "", path: "" },
  ])("answers 400 with issues to $label", async ({ body, path }) => {
    const { token } = await adminSession();
    await makeUser();
    const res = await expectUnchanged(() => deleteUser(token, body));
    expectIssues(res, path);
  });

  it("answers 403 to a non-admin and deletes nothing", async () => {
    const token = await tokenFor(await makeUser({ access: "full", department: "hseq" }));
    const target = await makeUser();
    const res = await expectUnchanged(() => deleteUser(token, { _id: target._id }));
    expectError(res, 403);
  });
});

// ---------------------------------------------------------------------------------------------

describe("reading yourself", () => {
  it("GET /api/myUser answers { userData, status: 200 }", async () => {
    const user = await makeUser({ department: "fleet", access: "full", position: "VP Fleet Management" });
    for (const cookie of [false, true]) {
      const res = await api(myUserRoute, { path: "/api/myUser", token: await tokenFor(user), cookie });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        userData: {
          _id: user._id,
          name: user.name,
          email: user.email,
          role: "user",
          department: "fleet",
          access: "full",
          position: "VP Fleet Management",
        },
        status: 200,
      });
    }
  });

  it("GET /api/UserFromDatabase answers { user, status: 200 } from the database, not the token", async () => {
    const user = await makeUser();
    const token = await tokenFor(user);
    await getDb().update(users).set({ name: "Changed Elsewhere" }).where(eq(users.id, user._id));
    const res = await api(fromDbRoute, { path: "/api/UserFromDatabase", token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ user: publicView(user, { name: "Changed Elsewhere" }), status: 200 });
  });

  it("GET /api/user answers the user with their pending actions (none yet)", async () => {
    const user = await makeUser();
    const res = await api(userRoute, { path: "/api/user", token: await tokenFor(user) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 200, data: { ...publicView(user), actions: [] } });
  });
});

// ---------------------------------------------------------------------------------------------

const SELF_EDIT = [
  {
    name: "PATCH /api/user",
    route: userRoute as RouteModule,
    method: "PATCH",
    path: "/api/user",
    read: (res: CallResult) => {
      expect(Object.keys(res.body).sort()).toEqual(["data", "status"]);
      return res.body.data;
    },
  },
  {
    name: "PUT /api/UserFromDatabase",
    route: fromDbRoute as RouteModule,
    method: "PUT",
    path: "/api/UserFromDatabase",
    read: (res: CallResult) => {
      expect(Object.keys(res.body).sort()).toEqual(["status", "user"]);
      return res.body.user;
    },
  },
];

describe.each(SELF_EDIT)("$name", ({ route, method, path, read }) => {
  const edit = (token: string | undefined, body: unknown, cookie = false) =>
    api(route, { method, path, token, body, cookie });

  it("changes your own email with the current password (issue 32 item 10)", async () => {
    const user = await makeUser();
    const email = uniqueEmail("moved");
    const res = await edit(await tokenFor(user), { email: ` ${email.toUpperCase()} `, currentPassword: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(200);
    expect(read(res)).toEqual(publicView(user, { email }));
    expect(await userRow(user._id)).toMatchObject({ email });
    expect(await signsIn(email, PASSWORD)).toBe(true);
  });

  it("refuses an email change without the current password or with a wrong one (400 on currentPassword)", async () => {
    const user = await makeUser();
    const token = await tokenFor(user);
    for (const proof of [{}, { currentPassword: "not-my-password" }]) {
      const res = await expectUnchanged(() => edit(token, { email: uniqueEmail("hijack"), ...proof }));
      expectError(res, 400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(["currentPassword"]);
    }
    // The same email again is no change and needs nothing.
    expect((await edit(token, { email: user.email })).status).toBe(200);
  });

  it("refuses a change of one's own name unless an admin (issue 32 item 7); the same name passes", async () => {
    const user = await makeUser();
    const token = await tokenFor(user);
    const res = await expectUnchanged(() => edit(token, { name: "Petra Nilsen" }));
    expectError(res, 403);
    expect(res.body.message).toContain("Only an admin can change your name");
    expect((await edit(token, { name: user.name })).status).toBe(200);
    const admin = await makeAdmin();
    const renamed = await edit(await tokenFor(admin), { name: "Renamed Admin" });
    expect(renamed.status, renamed.text).toBe(200);
    expect((await userRow(admin._id))?.name).toBe("Renamed Admin");
  });

  it("ignores an _id in the body: only your own record changes", async () => {
    const [user, other] = [await makeUser(), await makeUser()];
    const otherBefore = await userRow(other._id);
    const email = uniqueEmail("not-hijacked");
    const res = await edit(await tokenFor(user), { _id: other._id, email, currentPassword: PASSWORD });
    expect(res.status).toBe(200);
    expect(read(res)._id).toBe(user._id);
    expect((await userRow(user._id))?.email).toBe(email);
    expect(await userRow(other._id)).toEqual(otherBefore);
  });

  it("answers 409 to an email another user has (in any case) and changes nothing", async () => {
    const [user, other] = [await makeUser(), await makeUser()];
    const token = await tokenFor(user);
    const res = await expectUnchanged(() =>
      edit(token, { email: other.email.toUpperCase(), currentPassword: PASSWORD }),
    );
    expectError(res, 409);
  });

  it("changes the password with the current one, ending your other sessions but not this one", async () => {
    const user = await makeUser();
    const current = await tokenFor(user);
    const other = await tokenFor(user);
    const before = await userRow(user._id);
    const res = await edit(current, { password: "my-own-secret-7", currentPassword: PASSWORD });
    expect(res.status).toBe(200);
    expect(read(res)).toEqual(publicView(user));
    const after = await userRow(user._id);
    expect(after?.passwordHash).not.toBe(before?.passwordHash);
    expect(after?.passwordHash).toMatch(/^\$argon2id\$/);
    expect((await myUser(current)).status).toBe(200);
    const revoked = await myUser(other);
    expect(revoked.status).toBe(401);
    expect(revoked.body.message).toBe(TOKEN_INVALID);
    await cannotSignIn(user.email, PASSWORD);
    expect(await signsIn(user.email, "my-own-secret-7")).toBe(true);
  });

  it.each([
    { label: "without currentPassword", body: { password: "my-own-secret-7" } },
    { label: "with a wrong currentPassword", body: { password: "my-own-secret-7", currentPassword: "wrong-guess-1" } },
    { label: "with an empty currentPassword", body: { password: "my-own-secret-7", currentPassword: "" } },
  ])("refuses a password change $label: 400 on currentPassword, nothing changes", async ({ body }) => {
    const user = await makeUser();
    const token = await tokenFor(user);
    const other = await tokenFor(user);
    const res = await expectUnchanged(() => edit(token, { ...body, email: uniqueEmail("should-not-stick") }));
    expectIssues(res, "currentPassword");
    expect((await myUser(other)).status).toBe(200);
    expect(await signsIn(user.email, PASSWORD)).toBe(true);
  });

  it.each([
    { field: "role", value: "admin" },
    { field: "department", value: "hseq" },
    { field: "access", value: "full" },
    { field: "position", value: "President" },
    { field: "active", value: false },
    { field: "onboarded", value: true },
  ])("answers 403 to the admin-only field $field and changes nothing", async ({ field, value }) => {
    const user = await makeUser();
    const token = await tokenFor(user);
    const res = await expectUnchanged(() => edit(token, { name: "Should Not Stick", [field]: value }));
    expectError(res, 403);
    expect(res.body.message).toContain(field);
  });

  it("answers 403 to admin-only fields even when an admin sends them about themselves", async () => {
    const { token } = await adminSession();
    const res = await expectUnchanged(() => edit(token, { role: "user", access: "standard" }));
    expectError(res, 403);
  });

  it.each([
    { label: "a name that is not a string", body: { name: 42 }, path: "name" },
    { label: "a blank name", body: { name: " " }, path: "name" },
    { label: "a malformed email", body: { email: "me-at-example.com" }, path: "email" },
    { label: "a short new password", body: { password: "1234567", currentPassword: PASSWORD }, path: "password" },
    { label: "an array", body: [{ name: "X" }], path: "" },
    { label: "malformed JSON", body: "{name:", path: "" },
    { label: "an empty body", body: "", path: "" },
  ])("answers 400 with issues to $label and changes nothing", async ({ body, path }) => {
    const user = await makeUser();
    const token = await tokenFor(user);
    const res = await expectUnchanged(() => edit(token, body));
    expectIssues(res, path);
  });

  it("answers 413 to a body over 1 MiB", async () => {
    const user = await makeUser();
    const token = await tokenFor(user);
    const res = await expectUnchanged(() => edit(token, ONE_MIB_AND_MORE));
    expectError(res, 413);
  });
});

// ---------------------------------------------------------------------------------------------

describe("users who have not chosen their own password", () => {
  const newcomer = async (overrides = {}) => {
    const user = await makeUser({ onboarded: false, ...overrides });
    return { user, token: await tokenFor(user) };
  };

  it.each([
    { name: "GET /api/users", run: (t: string) => listUsers(t) },
    { name: "POST /api/users", run: (t: string) => createUser(t, newUserBody()) },
    { name: "PUT /api/users", run: (t: string, self: PublicUser) => updateUser(t, { _id: self._id, name: "X" }) },
    { name: "DELETE /api/users", run: (t: string, self: PublicUser) => deleteUser(t, { _id: self._id }) },
  ])("get 403 from $name, even as an admin, and change nothing", async ({ run }) => {
    const { user, token } = await newcomer({ role: "admin", department: "hseq", access: "full" });
    await makeAdmin();
    const res = await expectUnchanged(() => run(token, user));
    expectError(res, 403);
  });

  it("may read themselves through GET /api/user, /api/UserFromDatabase and /api/myUser", async () => {
    const { user, token } = await newcomer();
    const profile = await api(userRoute, { path: "/api/user", token });
    expect(profile.status).toBe(200);
    expect(profile.body.data).toEqual({ ...publicView(user), actions: [] });
    expect(profile.body.data.onboarded).toBe(false);
    const fromDb = await api(fromDbRoute, { path: "/api/UserFromDatabase", token });
    expect(fromDb.body).toEqual({ user: publicView(user), status: 200 });
    expect((await myUser(token)).status).toBe(200);
  });

  it("onboard by choosing a new password with PATCH /api/user, then may use the API", async () => {
    const { user, token } = await newcomer();
    const res = await api(userRoute, {
      method: "PATCH",
      path: "/api/user",
      token,
      body: { password: "chosen-by-me-1", currentPassword: PASSWORD },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(publicView(user, { onboarded: true }));
    expect((await userRow(user._id))?.onboarded).toBe(true);
    expect((await listUsers(token)).status).toBe(200);
  });

  it("cannot onboard by 'choosing' the password the admin gave them", async () => {
    const { user, token } = await newcomer();
    const res = await expectUnchanged(() =>
      api(userRoute, {
        method: "PATCH",
        path: "/api/user",
        token,
        body: { password: PASSWORD, currentPassword: PASSWORD },
      }),
    );
    expectIssues(res, "password");
    expect((await userRow(user._id))?.onboarded).toBe(false);
  });

  it("may change their email before onboarding (with the given password), which keeps them not onboarded", async () => {
    const { user, token } = await newcomer();
    const email = uniqueEmail("fresh");
    const res = await api(userRoute, {
      method: "PATCH",
      path: "/api/user",
      token,
      body: { email, currentPassword: PASSWORD },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual(publicView(user, { email, onboarded: false }));
    expect((await listUsers(token)).status).toBe(403);
  });
});

// ---------------------------------------------------------------------------------------------

describe("GET /api/verify", () => {
  const verify = (query: Record<string, string>) =>
    expectUnchanged(() => api(verifyRoute, { path: "/api/verify", query }));

  it("answers { message, status: 200, user } for the right password, without a session", async () => {
    const user = await makeUser();
    const res = await verify({ email: ` ${user.email.toUpperCase()} `, password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: expect.any(String), status: 200, user: publicView(user) });
    expect(res.headers.get("Set-Cookie")).toBeNull();
  });

  it("answers a wrong password and an unknown email with the same 401", async () => {
    const user = await makeUser();
    const wrong = await verify({ email: user.email, password: "not-the-password" });
    const unknown = await verify({ email: uniqueEmail("ghost"), password: "not-the-password" });
    expectError(wrong, 401);
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
  });

  it.each<{ label: string; query: Record<string, string>; paths: string[] }>([
    { label: "no query", query: {}, paths: ["email", "password"] },
    { label: "a malformed email", query: { email: "nobody", password: "whatever-1" }, paths: ["email"] },
    { label: "an empty password", query: { email: "someone@example.com", password: "" }, paths: ["password"] },
  ])("answers 400 with issues to $label", async ({ query, paths }) => {
    const res = await verify(query);
    expectIssues(res);
    expect(res.body.issues.map((i: { path: string }) => i.path).sort()).toEqual(paths);
  });
});

describeMocInvariants();
