/**
 * Attachments that resume (docs/decisions/040-replays-apply-once.md): with JavaScript the file goes
 * by the tus protocol in 1 MiB pieces; the link drops on the second piece, the browser asks the
 * server where it stands and sends the rest from the last byte held, and the attachment's SHA-256
 * shown on the page is the file's. (Without JavaScript the multipart form is used:
 * tests/e2e/records-out.spec.ts.)
 */
import { createHash, randomBytes } from "node:crypto";
import { expect, test } from "./moc-fixtures";

test("@js an upload cut at half resumes from the last byte, and the file's SHA-256 is right", async ({
  cast,
  mocApi,
  openAs,
}) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.implementer);
  const file = randomBytes(2 * 1024 * 1024);
  Buffer.from("%PDF-1.7\n").copy(file);
  const sha256 = createHash("sha256").update(file).digest("hex");

  const patches: string[] = [];
  const heads: string[] = [];
  let cut = false;
  await page.route("**/tus/attachments/**", async (route) => {
    const request = route.request();
    if (request.method() === "HEAD") heads.push(request.url());
    if (request.method() !== "PATCH") return route.fallback();
    patches.push(request.headers()["upload-offset"] ?? "");
    // The second piece (from the middle of the file) never arrives: the link drops.
    if (!cut && request.headers()["upload-offset"] !== "0") {
      cut = true;
      return route.abort("connectionreset");
    }
    return route.fallback();
  });

  await page.goto(`/mocs/${moc._id}/attachments`);
  await page
    .getByLabel("Attach a file")
    .setInputFiles({ name: "Survey.pdf", mimeType: "application/pdf", buffer: file });
  await page.getByRole("button", { name: "Upload" }).click();
  await expect(page.getByText("Survey.pdf is attached.")).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole("link", { name: "Survey.pdf" })).toBeVisible();
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: "Survey.pdf" }) });
  await expect(row.locator("code")).toHaveText(sha256);

  const half = String(1024 * 1024);
  // The first piece, the cut one, and the same offset again after asking where it stood.
  expect(patches).toEqual(["0", half, half]);
  expect(heads.length).toBeGreaterThanOrEqual(1);
  await page.screenshot({ path: "/tmp/i30-upload-1280.png", fullPage: true });
  await page.setViewportSize({ width: 375, height: 800 });
  await page.screenshot({ path: "/tmp/i30-upload-375.png", fullPage: true });
});
