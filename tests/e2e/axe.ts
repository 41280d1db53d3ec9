import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

// axe runs as a script in the page, so the specs that use it run in the JavaScript project only
// (their names end in a11y.spec.ts); the markup it checks is the same server-rendered HTML either way.

export async function expectNoSeriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(
    serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`),
    page.url(),
  ).toEqual([]);
}
