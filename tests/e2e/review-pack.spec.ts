/**
 * The management review pack in the browser (issue 42, docs/decisions/059-management-review-pack.md),
 * JavaScript on and off: an HSEQ user opens Insight, follows "Management review pack", changes the
 * filter (the GET form), reads the pack's sections with the MOC they raised linked to its page, and
 * the PDF link answers a PDF. At 375 px it passes an accessibility scan (axe); the screenshot goes
 * under /tmp. Other specs add MOCs on the same server, so the MOC is found through a vessel of this
 * test's own.
 */
import type { Page } from "@playwright/test";
import { randomBytes } from "node:crypto";
import { expectNoSeriousA11yViolations } from "./axe";
import { fitsWidth, makeVessel } from "./circulation-fixtures";
import { expect, jsEnabled, ready, test } from "./moc-fixtures";

const PHONE = { width: 375, height: 800 };
const SECTIONS = [
  "Period and totals",
  "MOCs by state",
  "MOCs by type",
  "MOCs by risk level",
  "MOCs by vessel",
  "Cycle times and bottlenecks",
  "Overdue MOCs and overdue actions",
  "Temporary changes in effect and expired",
  "Acknowledgement compliance",
  "Effectiveness results",
];

const shot = (page: Page, name: string) =>
  page.screenshot({ path: `/tmp/review-pack-${name}-${jsEnabled() ? "js" : "no-js"}.png`, fullPage: true });

test("HSEQ follows Insight's link to the review pack, filters it and downloads its PDF", async ({
  cast,
  mocApi,
  openAs,
  request,
  adminToken,
}) => {
  test.setTimeout(240_000); // the axe scan is CPU-heavy on two shared cores
  const tag = randomBytes(3).toString("hex");
  const vesselName = `MV Review ${tag}`;
  const vesselId = await makeVessel(request, adminToken, vesselName);
  const moc = await mocApi.create(cast, { vessel: { value: { _id: vesselId, name: vesselName } } });

  const page = await openAs(cast.hseq);
  await page.goto("/insights");
  await ready(page);
  await page.getByRole("link", { name: "Management review pack" }).click();
  await page.waitForURL(/\/insights\/review\?/);
  await ready(page);
  await expect(page.getByRole("heading", { level: 1, name: /^Management review: / })).toBeVisible();

  // The filter: this test's vessel.
  const filters = page.getByRole("search", { name: "Review pack filters" });
  await filters.getByLabel("Vessel").selectOption(vesselId);
  await filters.getByRole("button", { name: "Apply" }).click();
  await page.waitForURL(new RegExp(`vessel=${vesselId}`));
  await expect(page.getByText(`All departments, ${vesselName}`)).toBeVisible();
  for (const name of SECTIONS) await expect(page.getByRole("heading", { level: 2, name })).toBeVisible();
  const byVessel = page.getByRole("region", { name: "MOCs by vessel" });
  await expect(byVessel.getByRole("table").first().locator("tbody tr")).toHaveText([new RegExp(`^${vesselName}1`)]);
  const link = byVessel.getByRole("link", { name: moc.serial_num });
  await expect(link).toHaveAttribute("href", `/mocs/${moc._id}`);

  // The PDF of the same pack.
  const href = await page.getByRole("link", { name: "Download PDF" }).getAttribute("href");
  expect(href).toContain(`vessel=${vesselId}`);
  const pdf = await page.request.get(href!);
  expect(pdf.status()).toBe(200);
  expect(pdf.headers()["content-type"]).toBe("application/pdf");
  expect((await pdf.body()).subarray(0, 5).toString()).toBe("%PDF-");

  // On a phone: nothing to scroll sideways.
  await page.setViewportSize(PHONE);
  await page.reload();
  await ready(page);
  await fitsWidth(page);
  if (jsEnabled()) await expectNoSeriousA11yViolations(page); // axe runs in the page: JavaScript on only
  await shot(page, "375");

  // A bad filter: 400 with the reason, no pack.
  const refused = await page.goto("/insights/review?from=2025-05-01&to=2025-04-01");
  expect(refused?.status()).toBe(400);
  await expect(page.getByText("from must be on or before to").first()).toBeVisible();
});
