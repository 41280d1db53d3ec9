/**
 * Search (docs/decisions/039-search.md) in a real browser, with JavaScript on and off, at 375 px:
 * the header's box finds a MOC by each usual form of its serial and by a person's name, the
 * results page groups by kind and links to the record, and an uninvolved reader finds nothing of
 * an open MOC. Screenshots at 375 and 1280 px go to test-results for a look.
 */
import type { Page } from "@playwright/test";
import { expect, test } from "./moc-fixtures";

async function searchFromHeader(page: Page, q: string) {
  const box = page.getByRole("search").first().getByLabel("Search MOCs, PCRs and archive records");
  await box.fill(q);
  await box.press("Enter");
  await page.waitForURL((url) => url.pathname === "/search" && url.searchParams.get("q") === q);
}

async function noSidewaysScroll(page: Page) {
  const [scroll, client] = await page.evaluate(() => [
    document.documentElement.scrollWidth,
    document.documentElement.clientWidth,
  ]);
  expect(scroll).toBeLessThanOrEqual(client!);
}

test("the header's search finds a MOC by each form of its serial and by name, at 375 px", async ({
  cast,
  mocApi,
  openAs,
}, testInfo) => {
  test.setTimeout(120_000);
  const moc = await mocApi.create(cast, {
    "description-of-change": { value: "<p>Relocate the <strong>oily water separator</strong> alarm</p>" },
  });
  const [n, y] = (moc.serial_num as string).split("-");
  const page = await openAs(cast.originator);
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto("/");
  for (const q of [`${n}-${y}`, `MOC ${n}-${y}`, `${n}/${y}`, `MOC-${n}-${y}`]) {
    await searchFromHeader(page, q);
    const mocs = page.getByRole("region", { name: /^MOCs/ });
    await expect(mocs.getByRole("link").first(), q).toHaveText(`MOC ${moc.serial_num}`);
    await expect(mocs.getByText("Serial", { exact: true }).first()).toBeVisible();
  }
  await noSidewaysScroll(page);
  await page.screenshot({ path: testInfo.outputPath("search-serial-375.png"), fullPage: true });

  await searchFromHeader(page, cast.originator.name);
  const byName = page.getByRole("region", { name: /^MOCs/ });
  await expect(byName.getByRole("link", { name: `MOC ${moc.serial_num}` })).toBeVisible();
  await searchFromHeader(page, "oily separator");
  const result = page.getByRole("region", { name: /^MOCs/ }).getByRole("listitem").first();
  await expect(result.locator("mark").first()).toHaveText(/oily/i);
  await expect(page.getByRole("region", { name: /^PCRs/ })).toContainText("No PCRs found.");
  await expect(page.getByRole("region", { name: /^Archive records/ })).toBeVisible();
  await noSidewaysScroll(page);
  await page.screenshot({ path: testInfo.outputPath("search-words-375.png"), fullPage: true });

  await result.getByRole("link").click();
  await page.waitForURL((url) => url.pathname === `/mocs/${moc._id}`);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/search?q=${encodeURIComponent("oily separator")}`);
  await page.screenshot({ path: testInfo.outputPath("search-words-1280.png"), fullPage: true });
});

test("an uninvolved reader finds nothing of an open MOC; an empty or too long search says so", async ({
  cast,
  outsider,
  mocApi,
  openAs,
}) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(outsider);
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto("/");
  await searchFromHeader(page, `MOC ${moc.serial_num}`);
  await expect(page.getByText(`Nothing found for “MOC ${moc.serial_num}”.`)).toBeVisible();
  await page.goto(`/search?q=${"x".repeat(300)}`);
  await expect(page.getByRole("alert")).toContainText("at most 200 characters");
  await page.goto("/search");
  await expect(page.getByLabel("Search for")).toBeVisible();
  await noSidewaysScroll(page);
});
