/**
 * Links between records in the browser (issue 42, docs/decisions/057-record-links-and-references.md),
 * JavaScript on and off: a MOC's originator links the MOC to the PCR that changes its procedure from
 * the MOC's page (search, kind, Link: plain forms), sees it on the MOC's page as "Procedure changed
 * by PCR …" and on the PCR's page as "Changes the procedure of MOC …", in the MOC's print view, and
 * removes it from the PCR's page. Screenshots at 375 px go under /tmp.
 */
import type { Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { expectNoSeriousA11yViolations } from "./axe";
import { fitsWidth } from "./circulation-fixtures";
import { expect, jsEnabled, ready, test } from "./moc-fixtures";

const PHONE = { width: 375, height: 800 };

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `/tmp/record-links-${name}-${jsEnabled() ? "js" : "no-js"}.png`, fullPage: true });

test("a MOC is linked to the PCR that changes its procedure, shown both ways and in print", async ({
  cast,
  mocApi,
  openAs,
  request,
}) => {
  test.setTimeout(120_000);
  const tag = randomBytes(3).toString("hex");
  const moc = await mocApi.create(cast);
  const made = await request.post("/api/pcr", {
    headers: { Authorization: `Bearer ${cast.originator.token}` },
    data: {
      form: {
        title: `Mooring lookout ${tag}`,
        "procedure-change": true,
        "manual-procedure": "<p>Deck manual, chapter 4</p>",
        "suggestion-details": "<p>A second lookout when mooring</p>",
        "reason-for-change": "<p>The MOC's change</p>",
      },
      affectedParties: [],
    },
  });
  expect(made.status(), await made.text()).toBe(200);
  const pcr = ((await made.json()) as { data: { _id: string; serial_num: string } }).data;

  // From the MOC's page: Link a record, find the PCR by its number, link it.
  const page = await openAs(cast.originator);
  await page.setViewportSize(PHONE);
  await page.goto(`/mocs/${moc._id}`);
  await ready(page);
  const section = page.getByRole("region", { name: "Linked records" });
  await expect(section).toContainText("No linked records.");
  await section.getByRole("link", { name: "Link a record" }).click();
  await expect(page.getByRole("heading", { name: "Link a record" })).toBeVisible();
  await ready(page);
  await page.getByLabel("Find a MOC, PCR, archive record or review").fill(`PCR ${pcr.serial_num}`);
  await page.getByRole("button", { name: "Find", exact: true }).click();
  const found = page.getByRole("list", { name: "Records found" }).getByRole("listitem");
  await expect(found).toHaveCount(1);
  await expect(found).toContainText(`PCR ${pcr.serial_num} — Mooring lookout ${tag}`);
  await found.getByRole("combobox").selectOption("procedure changed by");
  await fitsWidth(page);
  await shot(page, "new");
  // axe runs as a script in the page: with JavaScript only (the markup is the same without).
  if (jsEnabled()) await expectNoSeriousA11yViolations(page);
  await found.getByRole("button", { name: `Link PCR ${pcr.serial_num}` }).click();
  await expect(page).toHaveURL(new RegExp(`/mocs/${moc._id}(#linked-records)?$`));
  await expect(page.getByText("The records are linked.")).toBeVisible();
  await expect(section).toContainText(`Procedure changed by PCR ${pcr.serial_num} — Mooring lookout ${tag}`);
  await fitsWidth(page);
  await shot(page, "moc");
  if (jsEnabled()) await expectNoSeriousA11yViolations(page);
  await section.screenshot({ path: `/tmp/record-links-moc-section-${jsEnabled() ? "js" : "no-js"}.png` });

  // The other way round on the PCR's page, and the link leads back.
  await section.getByRole("link", { name: `PCR ${pcr.serial_num}` }).click();
  await expect(page).toHaveURL(new RegExp(`/pcrs/${pcr._id}$`));
  await ready(page);
  const onPcr = page.getByRole("region", { name: "Linked records" });
  await expect(onPcr).toContainText(`Changes the procedure of MOC ${moc.serial_num}`);
  await fitsWidth(page);
  await shot(page, "pcr");
  await onPcr.screenshot({ path: `/tmp/record-links-pcr-section-${jsEnabled() ? "js" : "no-js"}.png` });

  // In the MOC's print view.
  await page.goto(`/mocs/${moc._id}/print`);
  const printed = page.getByRole("region", { name: "Linked records" });
  await expect(printed).toContainText("Procedure changed by");
  await expect(printed).toContainText(`PCR ${pcr.serial_num}`);
  await fitsWidth(page);
  await shot(page, "print");
  await printed.screenshot({ path: `/tmp/record-links-print-section-${jsEnabled() ? "js" : "no-js"}.png` });

  // Removed from the PCR's page: gone from both.
  await page.goto(`/pcrs/${pcr._id}`);
  await ready(page);
  await onPcr.getByRole("button", { name: `Remove the link to MOC ${moc.serial_num}` }).click();
  await expect(page.getByText("The link is removed")).toBeVisible();
  await expect(onPcr).toContainText("No linked records.");
  await page.goto(`/mocs/${moc._id}`);
  await expect(page.getByRole("region", { name: "Linked records" })).toContainText("No linked records.");
});
