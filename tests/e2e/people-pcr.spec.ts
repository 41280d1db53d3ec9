/**
 * A signed PCR is withdrawn, never deleted (docs/decisions/026-four-eyes-by-record.md),
 * on the PCR page with JavaScript on and off: the Delete action is gone, Withdraw asks why, and the
 * record stays with its signature, marked withdrawn, the reason in its history.
 */
import type { APIRequestContext } from "@playwright/test";
import { expect, ready, test, type Doc, type Person } from "./pcr-fixtures";

/** The originator signs the PCR's first slot over /api (typed name, password). */
async function signAsOriginator(request: APIRequestContext, originator: Person, doc: Doc) {
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
}

test("the originator withdraws a signed PCR, giving a reason", async ({ cast, createPcr, openAs, request }) => {
  // Several page loads on a shared, slow machine.
  test.setTimeout(180_000);
  const { originator } = cast;
  const doc = await createPcr(originator);
  await signAsOriginator(request, originator, doc);

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

test("an admin names, on the PCR's page, who signs the slot of the position its originator holds", async ({
  cast,
  createUser,
  createPcr,
  openAs,
  request,
}) => {
  test.setTimeout(180_000);
  const VP = "VP Fleet Management";
  const { outsider } = cast;
  // The originator holds a position of the chain: that slot needs someone else (docs/decisions/026).
  const raiser = await createUser({ name: `Vera Vp ${Date.now()}`, department: "fleet", position: VP });
  const admin = await createUser({ name: `Ada Admin ${Date.now()}`, role: "admin" });
  const originator = { ...raiser, token: raiser.token! };
  const doc = await createPcr(originator);
  await signAsOriginator(request, originator, doc);

  // The originator is not offered the choice; the admin is.
  const own = await openAs(originator);
  await own.goto(`/pcrs/${doc._id}`);
  await expect(own.getByRole("region", { name: `Who signs as ${VP}` })).toHaveCount(0);

  const page = await openAs({ ...admin, token: admin.token! });
  await page.setViewportSize({ width: 375, height: 900 });
  await page.goto(`/pcrs/${doc._id}`);
  await ready(page);
  const card = page.getByRole("region", { name: `Who signs as ${VP}` });
  await expect(card).toContainText(`${originator.name} holds the position ${VP}`);
  const select = card.getByLabel(`Signs as ${VP}`);
  // The originator cannot be chosen: they sign as Change Originator.
  await expect(select.locator("option", { hasText: originator.name })).toHaveCount(0);
  // Submitting without a choice says what is missing and names nobody (the browser's own check is bypassed).
  await select.evaluate((el) => el.removeAttribute("required"));
  await card.getByRole("button", { name: "Name the substitute" }).click();
  await expect(page.getByText("Choose who signs in the originator's place")).toBeVisible();
  await page
    .getByRole("region", { name: `Who signs as ${VP}` })
    .getByLabel(`Signs as ${VP}`)
    .selectOption({ label: outsider.name });
  await page.getByRole("button", { name: "Name the substitute" }).click();
  await expect(page.getByText(`Substitute named: they sign as ${VP} in place of the originator`)).toBeVisible();
  await expect(page.getByRole("region", { name: "History" })).toContainText(
    `Named ${outsider.name} to sign as ${VP} (substitute)`,
  );
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await page.screenshot({ path: `/tmp/pcr-substitute-375-${test.info().project.name}.png`, fullPage: true });

  // The person named now signs that slot.
  const theirs = await openAs(outsider);
  await theirs.goto(`/pcrs/${doc._id}`);
  await expect(theirs.getByRole("heading", { name: `Your signature as ${VP}` })).toBeVisible();
});
