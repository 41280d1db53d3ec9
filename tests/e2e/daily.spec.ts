/**
 * Everyday use (docs/decisions/024-everyday-use.md): the walkthrough's findings as scripts, each with JavaScript on and off
 * (the js and no-js projects), plus notifications, links to the work and the MOC list.
 */
import type { Page } from "@playwright/test";
import { ADMIN, signIn } from "./fixtures";
import { answer, expect, fillRichText, jsEnabled, ready, serialOf, test } from "./moc-fixtures";
import { implementationForm, verifierForm } from "../helpers/moc";

/** The page is no wider than the phone's screen (nothing scrolls sideways). */
async function expectNoSidewaysScroll(page: Page) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width, page.url()).toBeLessThanOrEqual(375);
}

test("1. an admin edits a user's role, department and password on their own page", async ({ page, createUser }) => {
  const user = await createUser({ department: "engineering" });
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto(`/admin/users?q=${encodeURIComponent(user.email)}`);
  await page.getByRole("link", { name: `Edit ${user.name}` }).click();
  await expect(page.getByRole("heading", { name: `Edit ${user.name}` })).toBeVisible();
  // The edit form alone: not below the list.
  await expect(page.getByRole("table", { name: "Users" })).toHaveCount(0);
  await ready(page);
  await page.getByLabel("Department").selectOption({ label: "Fleet" });
  await page.getByLabel("Role").selectOption({ label: "Administrator" });
  await page.getByLabel("Set a new password").fill("a-brand-new-password");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText(`${user.name} is saved.`)).toBeVisible();
  const row = page.getByRole("row").filter({ hasText: user.email });
  await expect(row).toContainText("Fleet");
  await expect(row).toContainText("Admin");
});

test("4. deleting a user asks first on a confirmation step; Cancel keeps them", async ({ page, createUser }) => {
  const user = await createUser();
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto(`/admin/users?q=${encodeURIComponent(user.email)}`);
  await page.getByRole("link", { name: `Delete ${user.name}` }).click();
  const confirmation = page.getByRole("region", { name: `Delete ${user.name}?` });
  await expect(confirmation).toBeVisible();
  await confirmation.getByRole("link", { name: "Cancel" }).click();
  await expect(page.getByRole("region", { name: `Delete ${user.name}?` })).toHaveCount(0);
  await page.goto(`/admin/users?q=${encodeURIComponent(user.email)}`);
  await expect(page.getByRole("row").filter({ hasText: user.email })).toBeVisible();

  await page.getByRole("link", { name: `Delete ${user.name}` }).click();
  await page.getByRole("button", { name: `Delete ${user.name} permanently` }).click();
  await expect(page.getByText("The user was deleted.")).toBeVisible();
  await page.goto(`/admin/users?q=${encodeURIComponent(user.email)}`);
  await expect(page.getByText("No users match your search.")).toBeVisible();
});

test("4. deleting a MOC asks first; a bare delete post only leads to the question", async ({
  cast,
  mocApi,
  openAs,
}) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.originator);
  await page.goto(`/mocs/${moc._id}`);
  await ready(page);
  await page.getByRole("link", { name: "Delete MOC" }).click();
  const confirmation = page.getByRole("region", { name: `Delete MOC ${moc.serial_num}?` });
  await expect(confirmation).toBeVisible();
  await confirmation.getByRole("link", { name: "Cancel" }).click();
  await expect(page.getByRole("region", { name: `Delete MOC ${moc.serial_num}?` })).toHaveCount(0);
  expect((await mocApi.get(moc._id)).isDeleted).toBeFalsy();

  // A delete posted without the confirmation (an old form, a double click) only asks.
  const bare = await page.request.post(`/mocs/${moc._id}?index`, {
    form: { intent: "delete" },
    headers: { Origin: new URL(page.url()).origin },
    maxRedirects: 0,
  });
  expect(bare.status()).toBe(302);
  expect(bare.headers()["location"]).toBe(`/mocs/${moc._id}?delete#confirm-delete`);
  expect((await mocApi.get(moc._id)).isDeleted).toBeFalsy();

  await page.getByRole("link", { name: "Delete MOC" }).click();
  await page.getByRole("button", { name: `Delete MOC ${moc.serial_num}` }).click();
  await expect(page.getByText(`MOC ${moc.serial_num} was deleted.`)).toBeVisible();
});

test("5 and 8. a draft with only a description is saved, and waits on its originator", async ({ cast, openAs }) => {
  const page = await openAs(cast.originator);
  await page.goto("/mocs/new");
  await ready(page);
  await fillRichText(page, "Description of change", "Only an idea so far");
  await page.getByRole("button", { name: "Save draft" }).click();
  await expect(page.getByText(/is saved as a draft/)).toBeVisible();
  const serial = await serialOf(page);
  // Submitting it still needs the rest, each named.
  await page.getByRole("link", { name: "Open Part A (originator)" }).click();
  await ready(page);
  await page.getByRole("button", { name: "Submit MOC" }).click();
  await expect(page.getByLabel("Reason for change")).toHaveAccessibleDescription(/Give the reason for the change/);
  await expect(page.getByLabel("Department of change")).toHaveAccessibleDescription(
    /Choose the department of the change/,
  );
  // Focus lands on the first field to fix, not on the button.
  if (jsEnabled()) await expect(page.locator(":focus")).toHaveAttribute("aria-invalid", "true");
  // "Waiting on me" lists the draft.
  await page.goto("/");
  await expect(
    page
      .getByRole("region", { name: "Waiting on me" })
      .getByRole("link", { name: `MOC ${serial}: Part A (originator)` }),
  ).toBeVisible();
  await page.goto("/mocs?scope=waiting");
  await expect(page).toHaveTitle(/MOCs \(Waiting on me\)/);
  await expect(page.getByRole("link", { name: `MOC ${serial}` })).toBeVisible();
});

test("6 and 12. a deviation waits on its decision (badge, stepper, list); a rejection needs its reason", async ({
  cast,
  mocApi,
  openAs,
}) => {
  const at = await mocApi.createAt(cast, "implementation");
  await mocApi.submit("/api/submit/implementation", cast.implementer, {
    moc_id: at._id,
    implementation: implementationForm({ deviation: true }),
  });
  const page = await openAs(cast.approver);
  await page.goto(`/mocs/${at._id}`);
  await expect(page.locator(".owner-line")).toContainText("Deviation decision");
  const current = page
    .getByRole("list", { name: "Workflow steps" })
    .getByRole("listitem")
    .filter({ hasText: "(current step)" });
  await expect(current).toContainText("Implementation");
  await expect(current).toContainText(cast.approver.name);
  await page.goto(`/mocs?q=${at.serial_num}`);
  await expect(page.getByRole("row").filter({ hasText: `MOC ${at.serial_num}` })).toContainText("Deviation decision");

  await page.goto(`/mocs/${at._id}/deviation`);
  await ready(page);
  await page.getByRole("button", { name: "Record decision on the deviation" }).click();
  await expect(page.getByText("Choose whether to accept or reject it")).toBeVisible();
  await answer(page, "Accept the deviation?", "Reject");
  await page.getByRole("button", { name: "Record decision on the deviation" }).click();
  await expect(page.getByLabel("Comment")).toHaveAccessibleDescription(/Give the reason for rejecting it/);
  if (jsEnabled()) await expect(page.getByLabel("Comment")).toBeFocused();
  await page.getByLabel("Comment").fill("Use the original bracket\nas drawn");
  await page.getByRole("button", { name: "Record decision on the deviation" }).click();
  await expect(page.getByText(/Everything requested is resolved/)).toBeVisible();
  await expect(page.locator(".timeline")).toContainText("Rejected the deviation");
  await expect(page.locator(".timeline")).toContainText("Use the original bracket");
});

test(
  "7. the verifier form comes back with the answers saved before",
  { tag: "@once" },
  async ({ cast, mocApi, openAs }) => {
    const moc = await mocApi.createAt(cast, "verifier");
    await mocApi.submit("/api/submit/verifier", cast.hseq, { moc_id: moc._id, verifier_form: verifierForm("no") });
    const page = await openAs(cast.hseq);
    await page.goto(`/mocs/${moc._id}/verifier`);
    await ready(page);
    const close = page.getByRole("group", { name: "Close the MOC?", exact: true });
    await expect(close.getByLabel("No", { exact: true })).toBeChecked();
    await expect(
      page.getByRole("group", { name: "Was the MOC effective?", exact: true }).getByLabel("Yes", { exact: true }),
    ).toBeChecked();
  },
);

test("9. the admin pages fit a phone at 375 px", { tag: "@once" }, async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  await signIn(page, ADMIN.email, ADMIN.password);
  for (const path of ["/admin/users", "/admin/outbox", "/notifications", "/mocs"]) {
    await page.goto(path);
    await expectNoSidewaysScroll(page);
  }
  await page.screenshot({ path: `/tmp/daily-admin-users-375-${jsEnabled() ? "js" : "nojs"}.png`, fullPage: false });
});

test("10. text typed with line breaks and markup shows as typed", async ({ cast, openAs }) => {
  const page = await openAs(cast.originator);
  await page.goto("/mocs/new");
  await ready(page);
  await page.getByLabel("Department of change").selectOption({ label: "Fleet" });
  await fillRichText(page, "Description of change", "First line <script>alert(1)</script>");
  await page.getByLabel("Reason for change").fill("One\nTwo");
  await page.getByRole("button", { name: "Save draft" }).click();
  await expect(page.getByText(/is saved as a draft/)).toBeVisible();
  const description = page.locator(".rich-text").first();
  await expect(description).toContainText("<script>alert(1)</script>");
  const reason = page.locator('dt:text-is("Reason for change") + dd');
  expect(await reason.innerText()).toBe("One\nTwo");
});

test("11. an unknown address is a 404 inside the usual page", { tag: "@once" }, async ({ cast, openAs }) => {
  const page = await openAs(cast.originator);
  const response = await page.goto("/no-such-page-here");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
  await expect(page).toHaveTitle("Not found · Change Management");
});

test("notifications: the email's step form, the unread count, mark as read", async ({ cast, mocApi, openAs }) => {
  // Through the HSEQ review: the approver was told, with a link to the approval form.
  const moc = await mocApi.createAt(cast, "approver");
  const page = await openAs(cast.approver);
  await page.goto("/");
  const link = page.getByRole("link", { name: /^Notifications/ });
  await expect(link).toContainText("unread");
  await link.click();
  await expect(page).toHaveURL(/\/notifications$/);
  const item = page
    .getByRole("listitem")
    .filter({ hasText: `MOC ${moc.serial_num}` })
    .first();
  await expect(item).toContainText("Unread");
  // The newest one leads to the approval form, where the approver acts.
  await item.getByRole("button").first().click();
  await expect(page).toHaveURL(new RegExp(`/mocs/${moc._id}/approver$`));
  await page.goto("/notifications");
  await page.getByRole("button", { name: "Mark all as read" }).click();
  await expect(page.getByText("Everything is read.")).toBeVisible();
  await expect(page.getByRole("link", { name: /^Notifications/ })).not.toContainText("unread");
});
