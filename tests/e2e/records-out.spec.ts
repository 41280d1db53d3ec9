/**
 * Records taken out, in the browser and over real sockets: the print views (with and without
 * JavaScript, as the project runs), and attachments stored in the database: served by a second
 * instance, capped at 10 MiB whatever the framing, checked against their bytes.
 */
import { Readable } from "node:stream";
import { Client } from "undici";
import { expect, jsEnabled, test } from "./moc-fixtures";
import { startSecondInstance } from "./second-instance";

const MiB = 1024 * 1024;
const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");

async function* multipart(name: string, fileChunks: AsyncIterable<Buffer> | Buffer[]) {
  yield Buffer.from(
    `--BOUNDARY\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  for await (const chunk of fileChunks) yield chunk;
  yield Buffer.from("\r\n--BOUNDARY--\r\n");
}
async function* filler(count: number) {
  yield Buffer.from("%PDF-1.4\n");
  for (let i = 0; i < count; i++) yield Buffer.alloc(64 * 1024, "p");
}

test(
  "the MOC print view shows the whole record, reached by a link; outsiders get 403",
  { tag: "@once" },
  async ({ cast, mocApi, openAs, outsider }) => {
    const moc = await mocApi.createAt(cast, "approver");
    const page = await openAs(cast.originator);
    await page.goto(`/mocs/${moc._id}`);
    await page.getByRole("link", { name: "Print view" }).click();
    await expect(page).toHaveURL(new RegExp(`/mocs/${moc._id}/print$`));
    await expect(page.getByRole("heading", { level: 1, name: `MOC ${moc.serial_num}` })).toBeVisible();
    await expect(page.getByText(/Status: Approval/)).toBeVisible();
    const signatures = page.getByRole("region", { name: "Signatures" });
    // The stored signature manifestations: the implementer's assessment and the HSEQ review so far.
    await expect(signatures.getByRole("listitem")).toHaveCount(2);
    await expect(signatures.getByText(cast.implementer.name)).toBeVisible();
    await expect(signatures.getByText(cast.hseq.name)).toBeVisible();
    await expect(signatures.getByText("Reviewed and found adequate")).toBeVisible();
    await expect(signatures.getByText(/reconstructed/)).toHaveCount(0);
    const trail = page.getByRole("region", { name: "Audit trail" });
    await expect(trail.getByRole("row")).toHaveCount(1 + 3);
    await expect(page.getByRole("link", { name: "Download PDF" })).toHaveAttribute("href", `/mocs/${moc._id}/pdf`);
    const mode = jsEnabled() ? "js" : "nojs";
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: `/tmp/out-moc-print-1280-${mode}.png`, fullPage: true });
    await page.setViewportSize({ width: 375, height: 800 });
    await page.screenshot({ path: `/tmp/out-moc-print-375-${mode}.png`, fullPage: true });
    await page.emulateMedia({ media: "print" });
    await page.screenshot({ path: `/tmp/out-moc-print-paper-${mode}.png`, fullPage: true });

    const other = await openAs(outsider);
    const refused = await other.goto(`/mocs/${moc._id}/print`);
    expect(refused?.status()).toBe(403);
    expect((await other.request.get(`/mocs/${moc._id}/pdf`)).status()).toBe(403);
  },
);

test("attachments: uploaded on the page, listed with their hash, refused when the bytes lie, removed with a trace", async ({
  cast,
  mocApi,
  openAs,
}) => {
  const moc = await mocApi.create(cast);
  const page = await openAs(cast.implementer);
  await page.goto(`/mocs/${moc._id}/attachments`);
  await page
    .getByLabel("Attach a file")
    .setInputFiles({ name: "Drawing.pdf", mimeType: "application/pdf", buffer: PDF });
  await page.getByRole("button", { name: "Upload" }).click();
  await expect(page.getByText("Drawing.pdf is attached.")).toBeVisible();
  await expect(page.getByRole("link", { name: "Drawing.pdf" })).toBeVisible();
  await page
    .getByLabel("Attach a file")
    .setInputFiles({ name: "Fake.pdf", mimeType: "application/pdf", buffer: Buffer.from("not a pdf at all") });
  await page.getByRole("button", { name: "Upload" }).click();
  await expect(page.getByText("This is not a valid .pdf file")).toBeVisible();
  const mode = jsEnabled() ? "js" : "nojs";
  await page.screenshot({ path: `/tmp/out-attachments-1280-${mode}.png`, fullPage: true });

  await page.getByRole("button", { name: "Remove Drawing.pdf" }).click();
  await expect(page.getByText("The file is removed from the record")).toBeVisible();
  await expect(page.getByRole("link", { name: "Drawing.pdf" })).toHaveCount(0);
  const stored = await mocApi.get(moc._id);
  const actions = (stored.logs as { action: string }[]).map((l) => l.action);
  expect(actions).toContain("Attached Drawing.pdf");
  expect(actions).toContain("Removed the attachment Drawing.pdf");
});

test(
  "attachments: uploaded through one instance, downloaded through another",
  { tag: "@http" },
  async ({ cast, mocApi, baseURL }) => {
    test.setTimeout(150_000);
    const moc = await mocApi.create(cast);
    const cookie = `session=${cast.originator.cookie}`;
    const first = new Client(baseURL!);
    const upload = await first.request({
      path: `/mocs/${moc._id}/attachments`,
      method: "POST",
      headers: { "content-type": "multipart/form-data; boundary=BOUNDARY", cookie },
      body: Readable.from(multipart("Plan.pdf", [PDF])),
    });
    await upload.body.text();
    expect(upload.statusCode).toBe(302);
    await first.close();
    const second = await startSecondInstance();
    try {
      const listed = await fetch(`${second.url}/mocs/${moc._id}/attachments`, { headers: { cookie } });
      const html = await listed.text();
      const href = html.match(/href="(\/attachments\/[0-9a-f-]{36})"/)?.[1];
      expect(href).toBeTruthy();
      const download = await fetch(`${second.url}${href}`, { headers: { cookie } });
      expect(download.status).toBe(200);
      expect(download.headers.get("content-type")).toBe("application/pdf");
      expect(Buffer.compare(Buffer.from(await download.arrayBuffer()), PDF)).toBe(0);
    } finally {
      await second.stop();
    }
  },
);

test(
  "attachments: 10 MiB cap with a declared length and with a chunked body",
  { tag: "@http" },
  async ({ cast, mocApi, baseURL }) => {
    const moc = await mocApi.create(cast);
    const headers = {
      "content-type": "multipart/form-data; boundary=BOUNDARY",
      cookie: `session=${cast.originator.cookie}`,
    };
    const path = `/mocs/${moc._id}/attachments`;
    const client = new Client(baseURL!, { pipelining: 1, connections: 1 } as ConstructorParameters<typeof Client>[1]);
    try {
      const chunked = await client.request({
        path,
        method: "POST",
        headers,
        body: Readable.from(multipart("Big.pdf", filler(192))),
      });
      expect(chunked.statusCode).toBe(413);
      expect(await chunked.body.text()).toContain("larger than 10 MiB");
    } finally {
      await client.close();
    }
    const parts: Buffer[] = [];
    for await (const part of multipart("Big.pdf", filler(176))) parts.push(part);
    const declared = Buffer.concat(parts);
    expect(declared.length).toBeGreaterThan(11 * MiB);
    const again = new Client(baseURL!);
    try {
      const answer = await again.request({ path, method: "POST", headers, body: declared });
      expect(answer.statusCode).toBe(413);
      await answer.body.text();
    } finally {
      await again.close();
    }
    const stored = await mocApi.get(moc._id);
    expect((stored.logs as { action: string }[]).some((l) => l.action.startsWith("Attached"))).toBe(false);
  },
);
