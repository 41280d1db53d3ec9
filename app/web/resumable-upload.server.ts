/**
 * Resumable attachment uploads: the tus protocol (tus.io, version 1.0.0) served by `@tus/server`
 * at /tus/attachments, its bytes kept by PostgresUploadStore (app/models/resumable-uploads.server.ts),
 * docs/decisions/040-replays-apply-once.md. The browser's `tus-js-client` (app/components/attachments.tsx)
 * creates an upload (POST with `Upload-Length` and `Upload-Metadata`: filename, record, kind), sends
 * the file in pieces (PATCH from `Upload-Offset`), and after a dropped link asks where it stands
 * (HEAD) and goes on from the last byte the server holds. The last piece turns the upload into an
 * attachment with every check of the multipart upload; its answer names it (`Attachment-Url`,
 * `Attachment-Sha256`).
 *
 * Who may: the signed-in person (cookie writes from our own origin only, as everywhere); an upload
 * is its creator's (another person's id is answered as unknown). The cap is declared up front
 * (`Upload-Length` over 10 MB is 413 before a byte is sent) and each request body is capped as it
 * is read (app/web/body-limit.server.ts).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { Server } from "@tus/server";
import { z } from "zod";
import { ATTACHMENT_KINDS, type AttachmentKind } from "#db/schema";
import {
  assertMayAttach,
  extensionOf,
  MAX_UPLOAD_BYTES,
  UPLOAD_TYPES,
  type AttachmentTarget,
} from "~/models/attachments.server";
import { finishUpload, PostgresUploadStore, uploadOwner } from "~/models/resumable-uploads.server";
import type { PublicUser } from "~/models/user.server";
import { DomainError, Forbidden } from "~/utils/errors";
import { logger } from "~/utils/logger.server";
import { assertSameOrigin, authenticate } from "./auth.server";

export const RESUMABLE_UPLOAD_PATH = "/tus/attachments";

const uploader = new AsyncLocalStorage<PublicUser>();

/** What a tus hook throws to answer with a status: the server sends `body` as text. */
const refuse = (status: number, message: string) => ({ status_code: status, body: message });

const metadataSchema = z.object({
  filename: z.string().min(1).max(255),
  record: z.string().regex(/^(moc|pcr):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
  kind: z.enum(ATTACHMENT_KINDS).default("file"),
});

function targetOf(record: string): AttachmentTarget {
  const [kind, id] = record.split(":") as ["moc" | "pcr", string];
  return kind === "moc" ? { mocId: id } : { pcrId: id };
}

function currentUser(): PublicUser {
  const user = uploader.getStore();
  if (!user) throw refuse(401, "Sign in to continue");
  return user;
}

let server: Server | undefined;

function tusServer(): Server {
  server ??= new Server({
    path: RESUMABLE_UPLOAD_PATH,
    datastore: new PostgresUploadStore(),
    maxSize: MAX_UPLOAD_BYTES,
    relativeLocation: true,
    async onUploadCreate(_req, upload) {
      const user = currentUser();
      if (upload.sizeIsDeferred) throw refuse(400, "Declare the file's size (Upload-Length) when creating the upload");
      const parsed = metadataSchema.safeParse(upload.metadata ?? {});
      if (!parsed.success) {
        throw refuse(
          400,
          "Upload-Metadata needs filename, record (moc:<id> or pcr:<id>) and kind (file or risk_assessment)",
        );
      }
      if (!UPLOAD_TYPES[extensionOf(parsed.data.filename)]) {
        throw refuse(400, `This type of file is not accepted: upload a ${Object.keys(UPLOAD_TYPES).join(", ")} file`);
      }
      if (upload.size === 0) throw refuse(400, "The file is empty");
      if (parsed.data.kind === "risk_assessment" && !parsed.data.record.startsWith("moc:")) {
        throw refuse(400, "Only a MOC has a risk assessment");
      }
      // Not a byte is sent for a file the record would refuse (checked again when it is stored).
      try {
        await assertMayAttach(user, targetOf(parsed.data.record), parsed.data.kind);
      } catch (error) {
        if (error instanceof DomainError) throw refuse(error.status, error.message);
        throw error;
      }
      return { metadata: { ...parsed.data, owner: user._id } };
    },
    async onIncomingRequest(_req, id) {
      const user = currentUser();
      const owner = await uploadOwner(id);
      // Someone else's upload is answered as an unknown one.
      if (owner !== null && owner !== user._id) throw refuse(404, "The upload was not found");
    },
    async onUploadFinish(_req, upload) {
      const user = currentUser();
      const meta = metadataSchema.parse(upload.metadata ?? {});
      try {
        const file = await finishUpload(
          user,
          upload.id,
          targetOf(meta.record),
          meta.kind as AttachmentKind,
          meta.filename,
        );
        return { headers: { "Attachment-Url": file.url, "Attachment-Sha256": file.sha256 } };
      } catch (error) {
        // The field's message when there is one, as the multipart form shows it.
        if (error instanceof DomainError) throw refuse(error.status, error.issues?.[0]?.message ?? error.message);
        throw error;
      }
    },
    onResponseError(_req, error) {
      if ("status_code" in error) return undefined;
      logger().error({ err: error }, "resumable upload failed");
      return { status_code: 500, body: "Something went wrong on our side; send the rest again" };
    },
  });
  return server;
}

/** The tus endpoint: the caller identified, then @tus/server. */
export async function handleResumableUpload(request: Request): Promise<Response> {
  const who = await authenticate(request);
  if (!who.ok) return new Response(who.message, { status: 401, headers: { "Cache-Control": "no-store" } });
  if (who.identity.via === "cookie") {
    try {
      assertSameOrigin(request);
    } catch (error) {
      if (error instanceof Forbidden) return new Response(error.message, { status: 403 });
      throw error;
    }
  }
  const response = await uploader.run(who.identity.user, () => tusServer().handleWeb(request));
  response.headers.set("Cache-Control", "no-store");
  return response;
}
