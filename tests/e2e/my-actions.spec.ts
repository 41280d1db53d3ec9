/**
 * Issue 28 item 5 in the browser, with JavaScript on and off, at 375 px (docs/decisions/038-actions-as-tasks.md):
 * an owner named on an approved MOC's action plan finds their items under "My actions" on the
 * dashboard (due date, MOC, state; the overdue one marked), opens one, marks it done with a note
 * and an evidence file, and is back on the dashboard with the item gone; the record shows who
 * marked it, the note and the evidence. Screenshots go under /tmp.
 */
import type { Page } from "@playwright/test";
import { PIPELINE, STEP_PATH, stepBody } from "../helpers/moc";
import {
  expect,
  futureDate,
  jsEnabled,
  ready,
  test,
  type Cast,
  type Doc,
  type MocApi,
  type Person,
} from "./moc-fixtures";

const PHONE = { width: 375, height: 800 };
const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `/tmp/my-actions-${name}-${jsEnabled() ? "js" : "no-js"}.png`, fullPage: true });

/** A MOC whose action plan names `owner` on two items, taken through /api to implementation (approved). */
async function approvedWithItems(mocApi: MocApi, cast: Cast, owner: Person, tag: string): Promise<Doc> {
  let moc = await mocApi.create(cast);
  await mocApi.submit("/api/actionTable", cast.implementer, {
    id: moc._id,
    action: {
      items: [
        { description: `Replace the HT alarm sensor ${tag}`, owner: owner._id, due: futureDate(-2) },
        { description: `Brief the engine crew ${tag}`, owner: owner._id, due: futureDate(10) },
      ],
    },
  });
  for (const { step, by } of PIPELINE) {
    if (step === "implementation") break;
    moc = await mocApi.submit(STEP_PATH[step], cast[by], stepBody(step, moc, cast));
  }
  return moc;
}

/** The page is no wider than the screen (nothing to scroll sideways). */
async function fitsWidth(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

test("an owner marks an item done from My actions with a note and an evidence file", async ({
  cast,
  createUser,
  mocApi,
  openAs,
}) => {
  const tag = Math.random().toString(36).slice(2, 8);
  const created = await createUser({ name: `Olga Owner ${tag}`, department: "operations" });
  const owner = { ...created, token: created.token! };
  const moc = await approvedWithItems(mocApi, cast, owner, tag);

  const page = await openAs(owner);
  await page.setViewportSize(PHONE);
  await page.goto("/");
  await ready(page);
  const mine = page.getByRole("region", { name: "My actions" });
  const items = mine.getByRole("listitem");
  await expect(items).toHaveCount(2);
  // Soonest due first: the overdue one, with its MOC and its state.
  await expect(items.nth(0)).toContainText(`MOC ${moc.serial_num}`);
  await expect(items.nth(0)).toContainText(`Replace the HT alarm sensor ${tag}`);
  await expect(items.nth(0)).toContainText("2 days overdue");
  await expect(items.nth(1)).toContainText(`Brief the engine crew ${tag}`);
  await fitsWidth(page);
  await shot(page, "dashboard-375");

  await items
    .nth(0)
    .getByRole("link", { name: /^Mark done/ })
    .click();
  await expect(page.getByRole("heading", { name: "Mark an item done" })).toBeVisible();
  await ready(page);
  await fitsWidth(page);
  // A file that is not what its name says: refused next to the file field, nothing marked.
  await page.getByLabel("What was done (note)").fill("Fitted the new sensor, tested at 85 °C");
  await page.getByLabel("Evidence file (optional)").setInputFiles({
    name: "photo.pdf",
    mimeType: "application/pdf",
    buffer: Buffer.from("not a pdf at all"),
  });
  await page.getByRole("button", { name: "Mark done" }).click();
  await expect(page.getByText("This is not a valid .pdf file")).toBeVisible();
  expect((await mocApi.get(moc._id)).action.items[0].done).toBe(false);
  await shot(page, "refused-375");

  await page.getByLabel("What was done (note)").fill("Fitted the new sensor, tested at 85 °C");
  await page.getByLabel("Evidence file (optional)").setInputFiles({
    name: "sensor-test.pdf",
    mimeType: "application/pdf",
    buffer: PDF,
  });
  await page.getByRole("button", { name: "Mark done" }).click();
  await expect(page.getByText(/^Marked done: Replace the HT alarm sensor/)).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("region", { name: "My actions" }).getByRole("listitem")).toHaveCount(1);

  const stored = (await mocApi.get(moc._id)).action.items[0];
  expect(stored).toMatchObject({
    done: true,
    completion: { note: "Fitted the new sensor, tested at 85 °C", evidence: { name: "sensor-test.pdf" } },
  });
  await page.goto(`/mocs/${moc._id}`);
  await expect(page.getByRole("region", { name: "Action plan" })).toContainText(
    "Fitted the new sensor, tested at 85 °C (evidence: sensor-test.pdf)",
  );
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/");
  await shot(page, "dashboard-1280");
});
