/**
 * Files written under DATA_DIR/uploads/<moc id>/ before attachments lived in the database move
 * in at start (docs/decisions/022-records-out.md): each becomes an attachment of its MOC with its
 * old path kept, so `/uploads/...` links still work; once its row is committed the file is
 * deleted. Idempotent and safe with several instances: a path already in the database is not
 * imported again (unique `legacy_path`), and a file whose MOC is unknown, whose type is not
 * accepted or whose bytes do not match its type stays on disk and is logged.
 */
import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { eq } from "drizzle-orm";
import { attachmentChunks, attachments, mocs } from "#db/schema";
import { getDb } from "~/utils/db.server";
import { CHUNK_BYTES, extensionOf, sniffMatches, UPLOAD_TYPES } from "./attachments.server";
import { createHash } from "node:crypto";

export type ImportReport = { imported: number; already: number; skipped: { file: string; reason: string }[] };

const MOC_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const STORED_NAME = /^[0-9a-f]{16}-([A-Za-z0-9_-]*)\.([a-z0-9]+)$/;

export async function importUploadFolder(dataDir: string): Promise<ImportReport> {
  const root = path.resolve(dataDir, "uploads");
  const report: ImportReport = { imported: 0, already: 0, skipped: [] };
  const folders = await fs.readdir(root, { withFileTypes: true }).catch(() => []);
  for (const folder of folders) {
    if (!folder.isDirectory() || !MOC_ID.test(folder.name)) continue;
    const mocId = folder.name;
    for (const entry of await fs.readdir(path.join(root, mocId), { withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = path.join(root, mocId, entry.name);
      const legacyPath = `${mocId}/${entry.name}`;
      const outcome = await importOne(file, mocId, entry.name, legacyPath);
      if (outcome === "imported" || outcome === "already") {
        report[outcome] += 1;
        await fs.rm(file, { force: true });
      } else report.skipped.push({ file: legacyPath, reason: outcome });
    }
    await fs.rmdir(path.join(root, mocId)).catch(() => {});
  }
  return report;
}

async function importOne(file: string, mocId: string, name: string, legacyPath: string): Promise<string> {
  const match = name.match(STORED_NAME);
  const extension = match?.[2] ?? extensionOf(name);
  const contentType = UPLOAD_TYPES[extension];
  if (!contentType) return "not an accepted type";
  const stat = await fs.stat(file);
  return getDb()
    .transaction(async (tx) => {
      const [moc] = await tx
        .select({ id: mocs.id, riskAssessment: mocs.riskAssessment })
        .from(mocs)
        .where(eq(mocs.id, mocId));
      if (!moc) return "no MOC with this id";
      const [existing] = await tx
        .select({ id: attachments.id })
        .from(attachments)
        .where(eq(attachments.legacyPath, legacyPath));
      if (existing) return "already";
      const [row] = await tx
        .insert(attachments)
        .values({
          mocId,
          kind: moc.riskAssessment === `/uploads/${legacyPath}` ? "risk_assessment" : "file",
          name: `${match?.[1] || "attachment"}.${extension}`,
          contentType,
          size: 0,
          sha256: "",
          // The old store kept no uploader; the file's own time is kept.
          uploadedBy: null,
          uploadedAt: stat.mtime,
          legacyPath,
        })
        .onConflictDoNothing({ target: attachments.legacyPath })
        .returning({ id: attachments.id });
      if (!row) return "already"; // another instance imported it a moment ago
      const hash = createHash("sha256");
      let seq = 0;
      let size = 0;
      for await (const chunk of createReadStream(file, { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>) {
        if (seq === 0 && !sniffMatches(extension, chunk.subarray(0, 512)))
          throw new SkipFile("its bytes do not match its type");
        hash.update(chunk);
        size += chunk.length;
        await tx.insert(attachmentChunks).values({ attachmentId: row.id, seq: seq++, data: chunk });
      }
      await tx
        .update(attachments)
        .set({ size, sha256: hash.digest("hex") })
        .where(eq(attachments.id, row.id));
      return "imported";
    })
    .catch((error: unknown) => {
      if (error instanceof SkipFile) return error.message;
      throw error;
    });
}

class SkipFile extends Error {}
