import { answer, expect, expectWaitingOn, fillRichText, futureDate, ready, test, waitingOnMe } from "./moc-fixtures";

// The side roads of the pipeline, each starting from a MOC set up through /api.

test("the implementer declines a MOC with a reason", async ({ cast, mocApi, openAs }) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.implementer);
  await page.goto(`/mocs/${moc._id}`);
  await page.getByRole("link", { name: "Open Part B (implementer assessment)" }).click();
  await ready(page);
  await answer(page, "Have the details of the change been assessed?", "Yes");
  await answer(page, "Is the change necessary and justified?", "No");
  await page.getByLabel("Reason for declining (only when declining)").fill("The current controller can be repaired");
  await page.getByRole("button", { name: "Submit assessment" }).click();

  await expect(page.getByText(`MOC ${moc.serial_num} is declined.`)).toBeVisible();
  await expect(page.locator(".owner-line")).toContainText("Declined");
  await expect(page.getByRole("note")).toContainText(
    "Declined at the implementer assessment (Part B). Reason: The current controller can be repaired",
  );
  const steps = page.getByRole("list", { name: "Workflow steps" }).getByRole("listitem");
  await expect(steps.filter({ hasText: "(declined here)" })).toHaveText(/Implementer/);
  await expect(page.getByRole("link", { name: /^Open Part/ })).toHaveCount(0);

  const after = await mocApi.get(moc._id);
  expect(after.status).toBe("decline");
  expect(after.implementer_form["decline-reason"].value).toBe("The current controller can be repaired");

  // It no longer waits on the implementer.
  await page.goto("/");
  await expect(
    page
      .getByRole("region", { name: "Waiting on me" })
      .getByRole("link", { name: new RegExp(`^MOC ${moc.serial_num}:`) }),
  ).toHaveCount(0);
});

test("the HSEQ review returns a MOC to the implementer", async ({ cast, mocApi, openAs }) => {
  const moc = await mocApi.createAt(cast, "hseq");
  const page = await openAs(cast.hseq);
  await (await waitingOnMe(page, moc.serial_num, "Part C (HSEQ review)")).click();
  await ready(page);
  await answer(page, "Is the change adequately described?", "Yes");
  await answer(page, "Is the justification satisfactory?", "Yes");
  await answer(page, "Does the risk assessment cover the change?", "No");
  await page.getByLabel("Reason for returning it (only when returning)").fill("Attach the risk assessment first");
  await page.getByRole("button", { name: "Submit HSEQ review" }).click();

  await expect(page.getByText(`MOC ${moc.serial_num} went back to the implementer.`)).toBeVisible();
  await expectWaitingOn(page, cast.implementer.name);
  await expect(page.getByRole("region", { name: "History" })).toContainText("Attach the risk assessment first");
  expect((await mocApi.get(moc._id)).status).toBe("b");

  // The implementer has it again, and can assess it again.
  const implementer = await openAs(cast.implementer);
  await (await waitingOnMe(implementer, moc.serial_num, "Part B (implementer assessment)")).click();
  await expect(implementer.getByRole("heading", { name: "Part B — Implementer assessment", level: 2 })).toBeVisible();
});

test("a deviation and an extension are resolved by the approver and the HSEQ user", async ({
  cast,
  mocApi,
  openAs,
}) => {
  const moc = await mocApi.createAt(cast, "implementation");
  const newDate = futureDate(90);

  // Part E with a deviation and an extension.
  const implementer = await openAs(cast.implementer);
  await implementer.goto(`/mocs/${moc._id}/implementation`);
  await ready(implementer);
  await answer(implementer, "Was there a deviation during implementation?", "Yes");
  await answer(implementer, "Does the MOC need an extension?", "Yes");
  await answer(implementer, "Has the MOC been circulated?", "Yes");
  await answer(implementer, "Was it implemented as planned?", "No");
  await fillRichText(implementer, "Deviation details (when there was a deviation)", "A different bracket was used");
  await implementer.getByLabel("New target date (when extending)").fill(newDate);
  await implementer.getByLabel("Reason for the extension").fill("Parts are delayed");
  await implementer.getByRole("button", { name: "Submit implementation" }).click();
  await expect(
    implementer.getByText(`The deviation/extension of MOC ${moc.serial_num} went to the approver and HSEQ user.`),
  ).toBeVisible();
  await expectWaitingOn(implementer, `${cast.approver.name} or ${cast.hseq.name}`);
  await expect(implementer.getByRole("note")).toContainText("Waiting for a decision on a deviation and an extension");

  // The approver accepts the deviation.
  const approver = await openAs(cast.approver);
  await (await waitingOnMe(approver, moc.serial_num, "the deviation/extension resolution")).click();
  await expect(approver).toHaveURL(/\/deviation$/);
  await ready(approver);
  const deviation = approver.getByRole("region", { name: "Deviation during implementation" });
  await expect(deviation).toContainText("A different bracket was used");
  await answer(approver, "Accept the deviation?", "Accept");
  await deviation.getByLabel("Comment").fill("The bracket is equivalent");
  await deviation.getByRole("button", { name: "Record decision on the deviation" }).click();
  await expect(
    approver.getByText("Your decision is recorded; the other item still waits for a decision."),
  ).toBeVisible();

  // The HSEQ user approves the extension: everything is resolved, on to verification.
  const hseq = await openAs(cast.hseq);
  await hseq.goto(`/mocs/${moc._id}/deviation`);
  await ready(hseq);
  await expect(hseq.getByRole("region", { name: "Deviation during implementation" })).toHaveCount(0);
  const extension = hseq.getByRole("region", { name: "Extension of the target date" });
  await expect(extension).toContainText("Parts are delayed");
  await answer(hseq, "Approve the extension?", "Approve");
  await extension.getByRole("button", { name: "Record decision on the extension" }).click();
  await expect(
    hseq.getByText(
      `Everything requested is resolved: MOC ${moc.serial_num} waits for the implementer's completion report, then verification.`,
    ),
  ).toBeVisible();
  // The implementer reports how it was finished (issue 38): Part E keeps the deviation it reported.
  await expect(hseq.locator(".owner-line")).toContainText("Completion report");
  await expectWaitingOn(hseq, cast.implementer.name);
  await (await waitingOnMe(implementer, moc.serial_num, "the completion report")).click();
  await expect(implementer).toHaveURL(/\/completion$/);
  await ready(implementer);
  await implementer.getByLabel("Completion date").fill(new Date().toISOString().slice(0, 10));
  await implementer.getByLabel("How the change was finished").fill("Done as approved, with the other bracket");
  await implementer.getByRole("button", { name: "Report completion" }).click();
  await expect(
    implementer.getByText(`The completion is reported: MOC ${moc.serial_num} waits for verification.`),
  ).toBeVisible();
  await expect(implementer.locator(".owner-line")).toContainText("Verification");
  await expectWaitingOn(implementer, cast.hseq.name);

  const after = await mocApi.get(moc._id);
  expect(after.status).toBe("f");
  expect(after.extentionsAndDeviations.completion).toMatchObject({ note: "Done as approved, with the other bracket" });
  expect(after.implementation["deviation-during-implementation"].value).toBe("yes");
  expect(after.implementer_form["target-date"].value).toBe(newDate);
  expect(after.extentionsAndDeviations.deviation).toMatchObject({ resolved: true, approved: "yes" });
  expect(after.extentionsAndDeviations.extension).toMatchObject({ resolved: true, approved: "yes" });
});

test(
  "a long queue: the dashboard shows the 20 longest-waiting steps and links to all of them",
  { tag: "@once" },
  async ({ cast, mocApi, openAs }) => {
    const serials: string[] = [];
    for (let i = 0; i < 21; i++) serials.push((await mocApi.create(cast)).serial_num);
    const page = await openAs(cast.implementer);
    await page.goto("/");
    const region = page.getByRole("region", { name: "Waiting on me" });
    await expect(region.getByRole("link", { name: /^MOC .*: Part B/ })).toHaveCount(20);
    await expect(
      region.getByRole("link", { name: `MOC ${serials[0]}: Part B (implementer assessment)` }),
    ).toBeVisible();
    await expect(region.getByText("These are the 20 MOC steps that have waited longest, of 21.")).toBeVisible();

    await region.getByRole("link", { name: "All 21 MOCs waiting on me" }).click();
    await expect(page).toHaveURL(/\/mocs\?scope=waiting$/);
    await expect(page.getByText("21 records")).toBeVisible();
    await expect(page.getByLabel("Whose")).toHaveValue("waiting");
    for (const serial of [serials[0]!, serials[20]!]) {
      await expect(page.getByRole("link", { name: `MOC ${serial}`, exact: false }).first()).toBeVisible();
    }
  },
);
