import { ADMIN, attemptSignIn, expect, PASSWORD, signIn, test } from "./fixtures";

test("signs in and out", async ({ page, createUser }) => {
  const user = await createUser();
  await signIn(page, user.email, user.password);
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("heading", { name: "Waiting on me" })).toBeVisible();
  await expect(page.getByRole("link", { name: user.name })).toBeVisible();
  // Not an admin: no Users link.
  await expect(page.getByRole("link", { name: "Users", exact: true })).toHaveCount(0);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto("/");
  await expect(page).toHaveURL(/\/login/);
});

test("a wrong password shows a message and keeps the email", async ({ page, createUser }) => {
  const user = await createUser();
  await attemptSignIn(page, user.email, "not-the-password");
  await expect(page.getByText("Invalid email or password")).toBeVisible();
  await expect(page.getByLabel("Email")).toHaveValue(user.email);
  await expect(page.getByLabel("Password")).toHaveValue("");
});

test("a page asked for while signed out comes back after sign-in", async ({ page, createUser }) => {
  const user = await createUser();
  await page.goto("/profile");
  await expect(page).toHaveURL(/\/login\?redirectTo=%2Fprofile/);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByRole("heading", { name: "Your profile" })).toBeVisible();
});

test("an admin creates a user who onboards and lands on the dashboard", async ({ page, browser }) => {
  const tag = Date.now().toString(36) + Math.random().toString(36).slice(2, 6);
  const email = `new-${tag}@example.com`;
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.getByRole("link", { name: "Users", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Users", level: 1 })).toBeVisible();
  await page.getByText("Create a user").click();
  await page.getByLabel("Name", { exact: true }).fill(`Nina ${tag}`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("First password").fill("admin-chosen-1");
  await page.getByLabel("Department").selectOption("operations");
  await page.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByText(`Nina ${tag} can now sign in`)).toBeVisible();
  await expect(page.getByRole("cell", { name: new RegExp(email) })).toBeVisible();

  const context = await browser.newContext({ javaScriptEnabled: test.info().project.use.javaScriptEnabled });
  const newcomer = await context.newPage();
  await signIn(newcomer, email, "admin-chosen-1");
  await expect(newcomer).toHaveURL(/\/onboarding$/);
  // Nothing else is reachable before the password is chosen.
  await newcomer.goto("/profile");
  await expect(newcomer).toHaveURL(/\/onboarding\?redirectTo=%2Fprofile$/);
  // Back to the first stop: the dashboard once the password is chosen.
  await newcomer.goto("/onboarding");
  await newcomer.getByLabel("New password", { exact: true }).fill(PASSWORD);
  await newcomer.getByLabel("Repeat the new password").fill("something-else");
  await newcomer.getByRole("button", { name: "Set password and continue" }).click();
  await expect(newcomer.getByText("The two passwords do not match")).toBeVisible();
  await newcomer.getByLabel("New password", { exact: true }).fill(PASSWORD);
  await newcomer.getByLabel("Repeat the new password").fill(PASSWORD);
  await newcomer.getByRole("button", { name: "Set password and continue" }).click();
  await expect(newcomer).toHaveURL(/\/$/);
  await expect(newcomer.getByText("Your password is set")).toBeVisible();
  await expect(newcomer.getByRole("heading", { name: "Waiting on me" })).toBeVisible();
  await context.close();
});

test("profile: a password change needs the current password", async ({ page, createUser }) => {
  const user = await createUser();
  await signIn(page, user.email, user.password);
  await page.getByRole("link", { name: user.name }).click();
  // The details form asks for the current password too (to change the email): this is the password form's.
  const passwordForm = page.getByRole("region", { name: "Change password" });
  await passwordForm.getByLabel("Current password").fill("wrong-current");
  await page.getByLabel("New password", { exact: true }).fill("brand-new-password");
  await page.getByLabel("Repeat the new password").fill("brand-new-password");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText("Current password is not correct")).toBeVisible();
  await passwordForm.getByLabel("Current password").fill(user.password);
  await page.getByLabel("New password", { exact: true }).fill("brand-new-password");
  await page.getByLabel("Repeat the new password").fill("brand-new-password");
  await page.getByRole("button", { name: "Change password" }).click();
  await expect(page.getByText("Your password is changed")).toBeVisible();
});

test("admin: deactivate, and a delete that records prevent is explained", async ({ page, createUser }) => {
  const user = await createUser();
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto(`/admin/users?q=${encodeURIComponent(user.email)}`);
  await page.getByRole("button", { name: `Deactivate ${user.name}` }).click();
  await expect(page.getByText(`${user.name} is deactivated`)).toBeVisible();
  await expect(page.getByRole("button", { name: `Activate ${user.name}` })).toBeVisible();
  // The admin cannot delete themselves.
  await page.goto(`/admin/users?q=${encodeURIComponent(ADMIN.email)}`);
  await page.getByRole("link", { name: /^Delete Administrator/ }).click();
  await page.getByRole("button", { name: /^Delete Administrator.* permanently$/ }).click();
  await expect(page.getByText("You cannot delete your own account")).toBeVisible();
});

test("a standard user gets the 403 page on the admin pages", { tag: "@once" }, async ({ page, createUser }) => {
  const user = await createUser();
  await signIn(page, user.email, user.password);
  const response = await page.goto("/admin/users");
  expect(response?.status()).toBe(403);
  await expect(page.getByRole("heading", { name: "Not allowed" })).toBeVisible();
});

test("unknown pages get the 404 page", { tag: "@once" }, async ({ page }) => {
  const response = await page.goto("/no-such-page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
});

test("pages carry the security headers", { tag: "@once" }, async ({ page }) => {
  const response = await page.goto("/login");
  const headers = response!.headers();
  expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(headers["content-security-policy"]).toMatch(/script-src 'self' 'nonce-/);
  // The stylesheet is a file of this origin (app/utils/stylesheet.tsx).
  expect(headers["content-security-policy"]).toMatch(/style-src 'self'/);
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["x-frame-options"]).toBe("DENY");
  expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
});
