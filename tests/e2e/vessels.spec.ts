/**
 * Issue 28 part A in the browser, with JavaScript on and off, at 375 px (docs/decisions/036-vessels-and-crew-access.md):
 * an admin keeps the vessel register (a bad IMO check digit refused next to the field) and assigns
 * crew; Part A asks a title and a scope; the record, the list and the vessel page name the MOC with
 * them; a MOC raised without them asks its originator to record them; a person on board reads
 * their vessel's MOC. Screenshots go under /tmp.
 */
import type { Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { ADMIN, signIn } from "./fixtures";
import { expect, jsEnabled, ready, test, fillRichText, serialOf } from "./moc-fixtures";

const PHONE = { width: 375, height: 800 };

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `/tmp/vessels-${name}-${jsEnabled() ? "js" : "no-js"}.png`, fullPage: true });

/** A valid IMO number no other run uses: six random digits and their check digit. */
function freshImo(): { good: string; bad: string } {
  const six = String(100000 + (randomBytes(3).readUIntBE(0, 3) % 900000));
  const check = [...six].reduce((n, d, i) => n + Number(d) * (7 - i), 0) % 10;
  return { good: `${six}${check}`, bad: `${six}${(check + 1) % 10}` };
}

async function noSidewaysScroll(page: Page) {
  const [scroll, client] = await page.evaluate(() => [
    document.documentElement.scrollWidth,
    document.documentElement.clientWidth,
  ]);
  expect(scroll, `${page.url()} scrolls sideways`).toBeLessThanOrEqual(client!);
}

test("the register, Part A's title and scope, the vessel page and crew read access", async ({
  browser,
  cast,
  outsider,
  mocApi,
  openAs,
}) => {
  test.setTimeout(180_000);
  const imo = freshImo();
  const name = `MV E2E ${imo.good}`;

  // The admin adds a vessel: a wrong check digit is refused next to the field, the input kept.
  const adminContext = await browser.newContext({ javaScriptEnabled: jsEnabled(), viewport: PHONE });
  const admin = await adminContext.newPage();
  await signIn(admin, ADMIN.email, ADMIN.password);
  await admin.goto("/admin/vessels");
  await ready(admin);
  const add = admin.locator("#add-vessel");
  await add.getByLabel("Name").fill(name);
  await add.getByLabel("IMO number").fill(imo.bad);
  await add.getByLabel("Ship type").fill("Bulk carrier");
  await add.getByRole("button", { name: "Add the vessel" }).click();
  await expect(add.getByLabel("IMO number")).toHaveAttribute("aria-invalid", "true");
  await expect(add.getByText(/check digit does not match/)).toBeVisible();
  await expect(add.getByLabel("Name")).toHaveValue(name);
  await add.getByLabel("IMO number").fill(imo.good);
  await add.getByRole("button", { name: "Add the vessel" }).click();
  await expect(admin.getByText("The vessel is in the register.")).toBeVisible();
  await expect(admin.getByRole("link", { name, exact: true })).toBeVisible();

  // The outsider is on board from today, open-ended.
  const assign = admin.locator("#assign");
  await assign.getByLabel("Person").selectOption({ label: outsider.name });
  await assign.getByLabel("Vessel").selectOption({ label: name });
  await assign.getByLabel("From").fill(new Date().toISOString().slice(0, 10));
  await assign.getByRole("button", { name: "Assign" }).click();
  await expect(admin.getByText("The assignment is saved.")).toBeVisible();
  await noSidewaysScroll(admin);
  await shot(admin, "admin-375");

  // Part A: submitting without a title and a scope names both; then the MOC is raised with them.
  const originator = await openAs(cast.originator);
  await originator.setViewportSize(PHONE);
  await originator.goto("/mocs/new");
  await ready(originator);
  await originator.getByLabel("Implementer", { exact: true }).selectOption(cast.implementer._id);
  await originator.getByLabel("Department of change").selectOption({ label: "Engineering" });
  await fillRichText(originator, "Description of change", "Bypass the HT alarm of ME2 while the sensor is on order");
  await originator.getByLabel("Reason for change").fill("The sensor failed and gives false alarms");
  await originator.getByRole("button", { name: "Submit MOC" }).click();
  await expect(originator.getByLabel("Title")).toHaveAccessibleDescription(/Give the MOC a title/);
  await expect(originator.getByLabel("Vessel or scope")).toHaveAccessibleDescription(/Choose the vessel/);
  await expect(originator).toHaveURL(/\/mocs\/new$/);
  await originator.getByLabel("Title").fill("Bypass of ME2 HT alarm");
  await originator.getByLabel("Vessel or scope").selectOption({ label: name });
  if (!jsEnabled()) {
    // Without JavaScript the page came back from the server: the rich text is a textarea, kept.
    await expect(originator.getByRole("textbox", { name: "Description of change" })).toContainText(
      "Bypass the HT alarm",
    );
  }
  await originator.getByRole("button", { name: "Submit MOC" }).click();
  await expect(originator).toHaveURL(/\/mocs\/[0-9a-f-]{36}$/);
  const serial = await serialOf(originator);
  const recordUrl = originator.url();
  await expect(originator.getByRole("heading", { level: 1 })).toHaveText(`MOC ${serial} — Bypass of ME2 HT alarm`);
  await expect(originator.getByRole("link", { name, exact: true })).toBeVisible();
  await noSidewaysScroll(originator);
  await shot(originator, "record-375");

  // The list names it with its title and vessel, and filters by the vessel.
  await originator.goto("/mocs");
  await originator.getByLabel("Vessel").selectOption({ label: name });
  await originator.getByRole("button", { name: "Apply" }).click();
  const link = originator.getByRole("link", { name: `MOC ${serial} — Bypass of ME2 HT alarm` });
  await expect(link).toBeVisible();
  await expect(originator.getByRole("row").filter({ has: link })).toContainText(name);
  await noSidewaysScroll(originator);
  await shot(originator, "list-375");

  // The vessel page shows it among the open MOCs.
  await originator.goto(recordUrl);
  await originator.getByRole("link", { name, exact: true }).click();
  await expect(originator.getByRole("heading", { level: 1, name })).toBeVisible();
  await expect(
    originator
      .getByRole("region", { name: /Open MOCs/ })
      .getByRole("link", { name: `MOC ${serial} — Bypass of ME2 HT alarm` }),
  ).toBeVisible();
  await noSidewaysScroll(originator);
  await shot(originator, "vessel-page-375");

  // The person on board reads it (and has no step to act on); before the assignment they could not.
  const crew = await openAs(outsider);
  await crew.setViewportSize(PHONE);
  const response = await crew.goto(recordUrl);
  expect(response?.status()).toBe(200);
  await expect(crew.getByRole("heading", { level: 1 })).toHaveText(`MOC ${serial} — Bypass of ME2 HT alarm`);
  await expect(crew.locator(".record-header a.button-primary")).toHaveCount(0);

  // Part A for the ship (issue 38 item 9): the person on board raises a change; the vessel is
  // preset to theirs, they note the hazards seen and the date it is needed, and go on to attach
  // photos.
  await crew.goto("/mocs/new");
  await ready(crew);
  await expect(crew.getByLabel("Vessel or scope")).toHaveValue(/[0-9a-f-]{36}/);
  await expect(crew.getByLabel("Vessel or scope").locator("option:checked")).toHaveText(name);
  await crew.getByLabel("Title").fill("Temporary hose on the fuel transfer line");
  await crew.getByLabel("Implementer", { exact: true }).selectOption(cast.implementer._id);
  await crew.getByLabel("Department of change").selectOption({ label: "Engineering" });
  await fillRichText(crew, "Description of change", "A temporary hose replaces the cracked section of the line");
  await crew.getByLabel("Reason for change").fill("The section cracked; the spare is on order");
  await crew.getByLabel("Hazards seen (optional)").fill("Fuel spill on deck\nFire near the hot exhaust");
  const needed = new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10);
  await crew.getByLabel("Needed by (optional)").fill(needed);
  await crew.getByLabel("Attach photos or documents next").check();
  await noSidewaysScroll(crew);
  await shot(crew, "part-a-on-board-375");
  await crew.getByRole("button", { name: "Submit MOC" }).click();
  await expect(crew).toHaveURL(/\/mocs\/[0-9a-f-]{36}\/attachments$/);
  await expect(crew.getByText(/is raised; the implementer has been notified\. Attach its photos/)).toBeVisible();
  await noSidewaysScroll(crew);
  await shot(crew, "attach-after-part-a-375");
  await crew.goto(crew.url().replace(/\/attachments$/, ""));
  await expect(crew.getByText("Fire near the hot exhaust")).toBeVisible();
  await expect(crew.getByText("Target date (proposed)")).toBeVisible();

  // A MOC raised over /api without a title or scope reads "Not recorded" and asks its originator.
  const old = await mocApi.create(cast);
  await originator.goto(`/mocs/${old._id}`);
  await expect(originator.getByText("Vessel: Not recorded")).toBeVisible();
  await originator.getByRole("link", { name: "Record them" }).click();
  await ready(originator);
  await originator.getByRole("textbox", { name: "Title" }).fill("Ballast pump controller");
  await originator.getByLabel("Vessel or scope").selectOption({ label: "Office / shore" });
  await originator.getByRole("button", { name: "Record" }).click();
  await expect(originator.getByRole("heading", { level: 1 })).toHaveText(
    `MOC ${old.serial_num} — Ballast pump controller`,
  );
  await expect(originator.getByText("Vessel: Office / shore")).toBeVisible();
  await expect(originator.getByRole("link", { name: "Record them" })).toHaveCount(0);
  await shot(originator, "recorded-375");
  await adminContext.close();
});
