import { expectNoSeriousA11yViolations } from "./axe";
import { ADMIN, expect, signIn, test } from "./fixtures";

// Each test scans whole pages with axe, which is CPU-heavy on two shared cores: a budget for the
// slowest run, not the typical one.
test.describe.configure({ timeout: 240_000 });

test("sign-in, dashboard, profile, users, outbox and audit pages pass an accessibility scan", async ({ page }) => {
  // Six pages, each with a full axe scan: several times one page's budget.
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
