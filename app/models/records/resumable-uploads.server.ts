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
 * - What may wait unfinished is capped when an upload is created (`reserveUpload`), by declared
 *   sizes so the bytes that follow can never pass it: RESUMABLE_UPLOADS_PER_PERSON uploads and
 *   RESUMABLE_UPLOADS_MIB_PER_PERSON per person, RESUMABLE_UPLOADS_MIB_TOTAL in all; beyond, 429
 *   with `Retry-After` (when the oldest of them expires).
 * - An upload has RESUMABLE_UPLOAD_HOURS from its creation to finish, however its bytes arrive: a
 *   piece after that is refused (410, tus's answer for an expired upload) and the upload is removed
 *   (`removeAbandonedUploads`: the hourly housekeeping, and every creation).
 * - Backups leave unfinished uploads out (db/backup.ts, `NOT_CARRIED`).
 */
import type { Readable } from "node:stream";
import { DataStore, ERRORS, Upload } from "@tus/utils";
import { and, asc, eq, gt, lt, sql } from "drizzle-orm";
import { resumableUploadParts, resumableUploads } from "#db/schema";
import { getDb } from "~/utils/db.server";
import { env } from "~/utils/env.server";
import { DomainError } from "~/utils/errors";
import { storeAttachment, type AttachmentTarget, type AttachmentView } from "./attachments.server";
import type { Actor } from "../authz/authz.server";
import type { AttachmentKind } from "#db/schema";

/** How much of a piece is gathered before it is written (and counted as received). */
export const PART_BYTES = 256 * 1024;

const MIB = 1024 * 1024;

/** How long an upload has to finish, from its creation (RESUMABLE_UPLOAD_HOURS). */
export const uploadLifetimeMs = () => env().RESUMABLE_UPLOAD_HOURS * 3600_000;

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
    const createdAt = await reserveUpload({
      id: upload.id,
      userId: owner,
      size: upload.size,
      metadata: upload.metadata,
    });
    upload.creation_date = createdAt.toISOString();
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
      // Its lifetime counts from its creation, not from its last piece (the server's expiry is this + the lifetime).
      creation_date: row.createdAt.toISOString(),
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
    return uploadLifetimeMs();
  }
}

const megabytes = (bytes: number) => `${Math.ceil((bytes / MIB) * 10) / 10} MB`;
const clock = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;

/**
 * Adds the upload's row if the caps leave room for its declared size, else 429 with
 * `Retry-After` (until the oldest upload in the way expires); returns its creation time. Expired
 * uploads are removed first, so only live ones count.
 */
export async function reserveUpload(
  upload: { id: string; userId: string; size: number; metadata: Record<string, string | null> | undefined },
  now = new Date(),
): Promise<Date> {
  const config = env();
  const lifetime = uploadLifetimeMs();
  await removeAbandonedUploads(now);
  return getDb().transaction(async (tx) => {
    // Creations take turns, so two at once cannot both fit under a cap (a piece being written
    // waits the moment this takes).
    await tx.execute(sql`lock table ${resumableUploads} in share row exclusive mode`);
    const live = gt(resumableUploads.createdAt, new Date(now.getTime() - lifetime));
    const mine = sql`${resumableUploads.userId} = ${upload.userId}`;
    const [held] = await tx
      .select({
        count: sql<number>`count(*) filter (where ${mine})::int`,
        bytes: sql<number>`coalesce(sum(${resumableUploads.size}) filter (where ${mine}), 0)::float8`,
        oldest: sql<
          number | null
        >`(extract(epoch from min(${resumableUploads.createdAt}) filter (where ${mine})) * 1000)::float8`,
        total: sql<number>`coalesce(sum(${resumableUploads.size}), 0)::float8`,
        oldestOfAll: sql<number | null>`(extract(epoch from min(${resumableUploads.createdAt})) * 1000)::float8`,
      })
      .from(resumableUploads)
      .where(live);
    const count = held?.count ?? 0;
    const bytes = Number(held?.bytes ?? 0);
    const total = Number(held?.total ?? 0);
    /** 429, with `Retry-After` until the oldest upload in the way (created at `oldest`) expires. */
    const refuse = (oldest: number | null | undefined, message: (frees: string) => string) => {
      const frees = new Date(Number(oldest ?? now.getTime()) + lifetime);
      const seconds = Math.max(1, Math.ceil((frees.getTime() - now.getTime()) / 1000));
      return new DomainError(429, message(clock(frees)), undefined, { "Retry-After": String(seconds) });
    };
    const goOn = "send the rest of one (choose its file again) or wait until";
    if (count >= config.RESUMABLE_UPLOADS_PER_PERSON) {
      throw refuse(
        held?.oldest,
        (frees) =>
          `You have ${count} unfinished uploads, the most one person may have: ${goOn} ${frees}, when the oldest expires`,
      );
    }
    if (bytes + upload.size > config.RESUMABLE_UPLOADS_MIB_PER_PERSON * MIB) {
      throw refuse(
        held?.oldest,
        (frees) =>
          `Your unfinished uploads hold ${megabytes(bytes)}, and this file (${megabytes(upload.size)}) would take them past the ${config.RESUMABLE_UPLOADS_MIB_PER_PERSON} MB one person may have waiting: ${goOn} ${frees}, when the oldest expires`,
      );
    }
    if (total + upload.size > config.RESUMABLE_UPLOADS_MIB_TOTAL * MIB) {
      throw refuse(
        held?.oldestOfAll,
        (frees) =>
          `The server holds as many unfinished uploads as it may (${config.RESUMABLE_UPLOADS_MIB_TOTAL} MB); try again after ${frees}`,
      );
    }
    const [row] = await tx
      .insert(resumableUploads)
      .values({
        id: upload.id,
        userId: upload.userId,
        size: upload.size,
        offset: 0,
        metadata: upload.metadata ?? {},
        createdAt: now,
        updatedAt: now,
      })
      .returning({ createdAt: resumableUploads.createdAt });
    return row!.createdAt;
  });
}

/**
 * One part and the offset after it, together; a part that does not follow the offset is refused
 * (409), and so is one that comes after the upload's lifetime, or after it was removed (410).
 */
async function savePart(id: string, at: number, data: Buffer): Promise<void> {
  await getDb().transaction(async (tx) => {
    const now = new Date();
    const live = gt(resumableUploads.createdAt, new Date(now.getTime() - uploadLifetimeMs()));
    const moved = await tx
      .update(resumableUploads)
      .set({ offset: sql`${resumableUploads.offset} + ${data.byteLength}`, updatedAt: now })
      .where(
        and(
          eq(resumableUploads.id, id),
          eq(resumableUploads.offset, at),
          live,
          sql`${resumableUploads.offset} + ${data.byteLength} <= ${resumableUploads.size}`,
        ),
      )
      .returning({ offset: resumableUploads.offset });
    if (moved.length === 0) {
      const [still] = await tx
        .select({ id: resumableUploads.id })
        .from(resumableUploads)
        .where(and(eq(resumableUploads.id, id), live));
      throw still ? OFFSET_MISMATCH : ERRORS.FILE_NO_LONGER_EXISTS;
    }
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

/** Removes uploads past their lifetime, counted from creation (their parts go with them); returns how many. */
export async function removeAbandonedUploads(now = new Date()): Promise<number> {
  const gone = await getDb()
    .delete(resumableUploads)
    .where(lt(resumableUploads.createdAt, new Date(now.getTime() - uploadLifetimeMs())))
    .returning({ id: resumableUploads.id });
  return gone.length;
}
