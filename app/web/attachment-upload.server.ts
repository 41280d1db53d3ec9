/**
 * A page's file upload: the multipart body is parsed as it arrives and the file part's bytes are
 * spooled to a temporary file (never whole in memory), counted against the 10 MiB cap. Only once
 * the whole body is in does the file go into the database (attachments.server.ts), in one short
 * transaction read from local disk: a body that trickles in holds no database connection and no
 * transaction (docs/decisions/027-slow-clients.md). At most UPLOADS_PER_PERSON uploads per person
 * run at once (429 beyond); the body cap and the stall deadline (body-limit.server.ts) cut a body
 * that grows too large or stops arriving. The temporary file is removed however the upload ends.
 */
import {
  unstable_composeUploadHandlers as composeUploadHandlers,
  unstable_createMemoryUploadHandler as createMemoryUploadHandler,
  unstable_parseMultipartFormData as parseMultipartFormData,
} from "@remix-run/node";
import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { MAX_UPLOAD_BYTES, type AttachmentView, type IncomingFile } from "~/models/records/attachments.server";
import type { Actor } from "~/models/authz/authz.server";
import { slotGroup } from "~/models/shared/person-slots.server";
import { env } from "~/utils/env.server";
import { DomainError, Invalid, TooLarge } from "~/utils/errors";
import { runForPage } from "~/utils/page.server";
import { BodyStalled, BodyTooLarge } from "./body-limit.server";

const uploadSlots = slotGroup(
  "upload",
  ({ perUser }) =>
    `You have ${perUser} upload${perUser === 1 ? "" : "s"} in progress already; wait for ${perUser === 1 ? "it" : "them"} to finish, then try again`,
  5,
);

/** The uploads running now in this process (tests). */
export const uploadsInUse = () => uploadSlots.inUse();

/**
 * Upload slots taken before the route reads its body: the idempotency layer reads a keyed
 * multipart form whole before the route runs (app/web/idempotency.server.ts), so it takes the
 * person's slot first (a third upload is refused at once with 429, not read) and the route's
 * `receiveForm` uses that slot instead of taking a second one. Keyed by the request object the
 * route is given, never by anything a client sends.
 */
const heldSlots = new WeakMap<Request, true>();

/** Takes one of `userId`'s upload slots (throws the 429); the release is the caller's. */
export function takeUploadSlot(userId: string): () => void {
  const config = env();
  return uploadSlots.acquire(userId, {
    perUser: config.UPLOADS_PER_PERSON,
    overall: config.UPLOADS_MAX_CONCURRENT,
  });
}

/** Tells `receiveForm` that the slot of `request` is already taken (by `takeUploadSlot`). */
export function uploadSlotHeldFor(request: Request): void {
  heldSlots.set(request, true);
}

/** A file part's bytes written to `file` as they arrive; past the cap, 413. */
async function spool(data: AsyncIterable<Uint8Array>, file: string): Promise<number> {
  const handle = await fs.open(file, "wx", 0o600);
  let size = 0;
  try {
    for await (const piece of data) {
      size += piece.byteLength;
      if (size > MAX_UPLOAD_BYTES) throw new TooLarge("Files can be at most 10 MB");
      await handle.write(piece, 0, piece.byteLength);
    }
  } finally {
    await handle.close();
  }
  return size;
}

/** The upload's outcome: the stored file, or the domain error to show (400, 403, 409, 413, 415, 429). */
export async function receiveUpload(
  request: Request,
  actor: Actor,
  store: (file: IncomingFile) => Promise<AttachmentView>,
): Promise<{ ok: true; value: AttachmentView } | { ok: false; error: DomainError }> {
  return receiveForm(request, actor, async (_fields, file) => {
    if (!file) throw new Invalid("Choose the file to attach", [{ path: "file", message: "Choose the file to attach" }]);
    return store(file);
  });
}

/**
 * A multipart form with at most one file part (`file`, optional) and small text fields, spooled
 * and capped as an upload; `handle` gets the fields and the file (or null) once the whole body is in.
 */
export async function receiveForm<T>(
  request: Request,
  actor: Actor,
  handle: (fields: FormData, file: IncomingFile | null) => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: DomainError }> {
  if (!/^multipart\/form-data/i.test(request.headers.get("Content-Type") ?? "")) {
    return { ok: false, error: new Invalid("Send the file as a multipart form") };
  }
  return runForPage(async () => {
    const config = env();
    const release = heldSlots.has(request)
      ? () => undefined // taken, and released, by the idempotency layer
      : uploadSlots.acquire(actor._id, {
          perUser: config.UPLOADS_PER_PERSON,
          overall: config.UPLOADS_MAX_CONCURRENT,
        });
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cm-upload-"));
    try {
      let received: { name: string; file: string } | null = null;
      const fileHandler = async (part: { name: string; filename?: string; data: AsyncIterable<Uint8Array> }) => {
        if (part.name !== "file" || !part.filename) return undefined;
        if (received) throw new Invalid("Send one file at a time");
        received = { name: part.filename, file: path.join(dir, "upload") };
        await spool(part.data, received.file);
        return part.filename;
      };
      let fields: FormData;
      try {
        fields = await parseMultipartFormData(
          request,
          composeUploadHandlers(fileHandler, createMemoryUploadHandler({ maxPartSize: 64 * 1024 })),
        );
      } catch (error) {
        const cause = (error as { cause?: unknown })?.cause;
        if (error instanceof BodyTooLarge || cause instanceof BodyTooLarge) {
          throw new TooLarge("Files can be at most 10 MB");
        }
        // The client has its 408 already (body-limit.server.ts); this only ends the upload.
        if (error instanceof BodyStalled || cause instanceof BodyStalled) throw new Invalid((error as Error).message);
        if (error instanceof DomainError) throw error;
        if ((error as Error)?.name === "MaxPartSizeExceededError") throw new TooLarge("Files can be at most 10 MB");
        throw error;
      }
      const file = received as { name: string; file: string } | null;
      // The whole body is in: now the database, in one transaction reading from local disk.
      return await handle(
        fields,
        file ? { name: file.name, data: createReadStream(file.file, { highWaterMark: 256 * 1024 }) } : null,
      );
    } finally {
      release();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
}
