/**
 * A page's file upload, streamed: the multipart body is parsed as it arrives and the file part's
 * bytes go straight into the database (attachments.server.ts), chunk by chunk, never whole in
 * memory. The body cap (body-limit.server.ts) errors the stream past the route's cap, which rolls
 * the upload's transaction back.
 */
import {
  unstable_composeUploadHandlers as composeUploadHandlers,
  unstable_createMemoryUploadHandler as createMemoryUploadHandler,
  unstable_parseMultipartFormData as parseMultipartFormData,
} from "@remix-run/node";
import type { AttachmentView, IncomingFile } from "~/models/attachments.server";
import { DomainError, Invalid, TooLarge } from "~/utils/errors";
import { runForPage } from "~/utils/page.server";
import { BodyTooLarge } from "./body-limit.server";

/** The upload's outcome: the stored file, or the domain error to show (400, 403, 409, 413, 415). */
export async function receiveUpload(
  request: Request,
  store: (file: IncomingFile) => Promise<AttachmentView>,
): Promise<{ ok: true; value: AttachmentView } | { ok: false; error: DomainError }> {
  if (!/^multipart\/form-data/i.test(request.headers.get("Content-Type") ?? "")) {
    return { ok: false, error: new Invalid("Send the file as a multipart form") };
  }
  let stored: AttachmentView | null = null;
  const fileHandler = async (part: { name: string; filename?: string; data: AsyncIterable<Uint8Array> }) => {
    if (part.name !== "file" || !part.filename) return undefined;
    if (stored) throw new Invalid("Send one file at a time");
    stored = await store({ name: part.filename, data: part.data });
    return stored._id;
  };
  const result = await runForPage(async () => {
    try {
      await parseMultipartFormData(
        request,
        composeUploadHandlers(fileHandler, createMemoryUploadHandler({ maxPartSize: 64 * 1024 })),
      );
    } catch (error) {
      if (error instanceof DomainError) throw error;
      if (error instanceof BodyTooLarge || (error as { cause?: unknown })?.cause instanceof BodyTooLarge) {
        throw new TooLarge("Files can be at most 10 MB");
      }
      if ((error as Error)?.name === "MaxPartSizeExceededError") throw new TooLarge("Files can be at most 10 MB");
      throw error;
    }
    if (!stored)
      throw new Invalid("Choose the file to attach", [{ path: "file", message: "Choose the file to attach" }]);
    return stored as AttachmentView;
  });
  return result;
}
