/**
 * Attachments in PostgreSQL (app/models/records/attachments.server.ts): who may attach, bytes checked
 * against the type, never overwritten, removal hides and enters the record's audit trail, the cap counted while reading, and
 * the one-time move of DATA_DIR/uploads into the database.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { attachments, mocs } from "#db/schema";
import {
  listAttachments,
  MAX_UPLOAD_BYTES,
  openAttachment,
  removeAttachment,
  storeAttachment,
} from "~/models/records/attachments.server";
import { SIGNED_PCR_FILES_FROZEN } from "~/models/pcr/pcr-files.server";
import * as pcrAttachmentsPage from "~/routes/pcrs+/$id_.attachments";
import { historyOf, verifyAuditTrail } from "~/models/audit/audit.server";
import { importUploadFolder } from "~/models/records/uploads-import.server";
import { getDb } from "~/utils/db.server";
import { makeAdmin, makeUser } from "../helpers/factories";
import { makeCast, mocAt, tokenOf } from "../helpers/moc-flow";
import { createPcrOk, makeHolders, signOk } from "../helpers/pcr";
import { BASE, sessionCookieHeader } from "../helpers/request";

const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");

async function* pieces(...buffers: Buffer[]) {
  for (const b of buffers) yield new Uint8Array(b);
}
const file = (name: string, ...buffers: Buffer[]) => ({ name, data: pieces(...buffers) });
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

async function readAll(stream: ReadableStream<Uint8Array>) {
  const parts: Buffer[] = [];
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) parts.push(Buffer.from(part));
  return Buffer.concat(parts);
}

describe("MOC attachments", () => {
  it("stores files by the people involved, each a new row with its hash, and serves them back", async () => {
    const cast = await makeCast();
    const moc = await mocAt("e", cast);
    const big = Buffer.concat([PDF, Buffer.alloc(700 * 1024, "x")]); // three chunks
    const one = await storeAttachment(cast.implementer, { mocId: moc._id }, "file", file("Plan.pdf", big));
    const two = await storeAttachment(cast.approver, { mocId: moc._id }, "file", file("Plan.pdf", PDF));
    expect(one._id).not.toBe(two._id);
    expect(one).toMatchObject({ name: "Plan.pdf", size: big.length, sha256: sha(big), contentType: "application/pdf" });
    expect(one.uploadedBy?.name).toBe(cast.implementer.name);
    const opened = await openAttachment(cast.originator, { id: one._id });
    expect(Buffer.compare(await readAll(opened.body), big)).toBe(0);
    expect((await listAttachments({ mocId: moc._id })).map((a) => a._id)).toEqual([one._id, two._id]);

    const outsider = await makeUser({ department: "operations" });
    await expect(storeAttachment(outsider, { mocId: moc._id }, "file", file("x.pdf", PDF))).rejects.toMatchObject({
      status: 403,
    });
    await expect(openAttachment(outsider, { id: one._id })).rejects.toMatchObject({ status: 403 });
  });

  it("refuses a file whose bytes do not match its type, an unknown type, an empty file and one past the cap", async () => {
    const cast = await makeCast();
    const moc = await mocAt("b", cast);
    const as = (name: string, ...b: Buffer[]) =>
      storeAttachment(cast.originator, { mocId: moc._id }, "file", file(name, ...b));
    await expect(as("fake.pdf", Buffer.from("hello"))).rejects.toMatchObject({ status: 400 });
    await expect(as("photo.png", PDF)).rejects.toMatchObject({ status: 400 });
    await expect(as("script.exe", Buffer.from("MZ"))).rejects.toMatchObject({ status: 400 });
    await expect(as("empty.txt")).rejects.toMatchObject({ status: 400 });
    // A control character in the name is refused, not quietly dropped (NUL, a line break, C1).
    for (const name of ["a\u0000b.pdf", "line\nbreak.pdf", "c1\u0085.pdf"]) {
      await expect(as(name, PDF)).rejects.toMatchObject({
        status: 400,
        issues: [{ path: "file", message: expect.stringMatching(/control characters/) }],
      });
    }
    await expect(as("huge.pdf", PDF, Buffer.alloc(MAX_UPLOAD_BYTES, "x"))).rejects.toMatchObject({ status: 413 });
    expect(await as("ok.png", PNG)).toMatchObject({ contentType: "image/png" });
    // Nothing of the refused ones was kept, not even a chunk.
    const [counted] = await getDb().execute<{ n: number }>(
      sql`select count(*)::int as n from attachments where moc_id = ${moc._id}`,
    );
    expect(counted!.n).toBe(1);
  });

  it("removing hides the file and logs it; the row and its bytes stay", async () => {
    const cast = await makeCast();
    const moc = await mocAt("b", cast);
    const stored = await storeAttachment(cast.originator, { mocId: moc._id }, "risk_assessment", file("Risk.pdf", PDF));
    const [row] = await getDb().select({ risk: mocs.riskAssessment }).from(mocs).where(eq(mocs.id, moc._id));
    expect(row!.risk).toBe(`/attachments/${stored._id}`);
    await removeAttachment(cast.originator, stored._id);
    await expect(openAttachment(cast.originator, { id: stored._id })).rejects.toMatchObject({ status: 404 });
    expect(await listAttachments({ mocId: moc._id })).toEqual([]);
    const all = await listAttachments({ mocId: moc._id }, { includeRemoved: true });
    expect(all[0]).toMatchObject({ removed: true, sha256: sha(PDF) });
    expect(all[0]!.removedBy?.name).toBe(cast.originator.name);
    const [after] = await getDb().select({ risk: mocs.riskAssessment }).from(mocs).where(eq(mocs.id, moc._id));
    expect(after!.risk).toBeNull();
    // The MOC's chain (moc_logs), read through the audit trail's own reader, still verifies.
    const trail = await historyOf("moc", moc._id);
    expect(trail.slice(-2)).toMatchObject([
      // A note that moves nothing: from and to the MOC's status.
      {
        action: "Attached the risk assessment",
        actorId: cast.originator._id,
        from: "b",
        to: "b",
        comment: `Risk.pdf, ${PDF.length} bytes, SHA-256 ${sha(PDF)}`,
      },
      {
        action: "Removed the attachment Risk.pdf",
        actorId: cast.originator._id,
        from: "b",
        to: "b",
        comment: `SHA-256 ${sha(PDF)}; kept in the database, hidden from the record`,
      },
    ]);
    expect(await historyOf("pcr", moc._id)).toEqual([]);
    expect((await verifyAuditTrail()).broken.filter((b) => b.recordId === moc._id)).toEqual([]);
    await expect(removeAttachment(cast.originator, stored._id)).rejects.toMatchObject({ status: 409 });
  });

  it("refuses new files once the MOC is completed", async () => {
    const cast = await makeCast();
    const moc = await mocAt("completed", cast);
    await expect(
      storeAttachment(cast.originator, { mocId: moc._id }, "file", file("late.pdf", PDF)),
    ).rejects.toMatchObject({ status: 409 });
  });
});

describe("PCR attachments", () => {
  it("lets the originator, the chain's holders and affected parties attach while pending; not others", async () => {
    const originator = await makeUser();
    const party = await makeUser();
    const holders = await makeHolders("files");
    const pcr = await createPcrOk(originator, { parties: [party] });
    for (const who of [originator, party, holders["Director HSEQ"], await makeAdmin()]) {
      expect(await storeAttachment(who, { pcrId: pcr._id }, "file", file("note.txt", Buffer.from("ok")))).toBeTruthy();
    }
    const stranger = await makeUser();
    await expect(
      storeAttachment(stranger, { pcrId: pcr._id }, "file", file("note.txt", Buffer.from("no"))),
    ).rejects.toMatchObject({ status: 403 });
    expect(await listAttachments({ pcrId: pcr._id })).toHaveLength(4);
  });

  it("takes no risk assessment (a MOC's only), before anything is written", async () => {
    const originator = await makeUser();
    const pcr = await createPcrOk(originator);
    await expect(
      storeAttachment(originator, { pcrId: pcr._id }, "risk_assessment", file("Risk.pdf", PDF)),
    ).rejects.toMatchObject({ status: 400, message: "Only a MOC has a risk assessment" });
    expect(await listAttachments({ pcrId: pcr._id }, { includeRemoved: true })).toEqual([]);
    expect((await historyOf("pcr", pcr._id)).map((e) => e.action)).toEqual(["Created"]);
  });

  it("writes attaching and removing into the PCR's own audit trail, one chain with its other entries", async () => {
    const originator = await makeUser();
    const pcr = await createPcrOk(originator);
    const stored = await storeAttachment(originator, { pcrId: pcr._id }, "file", file("Drawing.pdf", PDF));
    await removeAttachment(originator, stored._id);
    expect(await listAttachments({ pcrId: pcr._id })).toEqual([]);
    const trail = await historyOf("pcr", pcr._id);
    expect(trail.map((e) => [e.seq, e.action, e.actorId])).toEqual([
      [1, "Created", originator._id],
      [2, "Attached Drawing.pdf", originator._id],
      [3, "Removed the attachment Drawing.pdf", originator._id],
    ]);
    expect(trail[1]).toMatchObject({
      from: null,
      to: null,
      comment: `Drawing.pdf, ${PDF.length} bytes, SHA-256 ${sha(PDF)}`,
    });
    expect(trail[2]!.comment).toBe(`SHA-256 ${sha(PDF)}; kept in the database, hidden from the record`);
    expect((await verifyAuditTrail()).broken.filter((b) => b.recordId === pcr._id)).toEqual([]);
    // A refused removal writes nothing.
    await expect(removeAttachment(originator, stored._id)).rejects.toMatchObject({ status: 409 });
    expect(await historyOf("pcr", pcr._id)).toHaveLength(3);
  });
});

describe("a signed PCR's files", () => {
  it("are frozen with its form from the first signature: attaching (model and the page's multipart form) and removing are 409", async () => {
    const originator = await makeUser();
    const pcr = await createPcrOk(originator);
    const kept = await storeAttachment(originator, { pcrId: pcr._id }, "file", file("Before.pdf", PDF));
    await signOk(originator, pcr._id, "Change Originator");

    await expect(storeAttachment(originator, { pcrId: pcr._id }, "file", file("After.pdf", PDF))).rejects.toMatchObject(
      { status: 409, message: SIGNED_PCR_FILES_FROZEN },
    );
    await expect(removeAttachment(originator, kept._id)).rejects.toMatchObject({
      status: 409,
      message: SIGNED_PCR_FILES_FROZEN,
    });

    const url = new URL(`/pcrs/${pcr._id}/attachments`, BASE);
    const cookie = await sessionCookieHeader(await tokenOf(originator));
    const page = await pcrAttachmentsPage.loader({
      request: new Request(url, { headers: { Cookie: cookie } }),
      params: { id: pcr._id },
      context: {},
    });
    expect(page).toMatchObject({ canWrite: false, frozen: SIGNED_PCR_FILES_FROZEN });
    const form = new FormData();
    form.append("file", new File([PDF], "After.pdf"));
    const posted = (await pcrAttachmentsPage.action({
      request: new Request(url, { method: "POST", headers: { Cookie: cookie }, body: form }),
      params: { id: pcr._id },
      context: {},
    })) as unknown as { data: { error: string }; init: ResponseInit };
    expect(posted.init.status).toBe(409);
    expect(posted.data.error).toBe(SIGNED_PCR_FILES_FROZEN);

    expect((await listAttachments({ pcrId: pcr._id })).map((a) => a.name)).toEqual(["Before.pdf"]);
    expect((await historyOf("pcr", pcr._id)).map((e) => e.action)).not.toContain("Attached After.pdf");
  });
});

describe("moving DATA_DIR/uploads into the database", () => {
  it("imports each file once, keeps its old path working, and leaves what it cannot place", async () => {
    const cast = await makeCast();
    const moc = await mocAt("b", cast);
    const dataDir = mkdtempSync(path.join(tmpdir(), "uploads-import-"));
    const folder = path.join(dataDir, "uploads", moc._id);
    mkdirSync(folder, { recursive: true });
    const stored = "0123456789abcdef-Risk-assessment.pdf";
    writeFileSync(path.join(folder, stored), PDF);
    writeFileSync(path.join(folder, "fedcba9876543210-fake.pdf"), "not a pdf");
    await getDb()
      .update(mocs)
      .set({ riskAssessment: `/uploads/${moc._id}/${stored}` })
      .where(eq(mocs.id, moc._id));

    const first = await importUploadFolder(dataDir);
    expect(first.imported).toBe(1);
    expect(first.skipped).toEqual([
      { file: `${moc._id}/fedcba9876543210-fake.pdf`, reason: "its bytes do not match its type" },
    ]);
    expect(existsSync(path.join(folder, stored))).toBe(false);
    const [row] = await getDb()
      .select()
      .from(attachments)
      .where(eq(attachments.legacyPath, `${moc._id}/${stored}`));
    expect(row).toMatchObject({
      kind: "risk_assessment",
      name: "Risk-assessment.pdf",
      sha256: sha(PDF),
      size: PDF.length,
    });
    const opened = await openAttachment(cast.implementer, { legacyPath: `${moc._id}/${stored}` });
    expect(Buffer.compare(await readAll(opened.body), PDF)).toBe(0);

    // Again (a restart, or a second instance): nothing new.
    writeFileSync(path.join(folder, stored), PDF);
    const second = await importUploadFolder(dataDir);
    expect(second.imported).toBe(0);
    expect(second.already).toBe(1);
    const rows = await getDb().select().from(attachments).where(eq(attachments.mocId, moc._id));
    expect(rows).toHaveLength(1);
  });
});
