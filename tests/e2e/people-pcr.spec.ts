/**
 * A signed PCR is withdrawn, never deleted (docs/decisions/026-four-eyes-by-record.md),
 * on the PCR page with JavaScript on and off: the Delete action is gone, Withdraw asks why, and the
 * record stays with its signature, marked withdrawn, the reason in its history.
 */
import { expect, ready, test } from "./pcr-fixtures";

test("the originator withdraws a signed PCR, giving a reason", async ({ cast, createPcr, openAs, request }) => {
  // Several page loads on a shared, slow machine.
  test.setTimeout(180_000);
  const { originator } = cast;
  const doc = await createPcr(originator);
  const chain = doc.signatures.map((s: { Name: string }, i: number) => ({
    Name: s.Name,
    Signature: i === 0 ? originator.name : false,
    Comments: "",
  }));
  const signed = await request.post("/api/pcr/signatures", {
    headers: { Authorization: `Bearer ${originator.token}` },
    data: { pcrId: doc._id, signatures: chain, password: originator.password },
  });
  expect(signed.status(), await signed.text()).toBe(200);

  const page = await openAs(originator);
  await page.goto(`/pcrs/${doc._id}`);
  await ready(page);
  const actions = page.getByRole("region", { name: "Actions" });
  await expect(actions.getByRole("link", { name: "Delete PCR" })).toHaveCount(0);
  await actions.getByRole("link", { name: "Withdraw PCR" }).click();
  const confirm = page.getByRole("region", { name: `Withdraw PCR ${doc.serial_num}?` });
  await expect(confirm).toBeVisible();
  await page.setViewportSize({ width: 375, height: 900 });
  await page.screenshot({ path: `/tmp/people-pcr-withdraw-375-${test.info().project.name}.png`, fullPage: true });
  await confirm.getByLabel("Why is it withdrawn?").fill("Superseded by the fleet-wide mooring procedure");
  await confirm.getByRole("button", { name: `Withdraw PCR ${doc.serial_num}` }).click();
  await expect(page.getByText(`PCR ${doc.serial_num} was withdrawn.`)).toBeVisible();
  await expect(page.locator(".owner-line")).toContainText("Withdrawn");
  const history = page.getByRole("region", { name: "History" });
  await expect(history.getByText("Withdrawn", { exact: true })).toBeVisible();
  await expect(history).toContainText("Superseded by the fleet-wide mooring procedure");
  await expect(page.locator(".signature-block").first()).toContainText(originator.name);
  await expect(page.getByRole("link", { name: "Withdraw PCR" })).toHaveCount(0);
  await page.screenshot({ path: `/tmp/people-pcr-withdrawn-375-${test.info().project.name}.png`, fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: `/tmp/people-pcr-withdrawn-1280-${test.info().project.name}.png`, fullPage: true });
});
