/**
 * /insights in the browser, with JavaScript on and off (docs/decisions/017-insights.md): an HSEQ user reads the figures
 * as charts with tables, filters them by period and department through the GET form, gets a 400
 * page for a bad period and downloads a table as CSV; a standard user gets the 403 page and no
 * link; a year-end review pulls its year's figures into its summary.
 *
 * Other specs add MOCs today on the same server, so exact numbers are checked on a period long
 * past (nothing happened then) and in the integration tests; here "at least" for today's.
 */
import { randomBytes } from "node:crypto";
import { expect, ready, test } from "./moc-fixtures";

const YEAR = new Date().getUTCFullYear();
const QUIET = YEAR - 5;

test("an HSEQ user reads, filters and downloads the figures", async ({ cast, mocApi, openAs }) => {
  // Three pages and a download: more than the default 30 s on a busy two-core machine.
  test.setTimeout(90_000);
  await mocApi.create(cast);
  const page = await openAs(cast.hseq);
  await page.goto("/insights");
  await ready(page);
  await expect(page.getByRole("heading", { level: 1, name: "Insight" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Insight" })).toHaveCount(1);
  for (const name of [
    /^MOCs opened, completed and declined per month/,
    /^Days spent in each step/,
    /^On-time closure rate per department/,
    /^Deviations and extensions requested/,
    /^Days each PCR signer took/,
    /^MOCs reminded per day/,
  ]) {
    await expect(page.getByRole("img", { name })).toHaveCount(1);
  }
  const opened = page.locator(".stat").filter({ hasText: "MOCs opened" }).locator("dd");
  expect(Number(await opened.textContent())).toBeGreaterThanOrEqual(1);
  // Six tables, the overdue actions by department (docs/decisions/038-actions-as-tasks.md), the MOCs
  // by risk (037), "By vessel" (036) and acknowledgement compliance by vessel (issue 41).
  await expect(page.getByRole("link", { name: /^Download this table as CSV/ })).toHaveCount(11);
  await expect(page.getByRole("table", { name: /^Effectiveness reviews due in the period/ })).toHaveCount(1);
  await expect(page.getByRole("table", { name: /^Acknowledgement compliance by vessel/ })).toHaveCount(1);
  await expect(page.getByRole("table", { name: /^Open action and manuals items past their due date/ })).toHaveCount(1);

  // A CSV download, with the page's session.
  const href = await page
    .getByRole("link", { name: /^Download this table as CSV/ })
    .first()
    .getAttribute("href");
  const csv = await page.request.get(href!);
  expect(csv.status()).toBe(200);
  expect(csv.headers()["content-type"]).toBe("text/csv; charset=utf-8");
  expect((await csv.text()).startsWith("\uFEFFMonth,Opened,Completed,Declined,Open at month end\r\n")).toBe(true);

  // Filters: a year long past, one department. Nothing happened then.
  const filters = page.getByRole("search", { name: "Insight filters" });
  await filters.getByLabel("From").fill(`${QUIET}-01-01`);
  await filters.getByLabel("To").fill(`${QUIET}-12-31`);
  await filters.getByLabel("Department").selectOption("fleet");
  await filters.getByRole("button", { name: "Apply" }).click();
  await page.waitForURL(/department=fleet/);
  expect(new URL(page.url()).searchParams.get("from")).toBe(`${QUIET}-01-01`);
  await expect(page.getByText(`, Fleet. Counted from the records just now.`)).toBeVisible();
  const monthly = page.getByRole("table", { name: /^MOCs opened, completed and declined per month/ });
  await expect(monthly.locator("tbody tr")).toHaveCount(12);
  await expect(monthly.locator("tbody tr").first()).toHaveText(`Jan ${QUIET}0000`);
  await expect(page.locator(".stat").filter({ hasText: "MOCs opened" }).locator("dd")).toHaveText("0");
  await expect(filters.getByLabel("Department")).toHaveValue("fleet");

  // A period that ends before it starts: 400, the reason next to the field, nothing counted.
  const refused = await page.goto(`/insights?from=${QUIET}-05-01&to=${QUIET}-04-01`);
  expect(refused?.status()).toBe(400);
  await expect(page.getByText("from must be on or before to").first()).toBeVisible();
  await expect(page.getByRole("img")).toHaveCount(0);
});

test("a standard user gets the 403 page and no link", { tag: "@once" }, async ({ cast, openAs }) => {
  const page = await openAs(cast.originator);
  await page.goto("/");
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Reviews" })).toHaveCount(1);
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Insight" })).toHaveCount(0);
  const refused = await page.goto("/insights");
  expect(refused?.status()).toBe(403);
  await expect(page.getByRole("heading", { name: "Not allowed" })).toBeVisible();
  await expect(page.getByRole("img")).toHaveCount(0);
});

test("a year-end review pulls its year's figures into its summary", async ({ cast, openAs, request }) => {
  const title = `Review with insight ${randomBytes(3).toString("hex")}`;
  const created = await request.post("/api/year-end-review", {
    headers: { Authorization: `Bearer ${cast.hseq.token}` },
    data: { year: QUIET, title },
  });
  expect(created.status()).toBe(200);
  const id = ((await created.json()) as { data: { _id: string } }).data._id;
  const page = await openAs(cast.hseq);
  await page.goto(`/reviews/${id}`);
  await ready(page);
  await expect(page.getByRole("heading", { name: `Insight figures, ${QUIET}` })).toHaveCount(0);
  await page.getByRole("button", { name: "Pull in the insight figures" }).click();
  await expect(page.getByText(`The insight figures for ${QUIET} are in the summary`)).toBeVisible();
  await expect(page.getByRole("heading", { name: `Insight figures, ${QUIET}` })).toBeVisible();
  await expect(page.getByRole("img", { name: /^Days spent in each step/ })).toBeVisible();
  await expect(page.getByRole("button", { name: "Pull in the insight figures again" })).toBeVisible();

  // Stored with the review: the API returns them, and the print view shows them.
  const read = await request.get(`/api/year-end-review?id=${id}`, {
    headers: { Authorization: `Bearer ${cast.hseq.token}` },
  });
  const summary = ((await read.json()) as { data: { moc_summary: { insights: { period: object } } } }).data.moc_summary;
  expect(summary.insights.period).toEqual({
    from: `${QUIET}-01-01`,
    to: `${QUIET}-12-31`,
    department: null,
    asOf: `${QUIET}-12-31`,
  });
  await page.goto(`/reviews/${id}/print`);
  await expect(page.getByRole("heading", { name: `Insight figures, ${QUIET}` })).toBeVisible();
});
