/**
 * Resumable attachment uploads over the tus protocol (app/web/resumable-upload.server.ts,
 * docs/decisions/040-replays-apply-once.md): an upload cut at half resumes from the last byte the
 * server holds and becomes an attachment whose SHA-256 is the file's; the 10 MB cap is refused
 * before a byte is sent; a type that is not accepted, or bytes that are not what the name says,
 * are refused; an upload is its creator's; one untouched for a day is removed.
 */
import { createHash, randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as tusRoute from "~/routes/tus.attachments.$";
import { closeDb, getDb } from "~/utils/db.server";
import { attachments, resumableUploadParts, resumableUploads } from "#db/schema";
import { runHousekeeping } from "#jobs/housekeeping";
import { BASE } from "../helpers/request";
import { createMocOk, makeCast, tokenOf, type Doc } from "../helpers/moc-flow";
import { makeUser } from "../helpers/factories";
import type { Cast } from "../helpers/moc";

const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

/** A PDF by its first bytes, `size` long. */
function pdfOf(size: number): Buffer {
  const bytes = randomBytes(size);
  Buffer.from("%PDF-1.7\n").copy(bytes);
  return bytes;
}

async function tus(
  who: { _id: string },
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Uint8Array | ReadableStream<Uint8Array>,
): Promise<Response> {
  const request = new Request(new URL(path, BASE), {
    method,
    headers: { "Tus-Resumable": "1.0.0", Authorization: `Bearer ${await tokenOf(who)}`, ...headers },
    ...(body ? { body: body as BodyInit, duplex: "half" } : {}),
  } as RequestInit);
  const args = { request, params: { "*": path.split("/").slice(3).join("/") }, context: {} };
  return method === "HEAD" || method === "GET" ? tusRoute.loader(args) : tusRoute.action(args);
}

async function create(who: { _id: string }, moc: Doc, size: number, filename = "Drawing.pdf"): Promise<Response> {
  return tus(who, "POST", "/tus/attachments", {
    "Upload-Length": String(size),
    "Upload-Metadata": `filename ${b64(filename)},record ${b64(`moc:${moc._id}`)},kind ${b64("file")}`,
  });
}

/** A body that sends `bytes` in pieces, then the link drops. */
function cutAfter(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes.byteLength) {
        controller.error(new Error("the link dropped"));
        return;
      }
      const piece = bytes.subarray(sent, sent + 64 * 1024);
      sent += piece.byteLength;
      controller.enqueue(piece);
    },
  });
}

let cast: Cast;
let moc: Doc;
beforeAll(async () => {
  cast = await makeCast();
  moc = await createMocOk(cast);
});
afterAll(async () => {
  await closeDb();
});

describe("tus uploads of attachments", () => {
  it("an upload cut at half resumes from the last byte held, and the file's SHA-256 is right", async () => {
    const file = pdfOf(1536 * 1024 + 123);
    const created = await create(cast.originator, moc, file.byteLength);
    expect(created.status, await created.clone().text()).toBe(201);
    const location = created.headers.get("Location")!;
    expect(location).toMatch(/^\/tus\/attachments\/[\w-]+$/);

    // The first half goes, then the link drops.
    const half = file.subarray(0, file.byteLength / 2);
    const cut = await tus(
      cast.originator,
      "PATCH",
      location,
      { "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
      cutAfter(half),
    ).catch((error: unknown) => error);
    expect(cut instanceof Response ? cut.status : 0).not.toBe(204);

    const head = await tus(cast.originator, "HEAD", location, {});
    expect(head.status).toBe(200);
    const held = Number(head.headers.get("Upload-Offset"));
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(half.byteLength);
    expect(head.headers.get("Upload-Length")).toBe(String(file.byteLength));

    // Resumed from there: the rest, in one piece.
    const rest = await tus(
      cast.originator,
      "PATCH",
      location,
      { "Upload-Offset": String(held), "Content-Type": "application/offset+octet-stream" },
      file.subarray(held),
    );
    expect(rest.status, await rest.clone().text()).toBe(204);
    expect(rest.headers.get("Upload-Offset")).toBe(String(file.byteLength));
    expect(rest.headers.get("Attachment-Sha256")).toBe(sha(file));
    const id = rest.headers.get("Attachment-Url")!.split("/").pop()!;
    const [row] = await getDb().select().from(attachments).where(eq(attachments.id, id));
    expect(row).toMatchObject({ mocId: moc._id, name: "Drawing.pdf", size: file.byteLength, sha256: sha(file) });
    const stored = await getDb().execute<{ hash: string }>(
      sql`select encode(sha256(string_agg(data, ''::bytea order by seq)), 'hex') as hash from attachment_chunks where attachment_id = ${id}`,
    );
    expect(stored[0]!.hash).toBe(sha(file));
    // The upload is gone once it is an attachment.
    const uploadId = location.split("/").pop()!;
    expect(await getDb().select().from(resumableUploads).where(eq(resumableUploads.id, uploadId))).toEqual([]);
    expect(
      await getDb().select().from(resumableUploadParts).where(eq(resumableUploadParts.uploadId, uploadId)),
    ).toEqual([]);
  });

  it("a piece sent from the wrong offset is 409 and changes nothing", async () => {
    const file = pdfOf(4096);
    const location = (await create(cast.originator, moc, file.byteLength)).headers.get("Location")!;
    const wrong = await tus(
      cast.originator,
      "PATCH",
      location,
      { "Upload-Offset": "100", "Content-Type": "application/offset+octet-stream" },
      file.subarray(100),
    );
    expect(wrong.status).toBe(409);
    expect((await tus(cast.originator, "HEAD", location, {})).headers.get("Upload-Offset")).toBe("0");
  });

  it("over 10 MB is refused before a byte is sent; a type not accepted is 400", async () => {
    const big = await create(cast.originator, moc, 10 * 1024 * 1024 + 1);
    expect(big.status).toBe(413);
    const exe = await create(cast.originator, moc, 100, "tool.exe");
    expect(exe.status).toBe(400);
    expect(await exe.text()).toMatch(/not accepted/);
    const noRecord = await tus(cast.originator, "POST", "/tus/attachments", {
      "Upload-Length": "100",
      "Upload-Metadata": `filename ${b64("a.pdf")}`,
    });
    expect(noRecord.status).toBe(400);
  });

  it("bytes that are not what the name says are refused at the end, and nothing is kept", async () => {
    const fake = Buffer.from("this is not a PDF at all, just text");
    const location = (await create(cast.originator, moc, fake.byteLength, "Fake.pdf")).headers.get("Location")!;
    const sent = await tus(
      cast.originator,
      "PATCH",
      location,
      { "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
      fake,
    );
    expect(sent.status).toBe(400);
    expect(await sent.text()).toBe("This is not a valid .pdf file");
    const id = location.split("/").pop()!;
    expect(await getDb().select().from(resumableUploads).where(eq(resumableUploads.id, id))).toEqual([]);
    expect(await getDb().select().from(attachments).where(eq(attachments.name, "Fake.pdf"))).toEqual([]);
  });

  it("someone who may not attach to the record is refused before a byte is sent", async () => {
    const outsider = await makeUser({ name: "Outsider" });
    const refused = await create(outsider, moc, 1000);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toMatch(/people involved/);
    const missing = await tus(cast.originator, "POST", "/tus/attachments", {
      "Upload-Length": "1000",
      "Upload-Metadata": `filename ${b64("a.pdf")},record ${b64("moc:00000000-0000-4000-8000-000000000000")}`,
    });
    expect(missing.status).toBe(404);
    expect(await getDb().select().from(resumableUploads).where(eq(resumableUploads.userId, outsider._id))).toEqual([]);
  });

  it("an upload is its creator's: another person, or nobody signed in, cannot see or add to it", async () => {
    const location = (await create(cast.originator, moc, 1000)).headers.get("Location")!;
    expect((await tus(cast.implementer, "HEAD", location, {})).status).toBe(404);
    const theirs = await tus(
      cast.implementer,
      "PATCH",
      location,
      { "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
      pdfOf(1000),
    );
    expect(theirs.status).toBe(404);
    const anonymous = await tusRoute.loader({
      request: new Request(new URL(location, BASE), { method: "HEAD", headers: { "Tus-Resumable": "1.0.0" } }),
      params: {},
      context: {},
    });
    expect(anonymous.status).toBe(401);
  });

  it("an upload untouched for a day is removed by the housekeeping, its parts with it", async () => {
    const file = pdfOf(300 * 1024);
    const location = (await create(cast.originator, moc, file.byteLength * 2)).headers.get("Location")!;
    const id = location.split("/").pop()!;
    const first = await tus(
      cast.originator,
      "PATCH",
      location,
      { "Upload-Offset": "0", "Content-Type": "application/offset+octet-stream" },
      file,
    );
    expect(first.status).toBe(204);
    const recent = await create(cast.originator, moc, 1000);
    const recentId = recent.headers.get("Location")!.split("/").pop()!;
    await getDb()
      .update(resumableUploads)
      .set({ updatedAt: new Date(Date.now() - 25 * 3600_000) })
      .where(eq(resumableUploads.id, id));
    const outcome = await runHousekeeping();
    expect(outcome.uploads).toBeGreaterThanOrEqual(1);
    expect(await getDb().select().from(resumableUploads).where(eq(resumableUploads.id, id))).toEqual([]);
    expect(await getDb().select().from(resumableUploadParts).where(eq(resumableUploadParts.uploadId, id))).toEqual([]);
    expect(await getDb().select().from(resumableUploads).where(eq(resumableUploads.id, recentId))).toHaveLength(1);
    expect((await tus(cast.originator, "HEAD", location, {})).status).toBe(404);
  });
});
