import {
  answer,
  expect,
  expectWaitingOn,
  fillRichText,
  futureDate,
  ready,
  serialOf,
  test,
  waitingOnMe,
} from "./moc-fixtures";

// The whole pipeline through the pages, by five people in five browsers: creation to completion.
// Runs in both projects, so once with JavaScript and once without.
test("a MOC goes from Part A to completed through the pages", async ({ cast, mocApi, openAs }) => {
  test.slow(); // Five browsers and eight forms: give it room on a loaded machine.
  // The originator signs in through the form; the others reuse their sessions as cookies.
  const originator = await openAs(cast.originator, { viaForm: true });
  const [implementer, hseq, approver, verifier] = await Promise.all([
    openAs(cast.implementer),
    openAs(cast.hseq),
    openAs(cast.approver),
    openAs(cast.verifier),
  ]);

  // Part A: the originator raises the MOC.
  await originator.goto("/mocs/new");
  await ready(originator);
  await originator.getByLabel("Title").fill("Ballast pump controller");
  await originator.getByLabel("Vessel or scope").selectOption({ label: "Fleet-wide" });
  await originator.getByLabel("Implementer", { exact: true }).selectOption(cast.implementer._id);
  await originator.getByLabel("Department of change").selectOption({ label: "Engineering" });
  await fillRichText(originator, "Description of change", "Replace the ballast pump controller");
  await originator.getByLabel("Reason for change").fill("The old controller is obsolete");
  const affected = originator.getByRole("group", { name: "Affected departments" });
  await affected.getByLabel("Engineering").check();
  await affected.getByLabel("Operations").check();
  await originator.getByRole("button", { name: "Submit MOC" }).click();
  await expect(originator).toHaveURL(/\/mocs\/[0-9a-f-]{36}$/);
  await expect(originator.getByText(/is raised; the implementer has been notified/)).toBeVisible();
  const recordUrl = originator.url();
  const serial = await serialOf(originator);
  await expect(originator.getByText("Implementer assessment", { exact: true }).first()).toBeVisible();
  await expectWaitingOn(originator, cast.implementer.name);
  await expect(originator.getByText("Replace the ballast pump controller")).toBeVisible();

  // Part B: the implementer finds it on the dashboard and assesses it.
  await (await waitingOnMe(implementer, serial, "Part B (implementer assessment)")).click();
  await expect(implementer).toHaveURL(/\/implementer$/);
  await ready(implementer);
  await answer(implementer, "Have the details of the change been assessed?", "Yes");
  await answer(implementer, "Is the change necessary and justified?", "Yes");
  await implementer.getByLabel("Approver", { exact: true }).selectOption(cast.approver._id);
  await implementer.getByLabel("HSEQ user", { exact: true }).selectOption(cast.hseq._id);
  await implementer.getByLabel("Target date").fill(futureDate(30));
  await implementer.getByRole("button", { name: "Submit assessment" }).click();
  await expect(implementer.getByText(`MOC ${serial} went to HSEQ review.`)).toBeVisible();
  await expectWaitingOn(implementer, `${cast.hseq.name} (HSEQ)`);

  // Part C: the HSEQ user reviews it.
  await (await waitingOnMe(hseq, serial, "Part C (HSEQ review)")).click();
  await ready(hseq);
  await answer(hseq, "Is the change adequately described?", "Yes");
  await answer(hseq, "Is the justification satisfactory?", "Yes");
  await answer(hseq, "Does the risk assessment cover the change?", "Yes");
  await hseq.getByRole("button", { name: "Submit HSEQ review" }).click();
  await expect(hseq.getByText(`MOC ${serial} passed HSEQ review and waits for approval.`)).toBeVisible();
  await expectWaitingOn(hseq, cast.approver.name);

  // Part D: the approver approves it.
  await (await waitingOnMe(approver, serial, "Part D (approval)")).click();
  await ready(approver);
  await answer(approver, "Have you reviewed the changes?", "Yes");
  await answer(approver, "Do you approve this MOC?", "Yes");
  await approver.getByRole("button", { name: "Submit decision" }).click();
  await expect(approver.getByText(`MOC ${serial} is approved for implementation.`)).toBeVisible();
  await expectWaitingOn(approver, cast.implementer.name);

  // Part E: the implementer reports the implementation, without deviation or extension.
  await (await waitingOnMe(implementer, serial, "Part E (implementation)")).click();
  await ready(implementer);
  await answer(implementer, "Was there a deviation during implementation?", "No");
  await answer(implementer, "Does the MOC need an extension?", "No");
  await answer(implementer, "Has the MOC been circulated?", "Yes");
  await answer(implementer, "Was it implemented as planned?", "Yes");
  await implementer.getByLabel("Completion date (when there is no deviation or extension)").fill(futureDate(0));
  await implementer.getByRole("button", { name: "Submit implementation" }).click();
  await expect(implementer.getByText(`MOC ${serial} is implemented and waits for verification.`)).toBeVisible();
  // No verifier yet: the HSEQ user would verify.
  await expectWaitingOn(implementer, cast.hseq.name);

  // The originator assigns a verifier on the record page.
  await originator.goto(recordUrl);
  await ready(originator);
  const manage = originator.getByRole("region", { name: "Actions" });
  // One picker per role, offering only people four eyes allows in it.
  await manage.getByLabel("Verifier", { exact: true }).selectOption(cast.verifier._id);
  await manage.getByRole("button", { name: "Assign verifier" }).click();
  await expect(originator.getByText("The verifier is assigned and notified.")).toBeVisible();
  await expectWaitingOn(originator, cast.verifier.name);

  // Part F: the verifier closes it.
  await (await waitingOnMe(verifier, serial, "Part F (verification)")).click();
  await ready(verifier);
  for (const question of [
    "Was the action plan correct and completed?",
    "Have manuals and drawings been changed?",
    "Are trainings complete?",
    "Is feedback complete?",
    "Was the MOC effective?",
    "Close the MOC?",
  ]) {
    await answer(verifier, question, "Yes");
  }
  await verifier.getByRole("button", { name: "Submit verification" }).click();
  await expect(verifier.getByText(`MOC ${serial} is verified and closed.`)).toBeVisible();
  await expect(verifier.locator(".owner-line")).toContainText("Completed");
  await expect(verifier.locator(".owner-line")).toContainText("Closed after verification");
  await expect(verifier.getByRole("link", { name: /^Open Part/ })).toHaveCount(0);
  await expect(
    verifier.getByRole("list", { name: "Workflow steps" }).getByRole("listitem").filter({ hasText: "(done)" }),
  ).toHaveCount(6);
  const parts = await mocApi.get(recordUrl.split("/").pop()!);
  expect(parts).toMatchObject({ status: "f", completed: true });
  expect(parts.verifier_id._id).toBe(cast.verifier._id);

  // Nothing waits on anyone any more.
  await verifier.goto("/");
  await expect(
    verifier.getByRole("region", { name: "Waiting on me" }).getByRole("link", { name: new RegExp(`^MOC ${serial}:`) }),
  ).toHaveCount(0);
});
