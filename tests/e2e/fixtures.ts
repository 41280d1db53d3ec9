import { test as base, expect, type Page } from "@playwright/test";
import { randomBytes } from "node:crypto";

export const ADMIN = { email: "admin@e2e.test", password: "e2e-admin-password" };
export const PASSWORD = "e2e-user-password";

type NewUser = {
  name?: string;
  email?: string;
  password?: string;
  role?: "admin" | "user";
  department?: "engineering" | "operations" | "fleet" | "hseq";
  access?: "full" | "standard";
  position?: string | null;
};

/** Fills and sends the real /login form (works with JavaScript on and off). */
export async function attemptSignIn(page: Page, email: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Signs in and waits until the app has left the sign-in page. */
export async function signIn(page: Page, email: string, password: string) {
  await attemptSignIn(page, email, password);
  await page.waitForURL((url) => url.pathname !== "/login");
}

/** A user made by `createUser`; `token` is a live session (bearer or `session` cookie), absent when not onboarded. */
export type CreatedUser = Required<Pick<NewUser, "name" | "email" | "password" | "department">> & {
  _id: string;
  token?: string;
  /** The same session as the `session` cookie's value, as /login set it. */
  cookie?: string;
};

/** Creates a user through the real API as the admin, already onboarded unless `onboarded: false`. */
export type CreateUser = (user?: NewUser & { onboarded?: boolean }) => Promise<CreatedUser>;

/** The `session` cookie's value in a Set-Cookie header. */
export function sessionCookieOf(setCookie: string | undefined): string {
  const value = setCookie?.match(/(?:^|\n)session=([^;]+)/)?.[1];
  if (!value) throw new Error(`no session cookie in ${setCookie}`);
  return value;
}

export const test = base.extend<{ adminToken: string; createUser: CreateUser }>({
  adminToken: async ({ request }, use) => {
    const response = await request.post("/login", {
      form: ADMIN,
      headers: { Accept: "application/json" },
    });
    expect(response.status()).toBe(200);
    const { token } = (await response.json()) as { token: string };
    await use(token);
  },
  createUser: async ({ request, adminToken }, use) => {
    await use(async (user = {}) => {
      const tag = randomBytes(4).toString("hex");
      const input = {
        name: user.name ?? `E2E User ${tag}`,
        email: user.email ?? `e2e-${tag}@example.com`,
        password: user.password ?? `first-${tag}-password`,
        role: user.role ?? "user",
        department: user.department ?? "engineering",
        access: user.access ?? "standard",
        position: user.position ?? null,
      };
      const created = await request.post("/api/users", {
        data: input,
        headers: { Authorization: `Bearer ${adminToken}` },
      });
      expect(created.status()).toBe(201);
      const { data } = (await created.json()) as { data: { _id: string } };
      if (user.onboarded === false) return { ...input, _id: data._id };
      // Onboard through the API: sign in with the admin-set password, choose PASSWORD.
      const login = await request.post("/login", {
        form: { email: input.email, password: input.password },
        headers: { Accept: "application/json" },
      });
      const { token } = (await login.json()) as { token: string };
      const cookie = sessionCookieOf(login.headers()["set-cookie"]);
      const patched = await request.patch("/api/user", {
        data: { password: PASSWORD, currentPassword: input.password },
        headers: { Authorization: `Bearer ${token}` },
      });
      expect(patched.status()).toBe(200);
      // A password change revokes the user's other sessions, not this one: keep it for API calls.
      return { ...input, password: PASSWORD, _id: data._id, token, cookie };
    });
  },
});

export { expect };
