/**
 * Issue 41 in the browser, at 375 px: a crew member to whom a finished PCR was circulated (six
 * times, over /api) finds "To read and acknowledge" on the dashboard (the five due soonest, each
 * with its record, note, due date and a link to the circulation) and "See all" leads to the full
 * list; someone with nothing to read sees no such section; the tracking page's export links lead
 * to its CSV, PDF and print view, which lists the recipient. Screenshots go under /tmp. It only
 * reads what the server renders (links, no form), the same without JavaScript, so it runs once,
 * with it (@once, tests/e2e/playwright.config.ts).
 */
import type { Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { assignToVessel, day, finishPcr, fitsWidth, makeVessel } from "./circulation-fixtures";
import { expect, jsEnabled, ready, test } from "./pcr-fixtures";

const PHONE = { width: 375, height: 800 };

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `/tmp/acknowledgements-${name}-${jsEnabled() ? "js" : "no-js"}.png`, fullPage: true });

test(
  "a crew member finds what to read and acknowledge on the dashboard, and the full list",
  { tag: "@once" },
  async ({ cast, createPcr, createUser, openAs, request, adminToken }) => {
    test.setTimeout(180_000);
    const tag = randomBytes(3).toString("hex");
    const vesselId = await makeVessel(request, adminToken, `MV Reader ${tag}`);
    const made = await createUser({ name: `Rita Reader ${tag}`, department: "fleet" });
    const reader = { ...made, token: made.token! };
    await assignToVessel(request, adminToken, vesselId, reader._id);

    const { originator, holders } = cast;
    const doc = await createPcr(originator);
    await finishPcr(request, doc, [originator, ...Object.values(holders)]);
    const circulations: string[] = [];
    for (let i = 0; i < 6; i++) {
      const response = await request.post("/api/circulations", {
        headers: { Authorization: `Bearer ${originator.token}` },
        data: {
          record: `pcr:${doc._id}`,
          vessels: [vesselId],
          due: day(10 + i),
          note: `Second lookout in restricted visibility, part ${i + 1} ${tag}`,
        },
      });
      expect(response.status(), await response.text()).toBe(201);
      circulations.push(((await response.json()) as { data: { _id: string } }).data._id);
    }

    const page = await openAs(reader);
    await page.setViewportSize(PHONE);
    await page.goto("/");
    await ready(page);
    const section = page.getByRole("region", { name: "To read and acknowledge" });
    const items = section.getByRole("listitem");
    await expect(items).toHaveCount(5);
    // Due soonest first: the record, the note, the due date, the link to the circulation.
    await expect(items.nth(0)).toContainText(`PCR ${doc.serial_num}`);
    await expect(items.nth(0)).toContainText(`part 1 ${tag}`);
    await expect(items.nth(0)).toContainText("Due ");
    await expect(items.nth(0)).toContainText(`MV Reader ${tag}`);
    await expect(
      items.nth(0).getByRole("link", { name: `Read and acknowledge PCR ${doc.serial_num}` }),
    ).toHaveAttribute("href", `/circulations/${circulations[0]}`);
    await fitsWidth(page);
    await shot(page, "dashboard-375");

    await section.getByRole("link", { name: "See all 6 to read and acknowledge" }).click();
    await expect(page).toHaveURL(/\/acknowledgements$/);
    await expect(page.getByRole("heading", { level: 1, name: "To read and acknowledge" })).toBeVisible();
    const all = page
      .getByRole("list", { name: "Changes waiting for me to read and acknowledge" })
      .getByRole("listitem");
    await expect(all).toHaveCount(6);
    await expect(all.nth(5)).toContainText(`part 6 ${tag}`);
    await fitsWidth(page);
    await shot(page, "list-375");
    await page.setViewportSize({ width: 1280, height: 900 });
    await shot(page, "list-1280");

    // Someone with nothing to read: no section at all.
    const other = await openAs(cast.outsider);
    await other.goto("/");
    await ready(other);
    await expect(other.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(other.getByRole("region", { name: "To read and acknowledge" })).toHaveCount(0);

    // The tracking's print view, as its originator reads it: the reader is a recipient, waiting.
    const author = await openAs(originator);
    await author.setViewportSize(PHONE);
    await author.goto(`/circulations/${circulations[0]}`);
    await ready(author);
    const exports = author.getByRole("navigation", { name: "Export" });
    await expect(exports.getByRole("link", { name: "Download CSV" })).toHaveAttribute(
      "href",
      `/circulations/${circulations[0]}/csv`,
    );
    await expect(exports.getByRole("link", { name: "Download PDF" })).toHaveAttribute(
      "href",
      `/circulations/${circulations[0]}/pdf`,
    );
    await exports.getByRole("link", { name: "Print the tracking" }).click();
    await expect(author).toHaveURL(new RegExp(`/circulations/${circulations[0]}/print$`));
    await ready(author);
    await expect(author.getByRole("heading", { level: 1 })).toContainText(`Acknowledgements: PCR ${doc.serial_num}`);
    const recipients = author.getByRole("region", { name: "Recipients" });
    await expect(recipients).toContainText(reader.name);
    await expect(recipients).toContainText("Waiting");
    await expect(author.getByRole("region", { name: "Totals" })).toContainText("Recipients");
    await expect(author.getByRole("heading", { name: "Signatures" })).toHaveCount(0);
    await shot(author, "print-375");
  },
);
