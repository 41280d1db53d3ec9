/**
 * Records people can trust, in the browser with JavaScript on and off: a signed PCR's edit page
 * refuses and offers Clone, the PCR shows its history and signature blocks, and the admin's audit
 * page checks every chain; a holder of two chain roles who signed one is offered no second sign
 * form (one person signs one slot). docs/decisions/021-records-people-can-trust.md and 026.
 */
import { ADMIN, signIn } from "./fixtures";
import { expect, ready, signSection, signWith, test } from "./pcr-fixtures";

test("a signed PCR cannot be edited: the edit page says so and clones it instead", async ({
  cast,
  openAs,
  createPcr,
  request,
}) => {
  const { originator } = cast;
  const doc = await createPcr(originator);
  const chain = doc.signatures.map((s: { Name: string }, i: number) => ({
    Name: s.Name,
    Signature: i === 0 ? originator.name.toUpperCase() : false,
    Comments: "",
  }));
  const signed = await request.post("/api/pcr/signatures", {
    headers: { Authorization: `Bearer ${originator.token}` },
    data: { pcrId: doc._id, signatures: chain, password: originator.password },
  });
  expect(signed.status(), await signed.text()).toBe(200);

  const page = await openAs(originator);
  await page.goto(`/pcrs/${doc._id}`);
  await ready(page);
  await expect(page.getByRole("link", { name: "Edit" })).toHaveCount(0);
  await expect(page.getByText("Signed content is frozen")).toBeVisible();
  const history = page.getByRole("region", { name: "History" });
  await expect(history.getByText("Signed as Change Originator")).toBeVisible();
  await expect(history.getByText("Created", { exact: true })).toBeVisible();
  await expect(page.locator(".signature-block").first()).toContainText("Reviewed and approved as Change Originator");
  await page.setViewportSize({ width: 375, height: 900 });
  await page.screenshot({ path: `/tmp/trust-pcr-375-${test.info().project.name}.png`, fullPage: true });

  await page.goto(`/pcrs/${doc._id}/edit`);
  await ready(page);
  await expect(page.getByRole("alert")).toContainText("Signed PCRs cannot be edited; clone it to propose a change");
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: `/tmp/trust-pcr-edit-1280-${test.info().project.name}.png`, fullPage: true });
  await page.getByRole("button", { name: "Clone into a new PCR" }).click();
  await page.waitForURL((url) => /\/pcrs\/[0-9a-f-]{36}$/.test(url.pathname) && !url.pathname.includes(doc._id));
  await ready(page);
  await expect(page.getByText(`Copy of PCR ${doc.serial_num}`)).toBeVisible();
  await expect(page.getByRole("link", { name: "Edit" })).toBeVisible();
});

test("the originator who holds the next position signs once and is offered no second sign form", async ({
  cast,
  openAs,
  createPcr,
}) => {
  const vp = cast.holders["VP Fleet Management"];
  const doc = await createPcr(vp);
  const page = await openAs(vp);
  await page.goto(`/pcrs/${doc._id}`);
  await ready(page);
  await signWith(page, signSection(page, "Change Originator"), vp, vp.password);
  await expect(page.getByText("Signed. The next signer has been notified.")).toBeVisible();
  await ready(page);
  await expect(signSection(page, "VP Fleet Management")).toHaveCount(0);
  await expect(
    page.getByText("one person signs one slot, so someone else must sign as VP Fleet Management"),
  ).toBeVisible();
  // Commenting as the position is still theirs.
  await expect(page.getByRole("heading", { name: "As VP Fleet Management" })).toBeVisible();
});

test("the admin's audit page checks every chain", { tag: "@once" }, async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: test.info().project.use.javaScriptEnabled });
  const page = await context.newPage();
  await signIn(page, ADMIN.email, ADMIN.password);
  await page.goto("/admin/audit");
  await expect(page.getByRole("heading", { name: "Audit trail", level: 1 })).toBeVisible();
  await expect(page.getByText(/Checked \d+ entries in \d+ chains/)).toBeVisible();
  await expect(page.getByText("Every chain holds")).toBeVisible();
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 800 });
    await page.screenshot({ path: `/tmp/trust-audit-${width}-${test.info().project.name}.png`, fullPage: true });
  }
  await context.close();
});
