/**
 * A PCR from the new-PCR page to "Finished", signed through the UI by the originator, the five
 * position holders in order and an affected party, each in a browser of their own: with
 * JavaScript the signature is drawn on the canvas, without it the full name is typed. Every signer
 * re-enters their password; a wrong one signs nothing.
 */
import type { Page } from "@playwright/test";
import {
  CHAIN,
  POSITIONS,
  expect,
  fillRichText,
  ready,
  serialOf,
  signSection,
  signWith,
  giveSignature,
  jsEnabled,
  test,
  type Person,
  type Role,
} from "./pcr-fixtures";

/** The dashboard of `page`'s user lists this PCR's signature as theirs; follows the link. */
async function openFromDashboard(page: Page, serial: string, role: string) {
  await page.goto("/");
  const region = page.getByRole("region", { name: "Waiting on me" });
  const link = region.getByRole("link", { name: `PCR ${serial}: your signature as ${role}` });
  await expect(link).toBeVisible();
  await link.click();
  await page.waitForURL(/\/pcrs\/[0-9a-f-]{36}$/);
  await ready(page);
}

/** The block of one signature in the chain (or of one affected party). */
const block = (page: Page, title: string) =>
  page.locator(".signature-block").filter({ has: page.locator(".signature-head strong", { hasText: title }) });

test("The whole chain signed through the UI by seven users, with JavaScript on (drawn) and off (typed)", async ({
  cast,
  openAs,
  readPcr,
}) => {
  test.setTimeout(240_000);
  const { originator, party, outsider, holders } = cast;

  // The originator raises the PCR on /pcrs/new, with the party as affected party.
  const own = await openAs(originator, { viaForm: true });
  await own.goto("/pcrs/new");
  await ready(own);
  await own.getByLabel("Title").fill("Mooring line inspections");
  await own.getByLabel("Procedure change").check();
  await own.getByLabel("Safety-critical").check();
  await fillRichText(own, "Manual / procedure concerned", "Deck manual, mooring chapter");
  await fillRichText(own, "Suggestion details", "Inspect the mooring lines every watch");
  await fillRichText(own, "Reason for change", "Two parted lines last quarter");
  await own
    .getByRole("group", { name: "Affected parties (they sign too)" })
    .getByLabel(party.name, { exact: true })
    .check();
  await own.getByRole("button", { name: "Raise PCR" }).click();
  await own.waitForURL(/\/pcrs\/[0-9a-f-]{36}$/);
  await ready(own);
  const serial = await serialOf(own);
  const id = new URL(own.url()).pathname.split("/").pop()!;
  await expect(own.locator(".flash")).toContainText(`PCR ${serial} is raised`);
  await expect(own.getByText("Inspect the mooring lines every watch")).toBeVisible();
  await expect(own.locator(".owner-line")).toContainText("Next signature: Change Originator");

  // An outsider may not open it.
  const stranger = await openAs(outsider);
  const refused = await stranger.goto(`/pcrs/${id}`);
  expect(refused?.status()).toBe(403);
  await expect(stranger.getByRole("heading", { name: "Not allowed" })).toBeVisible();
  await expect(stranger.getByText("Inspect the mooring lines")).toHaveCount(0);

  // A wrong password signs nothing.
  const first = signSection(own, "Change Originator");
  await signWith(own, first, originator, "not-my-password");
  await expect(first.getByText("The password is not correct")).toBeVisible();
  expect((await readPcr(id)).signatures[0].Signature).toBe(false);
  await expect(block(own, "Change Originator")).toContainText("Not signed yet");

  // The chain, in order: each signer finds it on their dashboard, signs, and the next one is up.
  const signers: [Role, Person, Page][] = [["Change Originator", originator, own]];
  await ready(own);
  await signWith(own, signSection(own, "Change Originator"), originator, originator.password);
  await expect(own.locator(".flash")).toContainText("Signed. The next signer has been notified.");
  for (const role of POSITIONS) {
    const who = holders[role];
    const page = await openAs(who);
    signers.push([role, who, page]);
    await openFromDashboard(page, serial, role);
    await expect(page.locator(".owner-line")).toContainText(`Next signature: ${role}`);
    const section = signSection(page, role);
    await expect(section).toBeVisible();
    await signWith(page, section, who, who.password);
    await expect(page.locator(".flash")).toContainText("Signed. The next signer has been notified.");
    await expect(signSection(page, role)).toHaveCount(0);
    await expect(block(page, role)).toContainText(`Reviewed and approved as ${role}`);
  }
  const afterChain = await readPcr(id);
  expect(afterChain.status).toBe("pending");
  expect(afterChain.signatures.map((s: { Name: string }) => s.Name)).toEqual([...CHAIN]);

  // The affected party signs last; a wrong password first.
  const partyPage = await openAs(party);
  await openFromDashboard(partyPage, serial, "Affected party");
  await expect(partyPage.locator(".owner-line")).toContainText("Waiting for the affected parties");
  await signWith(partyPage, signSection(partyPage, "an affected party"), party, "wrong-password-again");
  await expect(partyPage.getByText("The password is not correct")).toBeVisible();
  expect((await readPcr(id)).affectedParties[0].Signature).toBe(false);
  await ready(partyPage);
  await signWith(partyPage, signSection(partyPage, "an affected party"), party, party.password);
  await expect(partyPage.locator(".flash")).toContainText("Every signature is in: the PCR is finished.");

  // Finished: every block shows who signed, as what, when, and the signature itself.
  const done = await readPcr(id);
  expect(done.status).toBe("finished");
  await own.goto(`/pcrs/${id}`);
  await expect(own.locator(".owner-line")).toContainText("Finished");
  await expect(own.locator(".badge", { hasText: "Finished" })).toBeVisible();
  for (const [role, who] of signers) {
    const b = block(own, role);
    await expect(b).toContainText(`Reviewed and approved as ${role}`);
    await expect(b.locator("dt", { hasText: "Printed name" }).locator("+ dd")).toHaveText(who.name);
    await expect(b.locator("dt", { hasText: "Position" }).locator("+ dd")).toHaveText(role);
    await expect(b.locator("dt", { hasText: "Signed" }).locator("+ dd")).toHaveText(
      /^\d{1,2} \w{3} \d{4},? \d{2}:\d{2} UTC$/,
    );
    if (jsEnabled()) {
      const image = b.getByRole("img", { name: `Signature of ${who.name}` });
      await expect(image).toBeVisible();
      expect(await image.getAttribute("src")).toMatch(/^data:image\/png;base64,/);
      expect(await image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
    } else {
      await expect(b.locator(".signature-typed")).toHaveText(who.name);
    }
  }
  const partyBlock = block(own, party.name);
  await expect(partyBlock).toContainText("Reviewed as an affected party");
  await expect(partyBlock.locator("dt", { hasText: "Printed name" }).locator("+ dd")).toHaveText(party.name);
  await expect(partyBlock.locator("dt", { hasText: "Signed" }).locator("+ dd")).toHaveText(/\d{2}:\d{2} UTC$/);
  if (jsEnabled()) await expect(partyBlock.getByRole("img", { name: `Signature of ${party.name}` })).toBeVisible();
  else await expect(partyBlock.locator(".signature-typed")).toHaveText(party.name);
  // Nobody is asked to sign any more.
  await expect(own.getByRole("region", { name: /^Your signature as/ })).toHaveCount(0);
  const president = signers[signers.length - 1]![2];
  await president.goto("/");
  await expect(
    president.getByRole("region", { name: "Waiting on me" }).getByRole("link", { name: new RegExp(`PCR ${serial}:`) }),
  ).toHaveCount(0);
  // The stored values: drawn PNGs with JavaScript, typed names without.
  for (const [i, [, who]] of signers.entries()) {
    const value = done.signatures[i].Signature as string;
    if (jsEnabled()) expect(value).toMatch(/^data:image\/png;base64,/);
    else expect(value).toBe(who.name);
    expect(done.signatures[i].signedBy._id).toBe(who._id);
  }
});

test(
  "a signer is only offered their own slot, in turn; the dashboard lists a PCR only for the next signer",
  { tag: "@once" },
  async ({ cast, openAs, createPcr }) => {
    test.setTimeout(90_000);
    const { originator, holders } = cast;
    const doc = await createPcr(originator);
    const vp = await openAs(holders["VP Fleet Management"]);
    await vp.goto("/");
    const waiting = vp.getByRole("region", { name: "Waiting on me" });
    await expect(waiting).toBeVisible();
    await expect(
      waiting.getByRole("link", { name: `PCR ${doc.serial_num}: your signature as VP Fleet Management` }),
    ).toHaveCount(0);
    await vp.goto(`/pcrs/${doc._id}`);
    await ready(vp);
    await expect(vp.locator(".owner-line")).toContainText("Next signature: Change Originator");
    await expect(vp.getByRole("region", { name: /^Your signature as/ })).toHaveCount(0);
    // The originator signs; now it is the VP's turn, and only theirs.
    const own = await openAs(originator);
    await own.goto(`/pcrs/${doc._id}`);
    await ready(own);
    const section = signSection(own, "Change Originator");
    await giveSignature(own, section, originator.name);
    await section.getByLabel("Your password (to confirm it is you)").fill(originator.password);
    await section.getByRole("button", { name: "Sign", exact: true }).click();
    await expect(own.locator(".flash")).toContainText("Signed.");
    await vp.goto("/");
    await expect(
      vp
        .getByRole("region", { name: "Waiting on me" })
        .getByRole("link", { name: `PCR ${doc.serial_num}: your signature as VP Fleet Management` }),
    ).toBeVisible();
    const president = await openAs(holders.President);
    await president.goto(`/pcrs/${doc._id}`);
    await expect(president.getByRole("region", { name: /^Your signature as/ })).toHaveCount(0);
  },
);

test("the originator edits a pending PCR on its edit page; an outsider gets the 403 page", async ({
  cast,
  openAs,
  createPcr,
  readPcr,
}) => {
  const { originator, outsider } = cast;
  const doc = await createPcr(originator);
  const own = await openAs(originator);
  await own.goto(`/pcrs/${doc._id}`);
  await own.getByRole("link", { name: "Edit" }).click();
  await own.waitForURL(`**/pcrs/${doc._id}/edit`);
  await ready(own);
  await expect(own.getByRole("heading", { level: 1 })).toContainText(doc.serial_num);
  // A PCR raised over /api without a title is given one on the page, which asks it.
  await own.getByLabel("Title").fill("Bridge watch handover");
  await fillRichText(own, "Reason for change", "Near miss in the Dover Strait");
  await own.getByRole("button", { name: "Save PCR" }).click();
  await expect(own.locator(".flash")).toContainText("The PCR is saved.");
  await expect(own).toHaveURL(new RegExp(`/pcrs/${doc._id}$`));
  expect((await readPcr(doc._id)).form["reason-for-change"]).toContain("Near miss in the Dover Strait");

  const other = await openAs(outsider);
  const response = await other.goto(`/pcrs/${doc._id}/edit`);
  expect(response?.status()).toBe(403);
});
