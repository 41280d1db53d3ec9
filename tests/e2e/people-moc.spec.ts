/**
 * Four eyes by reassignment on the MOC record (docs/decisions/026-four-eyes-by-record.md),
 * with JavaScript on and off: once the implementer is replaced, the verifier picker does not offer
 * the former implementer, and a forged assignment is refused with the reason.
 */
import { expect, ready, test } from "./moc-fixtures";

test("the former implementer cannot be made verifier after a reassignment", async ({
  cast,
  mocApi,
  openAs,
  baseURL,
}) => {
  // Several page loads on a shared, slow machine.
  test.setTimeout(180_000);
  const moc = await mocApi.createAt(cast, "verifier");
  const page = await openAs(cast.originator);
  await page.goto(`/mocs/${moc._id}`);
  await ready(page);
  // The originator hands the implementation on to someone else.
  await page.getByLabel("Implementer", { exact: true }).selectOption({ label: cast.verifier.name });
  await page.getByRole("button", { name: "Assign implementer" }).click();
  await expect(page.getByText("The implementer is assigned and notified.")).toBeVisible();
  // The former implementer wrote Parts B and E: the verifier picker does not offer them.
  const verifierPicker = page.getByLabel("Verifier", { exact: true });
  await expect(verifierPicker.locator("option", { hasText: cast.implementer.name })).toHaveCount(0);
  await expect(verifierPicker.locator("option", { hasText: cast.approver.name })).toHaveCount(1);
  // A hand-made post of the same form is refused, with the reason, and changes nothing.
  const forged = await page.request.post(`/mocs/${moc._id}?index`, {
    form: { intent: "assign", role: "verifier", userId: cast.implementer._id },
    headers: { Origin: baseURL! },
    maxRedirects: 0,
  });
  expect([302, 303]).toContain(forged.status());
  await page.goto(`/mocs/${moc._id}`);
  await ready(page);
  await expect(page.getByText(/an author of Part A, B or E.*four eyes/)).toBeVisible();
  expect((await mocApi.get(moc._id)).verifier_id).toBeNull();
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `/tmp/people-moc-refusal-${width}-${test.info().project.name}.png`, fullPage: true });
  }
});
