import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { ADMIN, expect, signIn, test } from "./fixtures";

// axe runs as a script in the page, so this file runs in the JavaScript project only; the markup
// it checks is the same server-rendered HTML either way.

export async function expectNoSeriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`)).toEqual([]);
}

test("sign-in, dashboard, profile, users and outbox pages pass an accessibility scan", async ({ page }) => {
  await page.goto("/login");
  await expectNoSeriousA11yViolations(page);
  await signIn(page, ADMIN.email, ADMIN.password);
  await expect(page.getByRole("heading", { name: "Waiting on me" })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await page.goto("/profile");
  await expectNoSeriousA11yViolations(page);
  await page.goto("/admin/users");
  await expectNoSeriousA11yViolations(page);
  await page.goto("/admin/outbox");
  await expect(page.getByRole("heading", { name: "Outbox" })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
});
