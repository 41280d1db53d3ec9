import { expectNoSeriousA11yViolations } from "./axe";
import { expect, ready, signSection, test } from "./pcr-fixtures";

// Each test scans whole pages with axe, which is CPU-heavy on two shared cores: a budget for the
// slowest run, not the typical one.
test.describe.configure({ timeout: 240_000 });

test("the PCR list, new PCR and PCR pages (with the drawing pad) pass an accessibility scan", async ({
  cast,
  openAs,
  createPcr,
}) => {
  // Five full-page scans: more than the default 30 s on a busy two-core machine.
  const { originator, party } = cast;
  const doc = await createPcr(originator, [party]);
  const page = await openAs(originator);

  await page.goto("/pcrs");
  await expect(page.getByRole("link", { name: `PCR ${doc.serial_num}` })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  await page.goto("/pcrs/new");
  await ready(page);
  await expect(page.getByRole("toolbar", { name: "Suggestion details formatting" })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  // The record with the signing form open (the canvas, the password field, the buttons).
  await page.goto(`/pcrs/${doc._id}`);
  await ready(page);
  await expect(
    signSection(page, "Change Originator").getByLabel("Type your full name as your signature"),
  ).toBeVisible();
  await expectNoSeriousA11yViolations(page);
  await signSection(page, "Change Originator").getByLabel("Draw my signature").check();
  await expect(signSection(page, "Change Originator").getByTestId("signature-canvas")).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  // A failed signature: the error messages are announced and tied to their fields.
  const section = signSection(page, "Change Originator");
  await section.getByRole("button", { name: "Sign", exact: true }).click();
  await expect(section.getByText("Sign: draw your signature or type your full name")).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  // As the affected party, who sees the party's signing form.
  const partyPage = await openAs(party);
  await partyPage.goto(`/pcrs/${doc._id}`);
  await ready(partyPage);
  await expect(signSection(partyPage, "an affected party")).toBeVisible();
  await expectNoSeriousA11yViolations(partyPage);
});
