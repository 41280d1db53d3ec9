/**
 * Signing in with the company's identity provider, and choosing one's notices, in a real browser
 * with JavaScript on and off (docs/decisions/029-oidc-and-notifications.md), and an admin settling a
 * refused company sign-in (docs/decisions/052-oidc-subject-link.md). The provider is the
 * tests' own `oidc-provider` (tests/helpers/oidc-provider.ts); an app instance configured for it
 * runs beside the Playwright server, on the same database.
 */
import { expect } from "@playwright/test";
import { ADMIN, signIn, test } from "./fixtures";
import { freePort, startSecondInstance, type Instance } from "./second-instance";
import { startTestProvider, type TestProvider } from "../helpers/oidc-provider";

test.describe.configure({ mode: "serial" });

let provider: TestProvider;
let instance: Instance;

test.beforeAll(async () => {
  const port = await freePort();
  const app = `http://127.0.0.1:${port}`;
  provider = await startTestProvider({ redirectUri: `${app}/auth/oidc/callback`, postLogoutUri: `${app}/login` });
  instance = await startSecondInstance({
    port,
    env: {
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_SCOPES: "openid email profile groups",
      OIDC_DISPLAY_NAME: "Contoso",
      OIDC_AUTO_CREATE: "1",
    },
  });
});

test.afterAll(async () => {
  await instance?.stop();
  await provider?.close();
});

test("the sign-in button takes a person through the provider and back where they were going", async ({
  page,
}, info) => {
  const email = `crew-${info.project.name}-${Date.now()}@e2e.test`;
  provider.accounts.set(email, { email, email_verified: true, name: "Crew Member" });
  provider.loginAs(email);
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`${instance.url}/login?redirectTo=${encodeURIComponent("/notifications")}`);
  const button = page.getByRole("button", { name: "Sign in with Contoso" });
  await expect(button).toBeVisible();
  await page.screenshot({ path: info.outputPath("login-375.png"), fullPage: true });
  await button.click();
  await page.waitForURL(`${instance.url}/notifications`);
  await expect(page.getByRole("heading", { name: "Notifications" })).toBeVisible();
  // At 375 px the signed-in name sits in the collapsed menu: present, not necessarily shown.
  await expect(page.getByText("Crew Member").first()).toBeAttached();
});

test("a refused sign-in says why on a page of its own", { tag: "@once" }, async ({ page }, info) => {
  const email = `unverified-${info.project.name}-${Date.now()}@e2e.test`;
  provider.accounts.set(email, { email, email_verified: false });
  provider.loginAs(email);
  await page.goto(`${instance.url}/login`);
  await page.getByRole("button", { name: "Sign in with Contoso" }).click();
  await expect(page.getByRole("heading", { name: "Sign-in refused" })).toBeVisible();
  await expect(page.getByRole("alert")).toContainText("has not confirmed your email address");
  await expect(page.getByRole("link", { name: "Back to the sign-in page" })).toBeVisible();
});

test("another company account with a linked person's email is refused, and an admin links the person to it", async ({
  page,
}, info) => {
  // Three round trips through the provider and an admin's sign-in: 51 s on a loaded machine.
  test.setTimeout(120_000);
  const email = `relink-${info.project.name}-${Date.now()}@e2e.test`;
  const first = `${email}-first`;
  const second = `${email}-second`;
  for (const id of [first, second]) {
    provider.accounts.set(id, { email, email_verified: true, name: "Relinked Person" });
  }
  // A fresh browser each time: no session here, none at the provider.
  const signInAt = async (id: string) => {
    await page.context().clearCookies();
    provider.loginAs(id);
    await page.goto(`${instance.url}/login`);
    await page.getByRole("button", { name: "Sign in with Contoso" }).click();
  };
  await signInAt(first);
  await page.waitForURL(`${instance.url}/`);
  await signInAt(second);
  await expect(page.getByRole("heading", { name: "Sign-in refused" })).toBeVisible();
  await expect(page.getByRole("alert")).toHaveText(
    `This company account is not the one linked to ${email}; ask an administrator`,
  );

  await page.context().clearCookies();
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto("/admin/users");
  const refused = page.getByRole("region", { name: "Refused company sign-ins" });
  const row = refused.getByRole("row").filter({ hasText: second });
  await expect(row).toContainText(`subject ${second} at ${provider.issuer}`);
  await expect(row).toContainText(`${first} at ${provider.issuer}`);
  await row
    .getByRole("button", { name: `Link to this account: Relinked Person to ${email} (subject ${second})` })
    .click();
  await expect(page.getByText("Relinked Person is now linked to the company account that was refused")).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: second })).toHaveCount(0);

  await signInAt(second);
  await page.waitForURL(`${instance.url}/`);
  await expect(page.getByText("Relinked Person").first()).toBeAttached();
});

test("the notification choices page saves a choice and keeps the floor", async ({ page, createUser }, info) => {
  const user = await createUser();
  await page.setViewportSize({ width: 375, height: 900 });
  await signIn(page, user.email, user.password);
  await page.goto("/notifications");
  await page.getByRole("link", { name: "Choose which notices you get" }).click();
  await expect(page.getByRole("heading", { name: "Notification choices" })).toBeVisible();
  const waiting = page.getByRole("group", { name: "Steps waiting on me" });
  // A step waiting on you cannot be turned off: no "Off" there.
  await expect(waiting.getByLabel("Off")).toHaveCount(0);
  const mentions = page.getByRole("group", { name: "Chat mentions" });
  await mentions.getByLabel("In-app only").check();
  await page.screenshot({ path: info.outputPath("preferences-375.png"), fullPage: true });
  await page.getByRole("button", { name: "Save choices" }).click();
  await expect(page.getByText("Your choices are saved.")).toBeVisible();
  await page.reload();
  await expect(page.getByRole("group", { name: "Chat mentions" }).getByLabel("In-app only")).toBeChecked();
  await page.getByRole("group", { name: "Chat mentions" }).getByLabel("Email and in-app").check();
  await page.getByRole("button", { name: "Save choices" }).click();
  await expect(page.getByText("Your choices are saved.")).toBeVisible();
});
