import { expectNoSeriousA11yViolations } from "./axe";
import { ADMIN, expect, signIn, test } from "./fixtures";

test("sign-in, dashboard, profile, users, outbox and audit pages pass an accessibility scan", async ({ page }) => {
  // Six pages, each with a full axe scan: several times one page's budget.
  test.setTimeout(120_000);
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
  await page.goto("/admin/audit");
  await expect(page.getByRole("heading", { name: "Audit trail", level: 1 })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
});
