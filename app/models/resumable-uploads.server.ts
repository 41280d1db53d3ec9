/**
 * Attachments that upload in pieces and resume after a dropped link (the tus protocol; the server
 * in app/web/resumable-upload.server.ts, docs/decisions/040-replays-apply-once.md). The bytes
 * received so far are kept in PostgreSQL, like the attachments themselves, so every instance can
 * take the next piece and a database backup holds them too:
 *
 * - `resumable_uploads` holds an upload's declared size, its offset (the bytes received) and what
 *   it is for; `resumable_upload_parts` the bytes, one row per stored piece.
 * - A piece is stored as it arrives, in parts of PART_BYTES, each with the new offset in one
 *   transaction; a piece cut short by the link keeps every part it completed and what had arrived
 *   of the last, so the client resumes from the last byte the server holds.
 * - When the last byte is in, the whole file goes through `storeAttachment` (the caps, the type
 *   checks by name and by bytes, the SHA-256 and the audit entry of every attachment) and the
 *   upload is removed, in every outcome.
 * - An upload untouched for a day is removed (`removeAbandonedUploads`, the hourly housekeeping).
 */
import type { Readable } from "node:stream";
import { DataStore, ERRORS, Upload } from "@tus/utils";
import { and, asc, eq, lt, sql } from "drizzle-orm";
import { resumableUploadParts, resumableUploads } from "#db/schema";
import { getDb } from "~/utils/db.server";
import { storeAttachment, type AttachmentTarget, type AttachmentView } from "./attachments.server";
import type { Actor } from "./authz.server";
import type { AttachmentKind } from "#db/schema";

/** How much of a piece is gathered before it is written (and counted as received). */
export const PART_BYTES = 256 * 1024;
/** An upload untouched this long is abandoned. */
export const ABANDONED_AFTER_MS = 24 * 3600_000;

/** What the tus server is told to throw for a piece that does not start where the upload stands. */
const OFFSET_MISMATCH = ERRORS.INVALID_OFFSET;

/** The tus DataStore on PostgreSQL. Ownership (`userId`) is written by `create` from the metadata. */
export class PostgresUploadStore extends DataStore {
  constructor() {
    super();
    this.extensions = ["creation", "termination", "expiration"];
  }

  async create(upload: Upload): Promise<Upload> {
    const owner = upload.metadata?.owner;
    if (!owner || upload.size === undefined) throw ERRORS.INVALID_METADATA;
    await getDb()
      .insert(resumableUploads)
      .values({ id: upload.id, userId: owner, size: upload.size, offset: 0, metadata: upload.metadata ?? {} });
    upload.creation_date = new Date().toISOString();
    return upload;
  }

  async getUpload(id: string): Promise<Upload> {
    const [row] = await getDb().select().from(resumableUploads).where(eq(resumableUploads.id, id));
    if (!row) throw ERRORS.FILE_NOT_FOUND;
    return new Upload({
      id: row.id,
      size: row.size,
      offset: row.offset,
      metadata: row.metadata,
      // The day an upload may wait counts from its last piece (the server's expiry is this + a day).
      creation_date: row.updatedAt.toISOString(),
    });
  }

  async remove(id: string): Promise<void> {
    await getDb().delete(resumableUploads).where(eq(resumableUploads.id, id));
  }

  async write(readable: Readable, id: string, offset: number): Promise<number> {
    let at = offset;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pendingBytes === 0) return;
      const data = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      await savePart(id, at, data);
      at += data.byteLength;
    };
    try {
      for await (const piece of readable as AsyncIterable<Buffer>) {
        pending.push(piece);
        pendingBytes += piece.byteLength;
        if (pendingBytes >= PART_BYTES) await flush();
      }
    } finally {
      // Cut short or not, what arrived is kept: the client resumes from here.
      await flush();
    }
    return at;
  }

  async declareUploadLength(): Promise<void> {
    // Every upload declares its length when it is created (the server refuses a deferred one).
    throw ERRORS.INVALID_LENGTH;
  }

  async deleteExpired(): Promise<number> {
    return removeAbandonedUploads();
  }

  getExpiration(): number {
    return ABANDONED_AFTER_MS;
  }
}

/** One part and the offset after it, together; a part that does not follow the offset is refused. */
async function savePart(id: string, at: number, data: Buffer): Promise<void> {
  await getDb().transaction(async (tx) => {
    const moved = await tx
      .update(resumableUploads)
      .set({ offset: sql`${resumableUploads.offset} + ${data.byteLength}`, updatedAt: new Date() })
      .where(
        and(
          eq(resumableUploads.id, id),
          eq(resumableUploads.offset, at),
          sql`${resumableUploads.offset} + ${data.byteLength} <= ${resumableUploads.size}`,
        ),
      )
      .returning({ offset: resumableUploads.offset });
    if (moved.length === 0) throw OFFSET_MISMATCH;
    await tx.insert(resumableUploadParts).values({ uploadId: id, offset: at, data });
  });
}

/** The received bytes in order, one part at a time. */
async function* partsOf(id: string): AsyncIterable<Uint8Array> {
  let from = 0;
  for (;;) {
    const [part] = await getDb()
      .select({ offset: resumableUploadParts.offset, data: resumableUploadParts.data })
      .from(resumableUploadParts)
      .where(and(eq(resumableUploadParts.uploadId, id), sql`${resumableUploadParts.offset} >= ${from}`))
      .orderBy(asc(resumableUploadParts.offset))
      .limit(1);
    if (!part) return;
    yield part.data;
    from = part.offset + part.data.byteLength;
  }
}

/** The owner of an upload, or null when there is no such upload. */
export async function uploadOwner(id: string): Promise<string | null> {
  const [row] = await getDb()
    .select({ userId: resumableUploads.userId })
    .from(resumableUploads)
    .where(eq(resumableUploads.id, id));
  return row?.userId ?? null;
}

/**
 * The finished upload as an attachment of its record (storeAttachment's checks and hash on the
 * assembled bytes); the upload is removed whatever the outcome.
 */
export async function finishUpload(
  actor: Actor,
  id: string,
  target: AttachmentTarget,
  kind: AttachmentKind,
  name: string,
): Promise<AttachmentView> {
  try {
    return await storeAttachment(actor, target, kind, { name, data: partsOf(id) });
  } finally {
    await getDb().delete(resumableUploads).where(eq(resumableUploads.id, id));
  }
}

/** Removes uploads untouched for a day (their parts go with them); returns how many. */
export async function removeAbandonedUploads(now = new Date()): Promise<number> {
  const gone = await getDb()
    .delete(resumableUploads)
    .where(lt(resumableUploads.updatedAt, new Date(now.getTime() - ABANDONED_AFTER_MS)))
    .returning({ id: resumableUploads.id });
  return gone.length;
}
