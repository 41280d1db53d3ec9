/**
 * Email in the browser (docs/decisions/020-batched-email.md), with JavaScript on and off: each
 * person picks per-MOC reminders or a daily digest on /profile, and the admin outbox shows every
 * message's batch and the result the transport gave it, and lists one batch's messages.
 */
import { ADMIN, signIn } from "./fixtures";
import { expect, test } from "./moc-fixtures";

test("profile: a person switches to the daily digest and back", async ({ openAs, cast }) => {
  const page = await openAs(cast.verifier);
  await page.goto("/profile");
  const section = page.getByRole("region", { name: "Target-date reminders" });
  await expect(section.getByLabel("One email per MOC")).toBeChecked();
  await section.getByLabel("One daily digest, most urgent first").check();
  await section.getByRole("button", { name: "Save reminder choice" }).click();
  await expect(page.getByText("You will get one daily digest of your due MOCs.")).toBeVisible();
  await page.reload();
  await expect(section.getByLabel("One daily digest, most urgent first")).toBeChecked();
  await section.getByLabel("One email per MOC").check();
  await section.getByRole("button", { name: "Save reminder choice" }).click();
  await expect(page.getByText("You will get one reminder email per due MOC.")).toBeVisible();
  await expect(section.getByLabel("One email per MOC")).toBeChecked();
});

test(
  "outbox: each message shows its batch and result, and a batch lists its messages",
  { tag: "@once" },
  async ({ page, cast, mocApi }) => {
    // The new MOC emails its implementer; the workers deliver it into the local outbox in a batch.
    await mocApi.create(cast);
    await signIn(page, ADMIN.email, ADMIN.password);
    const row = page.getByRole("row").filter({ hasText: cast.implementer.email });
    await expect(async () => {
      await page.goto(`/admin/outbox?to=${encodeURIComponent(cast.implementer.email)}`);
      await expect(row.getByText("Accepted into the local outbox")).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 20_000 });
    await expect(row.getByText("Sent", { exact: true })).toBeVisible();
    await expect(row.getByText(/^\d+ emails?/)).toBeVisible();

    await row.getByRole("link", { name: /^[0-9a-f]{12}$/ }).click();
    await expect(page).toHaveURL(/\/admin\/outbox\?batch=batch-[0-9a-f]{64}$/);
    await expect(page.getByText(/^Showing batch [0-9a-f]{12}/)).toBeVisible();
    await expect(page.getByRole("row").filter({ hasText: cast.implementer.email })).toHaveCount(1);
    await page.getByRole("link", { name: "Show every message" }).click();
    await expect(page).toHaveURL(/\/admin\/outbox$/);
  },
);
