/**
 * The risk ranking's pages under axe (docs/decisions/037-risk-ranking-and-approvals.md), in the
 * JavaScript project only (see a11y.spec.ts): the impact editor with its ranks, the record of a
 * High MOC waiting on its second approval, and the admin's risk matrix.
 */
import { expectNoSeriousA11yViolations } from "./axe";
import { ADMIN, signIn } from "./fixtures";
import { expect, ready, test } from "./moc-fixtures";
import { STEP_PATH, stepBody } from "../helpers/moc";

test.describe.configure({ timeout: 240_000 });

test("the impact editor, a High MOC's record and the risk matrix pass an accessibility scan", async ({
  cast,
  mocApi,
  openAs,
  browser,
}) => {
  const moc = await mocApi.createAt(cast, "hseq");
  await mocApi.submit("/api/impact", cast.implementer, {
    moc_id: moc._id,
    impact_assessment: [
      {
        category: "Safety",
        hazards: ["Fire"],
        likelihood: 4,
        severity: 4,
        controls: "Rounds",
        residualLikelihood: 3,
        residualSeverity: 4,
      },
    ],
  });
  const page = await openAs(cast.implementer);
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto(`/mocs/${moc._id}/impact`);
    await expect(page.getByRole("heading", { name: "Impact assessment" }).first()).toBeVisible();
    await ready(page);
    await expectNoSeriousA11yViolations(page);
  }
  const reviewed = await mocApi.submit(STEP_PATH.hseq, cast.hseq, stepBody("hseq", moc, cast));
  await mocApi.submit(STEP_PATH.approver, cast.approver, stepBody("approver", reviewed, cast));
  await page.goto(`/mocs/${moc._id}`);
  await expect(page.getByRole("region", { name: "Approvals this MOC's risk needs" })).toBeVisible();
  await ready(page);
  await expectNoSeriousA11yViolations(page);

  const context = await browser.newContext();
  const admin = await context.newPage();
  await signIn(admin, ADMIN.email, ADMIN.password);
  await admin.goto("/admin/risk");
  await expect(admin.getByRole("heading", { name: "Risk matrix", level: 1 })).toBeVisible();
  await ready(admin);
  await expectNoSeriousA11yViolations(admin);
  await context.close();
});
