import { expectNoSeriousA11yViolations } from "./axe";
import { expect, ready, test } from "./moc-fixtures";

// Each test scans whole pages with axe, which is CPU-heavy on two shared cores: a budget for the
// slowest run, not the typical one.
test.describe.configure({ timeout: 240_000 });

test("/insights passes an accessibility scan at 1280 and 375 px and never scrolls sideways", async ({
  cast,
  mocApi,
  openAs,
}) => {
  await mocApi.createAt(cast, "verifier");
  const page = await openAs(cast.hseq);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto("/insights");
  await ready(page);
  await expect(page.getByRole("img", { name: /^Days spent in each step/ })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await page.screenshot({ path: "test-results/insights-1280.png", fullPage: true });

  await page.setViewportSize({ width: 375, height: 740 });
  await expectNoSeriousA11yViolations(page);
  const sideways = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(sideways).toBeLessThanOrEqual(0);
  await page.screenshot({ path: "test-results/insights-375.png", fullPage: true });

  // The 400 page of a bad period is accessible too.
  await page.goto("/insights?from=2025-05-01&to=2025-04-01");
  await expectNoSeriousA11yViolations(page);
});
