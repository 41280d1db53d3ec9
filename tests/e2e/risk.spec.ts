/**
 * Issue 28 items 3 and 4 in the browser, with JavaScript on and off, at 375 px
 * (docs/decisions/037-risk-ranking-and-approvals.md): the implementer ranks the impact assessment
 * in its editor, the record shows the MOC's risk and, once approved by the approver, waits on the
 * Director HSEQ, who gives the second approval on the same page; the admin's risk matrix page.
 * Screenshots go under /tmp.
 */
import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { STEP_PATH, stepBody } from "../helpers/moc";
import { ADMIN, signIn } from "./fixtures";
import { answer, expect, jsEnabled, ready, test } from "./moc-fixtures";

const PHONE = { width: 375, height: 800 };

const shot = (page: Page, name: string, fullPage = true) =>
  page.screenshot({ path: `/tmp/risk-${name}-${jsEnabled() ? "js" : "no-js"}.png`, fullPage });
const WIDE = { width: 1280, height: 900 };

test("a High MOC: ranked in the editor, approved by the approver, then by the Director HSEQ", async ({
  cast,
  mocApi,
  openAs,
  createUser,
}) => {
  const created = await createUser({
    name: `Dora Director ${randomBytes(3).toString("hex")}`,
    department: "hseq",
    position: "Director HSEQ",
  });
  const director = { ...created, token: created.token! };
  const moc = await mocApi.createAt(cast, "hseq");

  const page = await openAs(cast.implementer);
  await page.setViewportSize(PHONE);
  await page.goto(`/mocs/${moc._id}/impact`);
  await ready(page);
  if (!jsEnabled() || (await page.getByLabel("Category, category 1").count()) === 0) {
    await page.getByRole("button", { name: "Add a category" }).click();
    await ready(page);
  }
  await page.getByLabel("Category, category 1").fill("Safety");
  await page.getByLabel("Hazards (one per line), category 1").fill("Loss of the HT alarm");
  await page.getByLabel("Likelihood, category 1", { exact: true }).selectOption("4");
  await page.getByLabel("Severity, category 1", { exact: true }).selectOption("4");
  await page.getByLabel("Controls, category 1").fill("Hourly rounds in the engine room");
  await page.getByLabel("Residual likelihood, category 1").selectOption("3");
  // Half a pair is refused next to the field.
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Give both the likelihood and the severity after controls, or neither")).toBeVisible();
  await page.getByLabel("Residual severity, category 1").selectOption("4");
  await shot(page, "editor");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("The impact assessment is saved.")).toBeVisible();
  await expect(page.locator(".owner-line")).toContainText("Risk: High");
  await expect(page.getByRole("region", { name: /Impact assessment \(risk: High\)/ })).toContainText("3 × 4 = 12");
  await page.goto(`/mocs/${moc._id}/impact`);
  await shot(page, "editor-saved", false);
  await page.setViewportSize(WIDE);
  await shot(page, "editor-1280", false);

  await mocApi.submit(STEP_PATH.hseq, cast.hseq, stepBody("hseq", moc, cast));

  // The approver approves on the page; the MOC stays at approval, waiting on the Director HSEQ.
  const approver = await openAs(cast.approver);
  await approver.setViewportSize(PHONE);
  await approver.goto(`/mocs/${moc._id}/approver`);
  await ready(approver);
  await answer(approver, "Have you reviewed the changes?", "Yes");
  await answer(approver, "Do you approve this MOC?", "Yes");
  await approver.getByRole("button", { name: "Submit decision" }).click();
  await expect(approver.getByText(/it now waits on the next approval its risk needs/)).toBeVisible();
  await expect(approver.locator(".owner-line")).toContainText(director.name);
  const chain = approver.getByRole("region", { name: "Approvals this MOC's risk needs" });
  await expect(chain).toContainText(`Approver: approved by ${cast.approver.name}`);
  await expect(chain).toContainText("Director HSEQ (High-risk approval): waiting on");
  await shot(approver, "waiting-director");
  await shot(approver, "waiting-director-top", false);
  await approver.setViewportSize(WIDE);
  await shot(approver, "waiting-director-1280", false);

  // Its stage is the second approval (issue 38): on the record, on the Director's dashboard tile,
  // and in the list the tile leads to, filtered by that stage.
  await approver.setViewportSize(PHONE);
  await expect(approver.getByText("Second approval (High risk)", { exact: true }).first()).toBeVisible();
  const second = await openAs(director);
  await second.setViewportSize(PHONE);
  await second.goto("/");
  await second.getByRole("link", { name: /Second approval \(High risk\)$/ }).click();
  await expect(second).toHaveURL(/[?&]stage=Second(\+|%20)approval/);
  await expect(second.getByRole("combobox", { name: "Stage", exact: true })).toHaveValue("Second approval (High risk)");
  await expect(second.getByRole("link", { name: new RegExp(`^MOC ${moc.serial_num}\\b`) })).toBeVisible();
  const [scroll, client] = await second.evaluate(() => [
    document.documentElement.scrollWidth,
    document.documentElement.clientWidth,
  ]);
  expect(scroll, "the list scrolls sideways at 375 px").toBeLessThanOrEqual(client!);
  await shot(second, "list-by-stage");

  // The Director HSEQ gives the second approval on the same page.
  await second.goto(`/mocs/${moc._id}/approver`);
  await ready(second);
  await expect(second.getByText(/after the approver it needs this approval: Director HSEQ/)).toBeVisible();
  await answer(second, "Have you reviewed the changes?", "Yes");
  await answer(second, "Do you approve this MOC?", "Yes");
  await shot(second, "second-approval");
  await second.getByRole("button", { name: "Submit decision" }).click();
  await expect(second.getByText(/is approved for implementation/)).toBeVisible();
  expect(await mocApi.get(moc._id)).toMatchObject({ status: "e", risk_level: "high" });
  await expect(second.getByRole("region", { name: "Approvals this MOC's risk needs" })).toContainText(
    `Director HSEQ (High-risk approval): approved by ${director.name}`,
  );
  await shot(second, "approved");

  // The list shows the badge and filters by risk.
  await second.goto("/mocs?risk=high");
  await expect(second.getByRole("link", { name: `MOC ${moc.serial_num}`, exact: true })).toBeVisible();
  await shot(second, "list", false);
  await second.setViewportSize(WIDE);
  await shot(second, "list-1280", false);
});

test("the admin's risk matrix page validates and saves the thresholds", async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: test.info().project.use.javaScriptEnabled });
  const page = await context.newPage();
  await page.setViewportSize(PHONE);
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto("/admin/risk");
  await ready(page);
  await expect(page.getByRole("table", { name: "Risk matrix: likelihood × severity" })).toBeVisible();
  await page.getByLabel("Medium: scores up to").fill("3");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Each threshold must be above the one before").first()).toBeVisible();
  await shot(page, "admin-refused");
  await page.goto("/admin/risk");
  await ready(page);
  await page.getByLabel("High: scores up to").fill("15");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("The risk matrix is saved.")).toBeVisible();
  await expect(page.getByRole("region", { name: "Changes" })).toContainText("High 10-15, Extreme 16-25");
  await shot(page, "admin-saved");
  await page.setViewportSize(WIDE);
  await shot(page, "admin-1280", false);
  await page.setViewportSize(PHONE);
  // Back to the defaults for the other specs.
  await page.getByLabel("High: scores up to").fill("14");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("The risk matrix is saved.")).toBeVisible();
  await context.close();
});
