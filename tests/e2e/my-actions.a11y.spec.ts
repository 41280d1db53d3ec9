/** Axe on "My actions" (docs/decisions/038-actions-as-tasks.md): the dashboard with items, and the done form with an error, at 375 px and 1280 px. */
import { expectNoSeriousA11yViolations } from "./axe";
import { PIPELINE, STEP_PATH, stepBody } from "../helpers/moc";
import { expect, futureDate, ready, test } from "./moc-fixtures";

test("the dashboard's My actions and the done form have no serious violations", async ({
  cast,
  createUser,
  mocApi,
  openAs,
}) => {
  const created = await createUser({ department: "operations" });
  const owner = { ...created, token: created.token! };
  let moc = await mocApi.create(cast);
  await mocApi.submit("/api/actionTable", cast.implementer, {
    id: moc._id,
    action: { items: [{ description: "Replace the HT alarm sensor", owner: owner._id, due: futureDate(-1) }] },
  });
  for (const { step, by } of PIPELINE) {
    if (step === "implementation") break;
    moc = await mocApi.submit(STEP_PATH[step], cast[by], stepBody(step, moc, cast));
  }
  const page = await openAs(owner);
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    await page.goto("/");
    await ready(page);
    await expect(page.getByRole("region", { name: "My actions" }).getByRole("listitem")).toHaveCount(1);
    await expectNoSeriousA11yViolations(page);
  }
  await page.getByRole("link", { name: /^Mark done/ }).click();
  await ready(page);
  await page.getByLabel("What was done (note)").fill("Fitted the new sensor");
  await page.getByLabel("Evidence file (optional)").setInputFiles({
    name: "photo.png",
    mimeType: "image/png",
    buffer: Buffer.from("not a png"),
  });
  await page.getByRole("button", { name: "Mark done" }).click();
  await expect(page.getByText("This is not a valid .png file")).toBeVisible();
  await expectNoSeriousA11yViolations(page);
});
