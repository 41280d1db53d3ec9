/**
 * Issue 41, training (docs/decisions/056-training.md), in the browser with JavaScript on and off at
 * 375 px: the verifier's "trainings complete: yes" refused naming the open training and who has not
 * attended; the implementer records attendance on the MOC's trainings page (a bad date refused
 * beside its field), the record shows it, and the verification then closes the MOC. Screenshots go
 * under /tmp.
 */
import type { Page } from "@playwright/test";
import { PIPELINE, STEP_PATH, stepBody } from "../helpers/moc";
import { expectNoSeriousA11yViolations } from "./axe";
import {
  answerAllYes,
  expect,
  futureDate,
  jsEnabled,
  ready,
  test,
  type Cast,
  type Doc,
  type MocApi,
} from "./moc-fixtures";

const PHONE = { width: 375, height: 800 };
const TRAINING = "Toolbox talk on the new bunkering checklist";

const shot = (page: Page, name: string, width = PHONE.width) =>
  page.screenshot({ path: `/tmp/training-${name}-${width}-${jsEnabled() ? "js" : "no-js"}.png`, fullPage: true });

/** A MOC whose one action is a training `attendees` must attend, taken through /api to verification. */
async function atVerification(mocApi: MocApi, cast: Cast, attendees: string[]): Promise<Doc> {
  let moc = await mocApi.create(cast);
  moc = await mocApi.submit("/api/actionTable", cast.implementer, {
    id: moc._id,
    action: { items: [{ description: TRAINING, owner: cast.implementer._id, due: futureDate(10) }] },
  });
  moc = await mocApi.submit("/api/training", cast.implementer, {
    moc_id: moc._id,
    item_id: moc.action.items[0]._id,
    attendees,
  });
  for (const { step, by } of PIPELINE) {
    if (step === "verifier") break;
    moc = await mocApi.submit(STEP_PATH[step], cast[by], stepBody(step, moc, cast));
  }
  return moc;
}

test("an open training refuses “trainings complete”; attendance recorded on the page lets the MOC close", async ({
  cast,
  mocApi,
  openAs,
  createUser,
}) => {
  const tom = await createUser({ name: `Tom Trainee ${Date.now()}` });
  const una = await createUser({ name: `Una Deckhand ${Date.now()}` });
  const moc = await atVerification(mocApi, cast, [tom._id, una._id]);

  // The verifier: the checklist names the open training; "yes" is refused beside the answer.
  const verifier = await openAs(cast.hseq);
  await verifier.setViewportSize(PHONE);
  await verifier.goto(`/mocs/${moc._id}/verifier`);
  await ready(verifier);
  await expect(verifier.getByTestId("open-trainings")).toContainText(`Training “${TRAINING}”`);
  await answerAllYes(verifier);
  await verifier.getByRole("button", { name: "Submit verification" }).click();
  await expect(verifier.getByRole("group", { name: "Are trainings complete?" })).toContainText(
    `not attended yet by ${tom.name}, ${una.name}`,
  );
  expect(await mocApi.get(moc._id)).toMatchObject({ status: "f", completed: false });
  await shot(verifier, "refused");

  // The implementer records attendance on the trainings page.
  const page = await openAs(cast.implementer);
  await page.setViewportSize(PHONE);
  await page.goto(`/mocs/${moc._id}`);
  await ready(page);
  await page.getByRole("link", { name: "Trainings and attendance" }).click();
  await ready(page);
  const training = page.getByRole("article", { name: TRAINING });
  await expect(training).toContainText("0 of 2 attended");
  // axe runs as a script in the page: with JavaScript on (the markup is the same server-rendered HTML).
  if (jsEnabled()) await expectNoSeriousA11yViolations(page);

  // A date in the future is refused beside its field; nothing recorded.
  const form = training.getByRole("form", { name: "Record attendance" });
  await form.getByRole("checkbox", { name: tom.name }).check();
  await form.getByLabel("Date of the training").fill(futureDate(5));
  // The browser's own check (the field's max) would stop it first: the server's answer is what is tested.
  await form.evaluate((f: HTMLFormElement) => (f.noValidate = true));
  await form.getByRole("button", { name: "Record attendance" }).click();
  await expect(page.getByText("The date cannot be in the future")).toBeVisible();
  expect((await mocApi.get(moc._id)).action.items[0].training.attendance).toEqual([]);

  // Both attended today.
  const again = page.getByRole("article", { name: TRAINING }).getByRole("form", { name: "Record attendance" });
  await again.getByRole("checkbox", { name: tom.name }).check();
  await again.getByRole("checkbox", { name: una.name }).check();
  await again.getByLabel("Date of the training").fill(futureDate(0));
  await again.getByLabel("Note (optional)").fill("Held in the mess room after the drill");
  await again.getByRole("button", { name: "Record attendance" }).click();
  await expect(page.getByText("The attendance is recorded.")).toBeVisible();
  await expect(page.getByRole("article", { name: TRAINING })).toContainText("Complete: everyone has attended");
  await shot(page, "recorded");
  await page.setViewportSize({ width: 1280, height: 900 });
  await shot(page, "recorded", 1280);
  await page.setViewportSize(PHONE);
  const saved = await mocApi.get(moc._id);
  expect(saved.action.items[0]).toMatchObject({ done: true });
  expect(saved.action.items[0].training.attendance).toHaveLength(2);

  // The record shows the trainings table with who recorded each attendance.
  await page.goto(`/mocs/${moc._id}`);
  await ready(page);
  const table = page.getByRole("region", { name: /^Trainings/ });
  await expect(table).toContainText(`${tom.name}: attended ${futureDate(0)} (recorded by ${cast.implementer.name}`);
  await shot(page, "record");
  await table.screenshot({ path: `/tmp/training-table-375-${jsEnabled() ? "js" : "no-js"}.png` });

  // Now the verification closes the MOC.
  await verifier.goto(`/mocs/${moc._id}/verifier`);
  await ready(verifier);
  await expect(verifier.getByTestId("open-trainings")).toHaveCount(0);
  await answerAllYes(verifier);
  await verifier.getByRole("button", { name: "Submit verification" }).click();
  await expect(verifier.getByText(`MOC ${moc.serial_num} is verified and closed.`)).toBeVisible();
  expect(await mocApi.get(moc._id)).toMatchObject({ completed: true });
});
