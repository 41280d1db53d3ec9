/** Axe on the pages docs/decisions/024-everyday-use.md added or changed: notifications, a user's edit page, a confirmation step, a deviation decision. */
import { ADMIN, signIn } from "./fixtures";
import { expectNoSeriousA11yViolations } from "./axe";
import { expect, ready, test } from "./moc-fixtures";
import { implementationForm } from "../helpers/moc";

test("notifications, the user edit page and the delete confirmation have no serious violations", async ({
  page,
  createUser,
}) => {
  // Four pages scanned, each a full axe run: more than a minute on two busy cores.
  test.slow();
  const user = await createUser();
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto("/notifications");
  await ready(page);
  await expectNoSeriousA11yViolations(page);
  await page.goto(`/admin/users/${user._id}`);
  await ready(page);
  await expectNoSeriousA11yViolations(page);
  await page.goto(`/admin/users?q=${encodeURIComponent(user.email)}&delete=${user._id}`);
  await ready(page);
  await expect(page.getByRole("region", { name: `Delete ${user.name}?` })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto("/admin/users");
  await ready(page);
  await expectNoSeriousA11yViolations(page);
});

test("a MOC waiting on a deviation decision, and the decision form with errors", async ({ cast, mocApi, openAs }) => {
  // Three full axe runs after a MOC is taken to its implementation: the slow budget too.
  test.slow();
  const at = await mocApi.createAt(cast, "implementation");
  await mocApi.submit("/api/submit/implementation", cast.implementer, {
    moc_id: at._id,
    implementation: implementationForm({ deviation: true }),
  });
  const page = await openAs(cast.approver);
  await page.goto(`/mocs/${at._id}`);
  await ready(page);
  await expectNoSeriousA11yViolations(page);
  await page.goto(`/mocs/${at._id}/deviation`);
  await ready(page);
  await page.getByRole("button", { name: "Record decision on the deviation" }).click();
  await expect(page.getByText("Choose whether to accept or reject it")).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await page.goto("/notifications");
  await ready(page);
  await expectNoSeriousA11yViolations(page);
});
