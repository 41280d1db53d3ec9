/** Everyday use (docs/decisions/024-everyday-use.md) on the PCR page, with JavaScript on and off. */
import type { Page } from "@playwright/test";
import { expect, jsEnabled, ready, signSection, test } from "./pcr-fixtures";

/** A slot's block in the signature chain. */
const block = (page: Page, title: string) =>
  page.locator(".signature-block").filter({ has: page.locator(".signature-head strong", { hasText: title }) });

test("2 and 3. signing with the keyboard: a typed name beside the canvas, kept with the comment after a wrong password", async ({
  cast,
  openAs,
  createPcr,
  readPcr,
}) => {
  const { originator } = cast;
  const doc = await createPcr(originator);
  const page = await openAs(originator);
  await page.goto(`/pcrs/${doc._id}`);
  await ready(page);
  const section = signSection(page, "Change Originator");
  const typed = section.getByLabel("Type your full name as your signature");
  if (jsEnabled()) {
    // The typed name is the first choice; the canvas is one radio away.
    await expect(section.getByLabel("Type my name")).toBeChecked();
    await expect(section.getByLabel("Draw my signature")).toBeVisible();
  }
  await typed.focus();
  await page.keyboard.type(originator.name);
  await section.getByLabel("Comment (optional)").fill("Checked against the audit");
  await section.getByLabel("Your password (to confirm it is you)").fill("not-my-password");
  await page.keyboard.press("Enter");
  await expect(section.getByText("The password is not correct")).toBeVisible();
  await expect(typed).toHaveValue(originator.name);
  await expect(section.getByLabel("Comment (optional)")).toHaveValue("Checked against the audit");
  if (jsEnabled()) await expect(section.getByLabel("Your password (to confirm it is you)")).toBeFocused();
  expect((await readPcr(doc._id)).signatures[0].Signature).toBe(false);

  await section.getByLabel("Your password (to confirm it is you)").fill(originator.password);
  await section.getByRole("button", { name: "Sign", exact: true }).click();
  await expect(page.locator(".flash")).toContainText("Signed. The next signer has been notified.");
  await expect(block(page, "Change Originator")).toContainText(originator.name);
  expect((await readPcr(doc._id)).signatures[0].Signature).toBe(originator.name);
});

test("4. deleting a PCR asks first, without JavaScript too", async ({ cast, openAs, createPcr, request }) => {
  const doc = await createPcr(cast.originator);
  const page = await openAs(cast.originator);
  await page.goto(`/pcrs/${doc._id}`);
  await ready(page);
  await page.getByRole("link", { name: "Delete PCR" }).click();
  const confirmation = page.getByRole("region", { name: `Delete PCR ${doc.serial_num}?` });
  await expect(confirmation).toBeVisible();
  await confirmation.getByRole("link", { name: "Cancel" }).click();
  await expect(page.getByRole("region", { name: `Delete PCR ${doc.serial_num}?` })).toHaveCount(0);
  await page.getByRole("link", { name: "Delete PCR" }).click();
  await page.getByRole("button", { name: `Delete PCR ${doc.serial_num}` }).click();
  await expect(page.getByText(`PCR ${doc.serial_num} was deleted.`)).toBeVisible();
  const gone = await request.get(`/api/pcr/${doc._id}`, {
    headers: { Authorization: `Bearer ${cast.originator.token}` },
  });
  expect(gone.status()).toBe(404);
});
