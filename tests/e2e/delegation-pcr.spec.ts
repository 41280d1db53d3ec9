/**
 * Delegation on the PCR pages, with JavaScript on (drawn signature) and off (typed name): a chain
 * holder away names a delegate on /profile, and the delegate signs the holder's slot as acting
 * holder, on their behalf. The record says so in the signature block, the history and the
 * manifestation. docs/decisions/023-temporary-changes-and-delegation.md.
 */
import { futureDate } from "../helpers/moc";
import { expect, ready, signWith, test } from "./pcr-fixtures";

test("a chain holder away names a delegate, who signs their PCR slot on their behalf", async ({
  cast,
  openAs,
  createPcr,
  readPcr,
  request,
}) => {
  test.setTimeout(120_000); // a profile form, a PCR through /api and a signature through the pages
  const holder = cast.holders["VP Fleet Management"];
  const deputy = cast.outsider;

  const away = await openAs(holder);
  await away.goto("/profile");
  await ready(away);
  const form = away.getByRole("region", { name: "When you are away" });
  await form.getByLabel("Delegate (acts for you and gets your MOC emails)").selectOption({ label: deputy.name });
  await form.getByLabel("From").fill(futureDate(0));
  await form.getByLabel("To (included)").fill(futureDate(3));
  await form.getByRole("button", { name: "Name the delegate" }).click();
  await expect(away.getByText(`${deputy.name} stands in for ${holder.name}`)).toBeVisible();

  // The originator has signed; the VP's slot is next.
  const doc = await createPcr(cast.originator);
  const chain = doc.signatures.map((s: { Name: string }, i: number) => ({
    Name: s.Name,
    Signature: i === 0 ? cast.originator.name.toUpperCase() : false,
    Comments: "",
  }));
  const signed = await request.post("/api/pcr/signatures", {
    headers: { Authorization: `Bearer ${cast.originator.token}` },
    data: { pcrId: doc._id, signatures: chain, password: cast.originator.password },
  });
  expect(signed.status(), await signed.text()).toBe(200);

  const page = await openAs(deputy);
  await page.goto(`/pcrs/${doc._id}`);
  await ready(page);
  const section = page.getByRole("region", {
    name: `Your signature as acting VP Fleet Management, on behalf of ${holder.name}`,
  });
  await expect(section).toBeVisible();
  // A typed signature is the signer's own name, not the absent holder's.
  await signWith(page, section, deputy, deputy.password);
  await expect(page.locator(".flash")).toContainText("Signed. The next signer has been notified.");
  // The slot's signature block names the delegate, their own position, and whom they signed for.
  const block = page
    .locator(".signature-block")
    .filter({ has: page.locator(".signature-head strong", { hasText: "VP Fleet Management" }) });
  await expect(block).toContainText(deputy.name);
  await expect(block).toContainText(`acting VP Fleet Management, on behalf of ${holder.name}`);
  await expect(page.getByRole("region", { name: "History" })).toContainText(
    `Signed as acting VP Fleet Management, on behalf of ${holder.name}`,
  );

  const after = await readPcr(doc._id);
  expect(typeof after.signatures[1].Signature).toBe("string");
  expect(after.signatureManifestations.at(-1)).toMatchObject({
    signerId: deputy._id,
    printedName: deputy.name,
    role: "acting VP Fleet Management",
    onBehalfOf: { _id: holder._id, name: holder.name },
  });
  await page.setViewportSize({ width: 375, height: 900 });
  await page.screenshot({ path: `/tmp/delegation-pcr-375-${test.info().project.name}.png`, fullPage: true });
});
