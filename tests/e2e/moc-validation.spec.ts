import { answer, expect, fillRichText, futureDate, ready, test } from "./moc-fixtures";

// Errors show next to their fields and nothing typed is lost: checked in the browser with
// JavaScript, by the server without.

test("Part B: a missing approver and target date are shown next to those fields", async ({ cast, mocApi, openAs }) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.implementer);
  await page.goto(`/mocs/${moc._id}/implementer`);
  await ready(page);
  await answer(page, "Have the details of the change been assessed?", "Yes");
  await answer(page, "Is the change necessary and justified?", "Yes");
  await page.getByLabel("HSEQ user", { exact: true }).selectOption(cast.hseq._id);
  await page.getByRole("button", { name: "Submit assessment" }).click();

  const approverField = page.getByLabel("Approver", { exact: true });
  const targetDate = page.getByLabel("Target date");
  await expect(approverField).toHaveAttribute("aria-invalid", "true");
  await expect(approverField).toHaveAccessibleDescription(/Choose the approver to go ahead/);
  await expect(targetDate).toHaveAttribute("aria-invalid", "true");
  await expect(targetDate).toHaveAccessibleDescription(/Set the target date to go ahead/);
  // What was entered is still there, and was not found wrong.
  await expect(page).toHaveURL(/\/implementer$/);
  await expect(page.getByLabel("HSEQ user", { exact: true })).toHaveValue(cast.hseq._id);
  await expect(page.getByLabel("HSEQ user", { exact: true })).not.toHaveAttribute("aria-invalid", "true");
  for (const question of ["Have the details of the change been assessed?", "Is the change necessary and justified?"]) {
    await expect(page.getByRole("group", { name: question }).getByLabel("Yes", { exact: true })).toBeChecked();
  }
  expect((await mocApi.get(moc._id)).status).toBe("b");

  // Completing the two fields sends it.
  await approverField.selectOption(cast.approver._id);
  await targetDate.fill(futureDate(20));
  await page.getByRole("button", { name: "Submit assessment" }).click();
  await expect(page.getByText(`MOC ${moc.serial_num} went to HSEQ review.`)).toBeVisible();
});

test("Part A: submitting without an implementer keeps the input; a draft needs none", async ({ cast, openAs }) => {
  const page = await openAs(cast.originator);
  await page.goto("/mocs/new");
  await ready(page);
  await page.getByLabel("Title").fill("Move the fuel flow meter");
  await page.getByLabel("Vessel or scope").selectOption({ label: "Office / shore" });
  await page.getByLabel("Department of change").selectOption({ label: "Fleet" });
  await fillRichText(page, "Description of change", "Move the fuel flow meter");
  await page.getByLabel("Reason for change").fill("Easier to read");
  await page.getByRole("group", { name: "Affected departments" }).getByLabel("Fleet").check();
  await page.getByRole("button", { name: "Submit MOC" }).click();

  const implementerField = page.getByLabel("Implementer", { exact: true });
  await expect(implementerField).toHaveAttribute("aria-invalid", "true");
  await expect(implementerField).toHaveAccessibleDescription(/Choose the implementer/);
  await expect(page).toHaveURL(/\/mocs\/new$/);
  await expect(page.getByLabel("Department of change")).toHaveValue("fleet");
  await expect(page.getByRole("textbox", { name: "Description of change" })).toContainText("Move the fuel flow meter");
  await expect(page.getByLabel("Reason for change")).toHaveValue("Easier to read");
  await expect(page.getByRole("group", { name: "Affected departments" }).getByLabel("Fleet")).toBeChecked();

  // A draft can be saved without an implementer, and finished later.
  await page.getByRole("button", { name: "Save draft" }).click();
  await expect(page.getByText(/is saved as a draft/)).toBeVisible();
  await expect(page.locator(".owner-line")).toContainText("Draft");
  await page.getByRole("link", { name: "Open Part A (originator)" }).click();
  await ready(page);
  await expect(page.getByLabel("Reason for change")).toHaveValue("Easier to read");
  await page.getByLabel("Implementer", { exact: true }).selectOption(cast.implementer._id);
  await page.getByRole("button", { name: "Submit MOC" }).click();
  await expect(page.getByText(/Part A of MOC .* is submitted; the implementer has been notified/)).toBeVisible();
  await expect(page.locator(".owner-line")).toContainText(`Waiting on ${cast.implementer.name}`);
});
