/**
 * Signing in with the company's identity provider, and choosing one's notices, in a real browser
 * with JavaScript on and off (docs/decisions/029-oidc-and-notifications.md). The provider is the
 * tests' own `oidc-provider` (tests/helpers/oidc-provider.ts); an app instance configured for it
 * runs beside the Playwright server, on the same database.
 */
import { expect } from "@playwright/test";
import { signIn, test } from "./fixtures";
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

test("a refused sign-in says why on a page of its own", async ({ page }, info) => {
  const email = `unverified-${info.project.name}-${Date.now()}@e2e.test`;
  provider.accounts.set(email, { email, email_verified: false });
  provider.loginAs(email);
  await page.goto(`${instance.url}/login`);
  await page.getByRole("button", { name: "Sign in with Contoso" }).click();
  await expect(page.getByRole("heading", { name: "Sign-in refused" })).toBeVisible();
  await expect(page.getByRole("alert")).toContainText("has not confirmed your email address");
  await expect(page.getByRole("link", { name: "Back to the sign-in page" })).toBeVisible();
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
