/**
 * Files kept with a MOC or a PCR, in PostgreSQL (docs/decisions/022-records-out.md): every
 * instance serves every file and one database backup holds the whole record.
 *
 * - Stored as bytea chunks of CHUNK_BYTES, written as they are read (from the upload's spool file,
 *   app/web/attachment-upload.server.ts, once the whole body is in) and read back one at a time, so
 *   neither an upload nor a download sits whole in memory. The size cap is counted while reading.
 * - The content type is decided by the bytes (magic numbers), and must agree with the file's
 *   extension; a file whose bytes say otherwise is refused.
 * - Never overwritten: a new upload is a new row. Removing one marks it removed (who, when), hides
 *   it from lists and downloads, and adds an entry to its record's audit trail; nothing is erased.
 * - The upload is one transaction: the record row locked, the rule checked, the chunks, the row
 *   and the audit entry written; a refused or cut upload leaves nothing behind.
 * - The rules are the owning kind's (its registry entry's `attachments`: who may attach, remove and
 *   read, what the record keeps of a file; app/models/moc/moc-files.server.ts,
 *   app/models/pcr/pcr-files.server.ts), the entry in the record's trail its kind's note.
 */
import { createHash } from "node:crypto";
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { iso } from "#db/moc-document";
import { attachmentChunks, attachments, users, type AttachmentKind } from "#db/schema";
import { getDb, type Executor } from "~/utils/db.server";
import { Conflict, Forbidden, Invalid, NotFound, TooLarge } from "~/utils/errors";
import type { Actor } from "../authz/authz.server";
import { kindsWith, noteInTrail } from "../record-kind/record-kind";
import { bidiControlMessage, hasBidiControl, hasControlCharacter } from "../shared/text-rules";

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
export const CHUNK_BYTES = 256 * 1024;

/** Extension -> content type: the only files accepted and served. */
export const UPLOAD_TYPES: Record<string, string> = {
  pdf: "application/pdf",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xls: "application/vnd.ms-excel",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  txt: "text/plain",
};

const startsWith = (head: Uint8Array, bytes: number[]) => bytes.every((b, i) => head[i] === b);

/** What the first bytes say the file is (by its magic number), in the extension's family. */
export function sniffMatches(extension: string, head: Uint8Array): boolean {
  switch (extension) {
    case "pdf":
      return startsWith(head, [0x25, 0x50, 0x44, 0x46, 0x2d]); // %PDF-
    case "png":
      return startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    case "jpg":
    case "jpeg":
      return startsWith(head, [0xff, 0xd8, 0xff]);
    case "docx":
    case "xlsx":
      return startsWith(head, [0x50, 0x4b, 0x03, 0x04]); // a ZIP container
    case "doc":
    case "xls":
      return startsWith(head, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]); // OLE2
    case "txt":
      // Text: no NUL byte, and valid UTF-8 (a multi-byte character cut at the end is allowed).
      if (head.includes(0)) return false;
      try {
        new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
        return true;
      } catch {
        return false;
      }
    default:
      return false;
  }
}

export const extensionOf = (name: string) => name.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? "";

/** The file name as kept and offered back: no path, no control characters, at most 120 characters. */
export function cleanFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f"]/g, "").trim();
  if (clean.length <= 120) return clean || "attachment";
  const ext = extensionOf(clean);
  return `${clean.slice(0, 119 - ext.length)}.${ext}`;
}

export type AttachmentTarget = { mocId: string } | { pcrId: string };

export type AttachmentView = {
  _id: string;
  kind: AttachmentKind;
  name: string;
  contentType: string;
  size: number;
  sha256: string;
  uploadedBy: { _id: string; name: string } | null;
  uploadedAt: string;
  removed: boolean;
  removedBy: { _id: string; name: string } | null;
  removedAt: string | null;
  url: string;
};

export const attachmentUrl = (id: string) => `/attachments/${id}`;

// ---------------------------------------------------------------------------------------------
// Who may do what: the owning kind's rules

/** The owner column of a target (the `attachments` table's) and the record's id. */
const ownerColumnOf = (target: AttachmentTarget) =>
  "mocId" in target ? { column: "moc_id", id: target.mocId } : { column: "pcr_id", id: target.pcrId };

/** A stored file's target, from its row's owner columns. */
const targetOfRow = (row: { mocId: string | null; pcrId: string | null }): AttachmentTarget =>
  row.mocId ? { mocId: row.mocId } : { pcrId: row.pcrId! };

/**
 * The kind whose records own the target's files (its registry entry's `attachments`: the column,
 * the kinds of file, who may change and read them, what the record keeps), and the record's id.
 */
function ownerOf(target: AttachmentTarget) {
  const { column, id } = ownerColumnOf(target);
  const kind = kindsWith("attachments").find((k) => k.attachments.column === column);
  if (!kind) throw new Error(`no record kind owns files through attachments.${column}`);
  return { kind: kind.name, files: kind.attachments, id };
}

/** How a refusal names each kind of file. */
const FILE_KIND_NAMES: Record<AttachmentKind, string> = { risk_assessment: "a risk assessment", file: "files" };

/** A file of a kind the record's kind does not take: 400, naming the kinds that take it. */
function fileKindRefused(kind: AttachmentKind): Invalid {
  const takers = kindsWith("attachments")
    .filter((k) => k.attachments.fileKinds.includes(kind))
    .map((k) => `a ${k.label}`);
  return new Invalid(`Only ${takers.join(" or ")} has ${FILE_KIND_NAMES[kind]}`);
}

/**
 * Refuses, as storing would, an attachment the actor may not add now (the same checks, no write):
 * a resumable upload asks before its first byte (app/web/resumable-upload.server.ts) and is
 * checked again when it is stored.
 */
export async function assertMayAttach(actor: Actor, target: AttachmentTarget, kind: AttachmentKind): Promise<void> {
  const owner = ownerOf(target);
  await getDb().transaction(async (tx) => {
    await owner.files.mayChange(tx, actor, owner.id, kind);
  });
}

/** Whether the actor may see the record a file belongs to (the record's own rule). */
const mayViewOwner = (actor: Actor, row: { mocId: string | null; pcrId: string | null }, db: Executor) => {
  const owner = ownerOf(targetOfRow(row));
  return owner.files.mayRead(db, actor, owner.id);
};

// ---------------------------------------------------------------------------------------------
// Writing

export type IncomingFile = { name: string; data: AsyncIterable<Uint8Array> };

/**
 * Writes one file's bytes as chunks of the attachment `id` while it is read: the cap is checked
 * on every piece (413 past it), the first bytes against the extension (415), and the hash and size
 * are counted on the way.
 */
async function writeChunks(tx: Executor, id: string, extension: string, data: AsyncIterable<Uint8Array>) {
  const hash = createHash("sha256");
  let size = 0;
  let seq = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let checked = false;
  const flush = async () => {
    if (pendingBytes === 0) return;
    const chunk = Buffer.concat(pending, pendingBytes);
    if (!checked) {
      if (!sniffMatches(extension, chunk.subarray(0, 512)))
        throw new Invalid("The file's content does not match its type", [
          { path: "file", message: `This is not a valid .${extension} file` },
        ]);
      checked = true;
    }
    await tx.insert(attachmentChunks).values({ attachmentId: id, seq: seq++, data: chunk });
    pending = [];
    pendingBytes = 0;
  };
  for await (const piece of data) {
    size += piece.byteLength;
    if (size > MAX_UPLOAD_BYTES) throw new TooLarge("Files can be at most 10 MB");
    hash.update(piece);
    let rest = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    while (rest.length > 0) {
      const take = Math.min(rest.length, CHUNK_BYTES - pendingBytes);
      pending.push(Buffer.from(rest.subarray(0, take)));
      pendingBytes += take;
      rest = rest.subarray(take);
      if (pendingBytes === CHUNK_BYTES) await flush();
    }
  }
  await flush();
  if (size === 0)
    throw new Invalid("The file is empty", [{ path: "file", message: "Choose a file that is not empty" }]);
  return { size, sha256: hash.digest("hex") };
}

/**
 * The rules of an attachment's name, for every way in (a multipart upload, a resumable upload when
 * it is created, an item's evidence): checked before cleaning, so a name that would read
 * differently than it is (`invoice‮fdp.exe`) or holds a control character (NUL, a line break) is
 * refused, not quietly changed; then no path, and an accepted type by its extension.
 */
export function checkAttachmentName(name: string): { name: string; extension: string; contentType: string } {
  if (hasBidiControl(name)) {
    throw new Invalid(bidiControlMessage("A file name"), [
      { path: "file", message: bidiControlMessage("The file name") },
    ]);
  }
  if (hasControlCharacter(name)) {
    const message = "The file name must not contain control characters (such as NUL, tab or line breaks)";
    throw new Invalid(message, [{ path: "file", message }]);
  }
  const clean = cleanFileName(name);
  const extension = extensionOf(clean);
  const contentType = UPLOAD_TYPES[extension];
  if (!contentType) {
    throw new Invalid("This type of file is not accepted", [
      { path: "file", message: `Upload a ${Object.keys(UPLOAD_TYPES).join(", ")} file` },
    ]);
  }
  return { name: clean, extension, contentType };
}

/**
 * Stores a file with a MOC or a PCR, streaming its bytes into the database. A risk assessment
 * also becomes the MOC's `risk_assessment` (its URL), as `/api/risk_assessment` sets it.
 */
export async function storeAttachment(
  actor: Actor,
  target: AttachmentTarget,
  kind: AttachmentKind,
  file: IncomingFile,
): Promise<AttachmentView> {
  const { name, extension, contentType } = checkAttachmentName(file.name);
  const owner = ownerOf(target);
  if (!owner.files.fileKinds.includes(kind)) throw fileKindRefused(kind);
  const id = await getDb().transaction(async (tx) => {
    const record = await owner.files.mayChange(tx, actor, owner.id, kind);
    const [row] = await tx
      .insert(attachments)
      .values({
        mocId: "mocId" in target ? target.mocId : null,
        pcrId: "pcrId" in target ? target.pcrId : null,
        kind,
        name,
        contentType,
        size: 0,
        sha256: "",
        uploadedBy: actor._id,
      })
      .returning({ id: attachments.id });
    const { size, sha256 } = await writeChunks(tx, row!.id, extension, file.data);
    // The same transaction that created the row completes it: no other reader ever sees it unfinished.
    await tx.update(attachments).set({ size, sha256 }).where(eq(attachments.id, row!.id));
    await owner.files.changed?.(tx, owner.id, { fileKind: kind, url: attachmentUrl(row!.id), removed: false });
    await noteInTrail(tx, owner.kind, record, {
      actorId: actor._id,
      action: kind === "risk_assessment" ? "Attached the risk assessment" : `Attached ${name}`,
      comment: `${name}, ${size} bytes, SHA-256 ${sha256}`,
    });
    return row!.id;
  });
  return (await listAttachments(target, { includeRemoved: true })).find((a) => a._id === id)!;
}

/**
 * Stores a file with a MOC inside the caller's transaction, whose rule the caller has checked (an
 * item's evidence, app/models/moc/action-tasks.server.ts): the same name and type checks, size cap
 * and SHA-256 as any attachment, and the MOC's trail says it was attached.
 */
export async function storeMocFileIn(
  tx: Executor,
  actor: Actor,
  moc: { id: string; status: string },
  file: IncomingFile,
): Promise<{ _id: string; name: string; size: number; sha256: string }> {
  const { name, extension, contentType } = checkAttachmentName(file.name);
  const owner = ownerOf({ mocId: moc.id });
  const [row] = await tx
    .insert(attachments)
    .values({ mocId: moc.id, pcrId: null, kind: "file", name, contentType, size: 0, sha256: "", uploadedBy: actor._id })
    .returning({ id: attachments.id });
  const { size, sha256 } = await writeChunks(tx, row!.id, extension, file.data);
  await tx.update(attachments).set({ size, sha256 }).where(eq(attachments.id, row!.id));
  await noteInTrail(tx, owner.kind, moc, {
    actorId: actor._id,
    action: `Attached ${name}`,
    comment: `${name}, ${size} bytes, SHA-256 ${sha256}`,
  });
  return { _id: row!.id, name, size, sha256 };
}

/**
 * Hides a file: it stays in the database with who removed it and when, and its record's audit
 * trail says so (a MOC's `moc_logs`, a PCR's `audit_entries`).
 */
export async function removeAttachment(actor: Actor, id: string): Promise<void> {
  await getDb().transaction(async (tx) => {
    const [row] = await tx.select().from(attachments).where(eq(attachments.id, id)).for("update");
    if (!row || !(await mayViewOwner(actor, row, tx))) throw new NotFound("No such file");
    if (row.removedAt) throw new Conflict("This file was already removed");
    const owner = ownerOf(targetOfRow(row));
    const record = await owner.files.mayChange(tx, actor, owner.id, row.kind);
    await tx.update(attachments).set({ removedAt: new Date(), removedBy: actor._id }).where(eq(attachments.id, id));
    await owner.files.changed?.(tx, owner.id, { fileKind: row.kind, url: attachmentUrl(id), removed: true });
    await noteInTrail(tx, owner.kind, record, {
      actorId: actor._id,
      action: `Removed the attachment ${row.name}`,
      comment: `SHA-256 ${row.sha256}; kept in the database, hidden from the record`,
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Reading

/** A record's files, oldest first, with the people's names, in one query. */
export async function listAttachments(
  target: AttachmentTarget,
  options: { includeRemoved?: boolean } = {},
  db: Executor = getDb(),
): Promise<AttachmentView[]> {
  const rows = await db.execute<{
    id: string;
    kind: AttachmentKind;
    name: string;
    content_type: string;
    size: number;
    sha256: string;
    uploaded_by: string | null;
    uploader: string | null;
    uploaded_at: string;
    removed_by: string | null;
    remover: string | null;
    removed_at: string | null;
  }>(sql`
    select a.id, a.kind, a.name, a.content_type, a.size::float8 as size, a.sha256,
      a.uploaded_by, u.name as uploader,
      ${sql.raw(iso("a.uploaded_at"))} as uploaded_at,
      a.removed_by, r.name as remover,
      ${sql.raw(iso("a.removed_at"))} as removed_at
    from ${attachments} a
    left join ${users} u on u.id = a.uploaded_by
    left join ${users} r on r.id = a.removed_by
    where ${sql.raw(`a.${ownerColumnOf(target).column}`)} = ${ownerColumnOf(target).id}
      ${options.includeRemoved ? sql`` : sql`and a.removed_at is null`}
    order by a.uploaded_at, a.id`);
  return rows.map((r) => ({
    _id: r.id,
    kind: r.kind,
    name: r.name,
    contentType: r.content_type,
    size: Number(r.size),
    sha256: r.sha256,
    uploadedBy: r.uploaded_by ? { _id: r.uploaded_by, name: r.uploader ?? "—" } : null,
    uploadedAt: r.uploaded_at,
    removed: r.removed_at !== null,
    removedBy: r.removed_by ? { _id: r.removed_by, name: r.remover ?? "—" } : null,
    removedAt: r.removed_at,
    url: attachmentUrl(r.id),
  }));
}

export type OpenedAttachment = {
  name: string;
  contentType: string;
  size: number;
  sha256: string;
  body: ReadableStream<Uint8Array>;
};

/** The bytes of a file, one chunk per read, so a download never sits whole in memory. */
function chunkStream(id: string): ReadableStream<Uint8Array> {
  let seq = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const [chunk] = await getDb()
        .select({ data: attachmentChunks.data })
        .from(attachmentChunks)
        .where(and(eq(attachmentChunks.attachmentId, id), eq(attachmentChunks.seq, seq)));
      seq += 1;
      if (!chunk) controller.close();
      else controller.enqueue(new Uint8Array(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength));
    },
  });
}

/** A file for someone who may see its record (403 otherwise, as the record); 404 for an unknown or removed one. */
export async function openAttachment(
  actor: Actor,
  where: { id: string } | { legacyPath: string },
): Promise<OpenedAttachment> {
  const db = getDb();
  const [row] = await db
    .select()
    .from(attachments)
    .where(
      and(
        "id" in where ? eq(attachments.id, where.id) : eq(attachments.legacyPath, where.legacyPath),
        isNull(attachments.removedAt),
      ),
    )
    .orderBy(asc(attachments.uploadedAt));
  if (!row) throw new NotFound("No such file");
  if (!(await mayViewOwner(actor, row, db))) throw new Forbidden("You cannot see the record this file belongs to");
  return {
    name: row.name,
    contentType: row.contentType,
    size: row.size,
    sha256: row.sha256,
    body: chunkStream(row.id),
  };
}
