import { PIPELINE, STEP_PATH, stepBody, temporaryPartA } from "../helpers/moc";
import { answer, expect, futureDate, ready, test, type Cast, type MocApi } from "./moc-fixtures";

// Temporary changes and delegation through the pages (docs/decisions/023-temporary-changes-and-delegation.md).

/** A temporary change ending on `until`, pushed through /api until verified and closed. */
async function closedTemporary(mocApi: MocApi, cast: Cast, until: string) {
  let moc = await mocApi.create(cast, temporaryPartA(until));
  for (const { step, by } of PIPELINE) moc = await mocApi.submit(STEP_PATH[step], cast[by], stepBody(step, moc, cast));
  return moc;
}

test("a temporary change in effect is restored by the implementer and confirmed by HSEQ", async ({
  cast,
  mocApi,
  openAs,
}) => {
  const until = futureDate(20);
  const moc = await closedTemporary(mocApi, cast, until);
  const implementer = await openAs(cast.implementer);
  await implementer.goto(`/mocs/${moc._id}`);
  await expect(implementer.locator(".owner-line")).toContainText("Temporary change in effect");
  await expect(implementer.getByRole("region", { name: "Temporary change" })).toBeVisible();
  await implementer.getByRole("link", { name: "Report the original condition restored" }).click();
  await ready(implementer);
  await implementer.getByRole("button", { name: "Report restored" }).click();
  await expect(implementer.getByText("What was done to restore the original condition is required")).toBeVisible();
  await implementer
    .getByLabel("What was done to restore the original condition")
    .fill("The spare arrived; the bypass is removed and the alarm tested");
  await implementer.getByRole("button", { name: "Report restored" }).click();
  await expect(implementer.getByText(`The restoration of MOC ${moc.serial_num} is reported`)).toBeVisible();

  const hseq = await openAs(cast.hseq);
  await hseq.goto(`/mocs/${moc._id}`);
  await hseq.getByRole("link", { name: "Confirm the restoration" }).click();
  await ready(hseq);
  await answer(hseq, "Is the original condition restored?", "Yes");
  await hseq.getByRole("button", { name: "Submit confirmation" }).click();
  await expect(hseq.getByText(`The temporary change of MOC ${moc.serial_num} has ended`)).toBeVisible();
  await expect(hseq.locator(".owner-line")).toContainText("Restored (confirmed by HSEQ)");
  expect((await mocApi.get(moc._id)).temporary.state).toBe("restored");

  // The list filters it out of the ones in effect; the dashboard counts are there.
  await hseq.goto("/mocs?temporary=in-effect");
  await expect(hseq.getByRole("link", { name: `MOC ${moc.serial_num}`, exact: true })).toHaveCount(0);
  await hseq.goto("/");
  await expect(hseq.getByRole("region", { name: "Temporary changes" })).toContainText("Expired, not restored");
});

test("an approver away names a delegate on the profile, who approves on their behalf", async ({
  cast,
  mocApi,
  openAs,
}) => {
  test.setTimeout(120_000); // a profile form, a pipeline through /api and an approval through the pages
  const approver = await openAs(cast.approver);
  await approver.goto("/profile");
  await ready(approver);
  const form = approver.getByRole("region", { name: "When you are away" });
  await form.getByLabel("Delegate (acts for you and gets your MOC emails)").selectOption({ label: cast.verifier.name });
  await form.getByLabel("From").fill(futureDate(0));
  await form.getByLabel("To (included)").fill(futureDate(5));
  await form.getByRole("button", { name: "Name the delegate" }).click();
  await expect(approver.getByText(`${cast.verifier.name} stands in for ${cast.approver.name}`)).toBeVisible();
  // The same again overlaps: refused with a clear message.
  const again = approver.getByRole("region", { name: "When you are away" });
  await again.getByLabel("Delegate (acts for you and gets your MOC emails)").selectOption({ label: cast.hseq.name });
  await again.getByLabel("From").fill(futureDate(1));
  await again.getByLabel("To (included)").fill(futureDate(2));
  await again.getByRole("button", { name: "Name the delegate" }).click();
  await expect(approver.getByRole("alert")).toContainText("overlaps the delegation to");

  const moc = await mocApi.create(cast);
  let atD = moc;
  for (const { step, by } of PIPELINE.slice(0, 2)) {
    atD = await mocApi.submit(STEP_PATH[step], cast[by], stepBody(step, atD, cast));
  }
  const deputy = await openAs(cast.verifier);
  await deputy.goto("/");
  await expect(deputy.getByRole("region", { name: `On behalf of ${cast.approver.name}` })).toContainText(
    `MOC ${moc.serial_num}`,
  );
  await deputy.goto(`/mocs/${moc._id}`);
  await deputy.getByRole("link", { name: `Open Part D (approval) (on behalf of ${cast.approver.name})` }).click();
  await ready(deputy);
  await answer(deputy, "Have you reviewed the changes?", "Yes");
  await answer(deputy, "Do you approve this MOC?", "Yes");
  await deputy.getByRole("button", { name: "Submit decision" }).click();
  await expect(deputy.getByText(`MOC ${moc.serial_num} is approved for implementation.`)).toBeVisible();
  await expect(deputy.getByRole("region", { name: "History" })).toContainText(
    `${cast.verifier.name} on behalf of ${cast.approver.name}`,
  );
  // The decision's signature block: signed by the delegate as acting approver, on behalf of the approver.
  await expect(deputy.getByRole("region", { name: "Signatures" })).toContainText(
    `acting Approver, on behalf of ${cast.approver.name}`,
  );
  const after = await mocApi.get(moc._id);
  expect(after.logs.at(-1).onBehalfOf._id).toBe(cast.approver._id);
  expect(after.signatureManifestations.at(-1)).toMatchObject({
    signerId: cast.verifier._id,
    role: "acting Approver",
    onBehalfOf: { _id: cast.approver._id, name: cast.approver.name },
  });
});
