/**
 * A MOC record shows each decision as a signature block (who, as what, meaning, UTC time) and its
 * history, with JavaScript on and off. docs/decisions/021-records-people-can-trust.md.
 */
import { expect, ready, test } from "./moc-fixtures";

test(
  "the MOC record shows the decisions' signature blocks and its history",
  { tag: "@once" },
  async ({ cast, mocApi, openAs }) => {
    const moc = await mocApi.createAt(cast, "implementation");
    const page = await openAs(cast.originator);
    await page.goto(`/mocs/${moc._id}`);
    await ready(page);
    const signatures = page.getByRole("region", { name: "Signatures" });
    await expect(signatures.locator(".manifestation-block")).toHaveCount(3);
    await expect(signatures).toContainText(cast.approver.name);
    await expect(signatures).toContainText("Meaning: approved");
    await expect(signatures).toContainText("Meaning: reviewed and found adequate");
    await expect(page.getByRole("region", { name: "History" })).toContainText("Approved");
    // The approver picker does not offer the originator or the implementer (four eyes).
    const approverPicker = page.getByLabel("Approver", { exact: true });
    await expect(approverPicker.locator("option", { hasText: cast.originator.name })).toHaveCount(0);
    await expect(approverPicker.locator("option", { hasText: cast.implementer.name })).toHaveCount(0);
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await page
        .getByRole("region", { name: "Signatures" })
        .screenshot({ path: `/tmp/trust-moc-signatures-${width}-${test.info().project.name}.png` });
    }
  },
);
