/**
 * Resumable attachment uploads: the tus protocol (tus.io, version 1.0.0) served by `@tus/server`
 * at /tus/attachments, its bytes kept by PostgresUploadStore (app/models/records/resumable-uploads.server.ts),
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
 * is read (app/web/body-limit.server.ts). At creation, before a byte is sent: the file name's
 * rules (400), the record's (403, 404, 409), and the caps on unfinished uploads (429 with
 * `Retry-After`, app/models/records/resumable-uploads.server.ts). Only the app's own pages use it: no CORS
 * header is sent (the library's default would be `Access-Control-Allow-Origin: *`).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { Server } from "@tus/server";
import { z } from "zod";
import { ATTACHMENT_KINDS, type AttachmentKind } from "#db/schema";
import {
  assertMayAttach,
  checkAttachmentName,
  extensionOf,
  MAX_UPLOAD_BYTES,
  UPLOAD_TYPES,
  type AttachmentTarget,
} from "~/models/records/attachments.server";
import { finishUpload, PostgresUploadStore, uploadOwner } from "~/models/records/resumable-uploads.server";
import type { PublicUser } from "~/models/people/user.server";
import { DomainError, Forbidden } from "~/utils/errors";
import { logger } from "~/utils/logger.server";
import { assertSameOrigin, authenticate, SIGN_IN_FIRST } from "./auth.server";

export const RESUMABLE_UPLOAD_PATH = "/tus/attachments";

/** The request's caller, and the headers a refusal adds to the answer (a 429's `Retry-After`). */
const uploader = new AsyncLocalStorage<{ user: PublicUser; headers: Record<string, string> }>();

/** What a tus hook throws to answer with a status: the server sends `body` as text. */
const refuse = (status: number, message: string) => ({ status_code: status, body: message });

/** A domain error's answer: the field's message when there is one, as the multipart form shows it. */
const answerOf = (error: DomainError) => error.issues?.[0]?.message ?? error.message;

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
  const user = uploader.getStore()?.user;
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
    // Same origin only: no Access-Control-Allow-Origin on any answer.
    allowedOrigins: () => false,
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
      // Not a byte is sent for a name, or a record, that storing would refuse (checked again then):
      // the name's rules, then the record's.
      if (!UPLOAD_TYPES[extensionOf(parsed.data.filename)]) {
        throw refuse(400, `This type of file is not accepted: upload a ${Object.keys(UPLOAD_TYPES).join(", ")} file`);
      }
      checkAttachmentName(parsed.data.filename);
      if (upload.size === 0) throw refuse(400, "The file is empty");
      if (parsed.data.kind === "risk_assessment" && !parsed.data.record.startsWith("moc:")) {
        throw refuse(400, "Only a MOC has a risk assessment");
      }
      await assertMayAttach(user, targetOf(parsed.data.record), parsed.data.kind);
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
      const file = await finishUpload(
        user,
        upload.id,
        targetOf(meta.record),
        meta.kind as AttachmentKind,
        meta.filename,
      );
      return { headers: { "Attachment-Url": file.url, "Attachment-Sha256": file.sha256 } };
    },
    onResponseError(_req, error) {
      // A refusal of the app's rules (hooks and store alike): its status and words, and its headers.
      if (error instanceof DomainError) {
        Object.assign(uploader.getStore()?.headers ?? {}, error.headers);
        return { status_code: error.status, body: answerOf(error) };
      }
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
  if (!who.ok) {
    const message = who.signedOut ? SIGN_IN_FIRST : who.message;
    return new Response(message, { status: 401, headers: { "Cache-Control": "no-store" } });
  }
  if (who.identity.via === "cookie") {
    try {
      assertSameOrigin(request);
    } catch (error) {
      if (error instanceof Forbidden) return new Response(error.message, { status: 403 });
      throw error;
    }
  }
  const context = { user: who.identity.user, headers: {} as Record<string, string> };
  const response = await uploader.run(context, () => tusServer().handleWeb(request));
  for (const [name, value] of Object.entries(context.headers)) response.headers.set(name, value);
  response.headers.set("Cache-Control", "no-store");
  return response;
}
