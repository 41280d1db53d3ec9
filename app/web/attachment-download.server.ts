/** A stored file as a download response: streamed, never rendered inline, never sniffed. */
import type { OpenedAttachment } from "~/models/records/attachments.server";
import { DomainError } from "~/utils/errors";

const asciiName = (name: string) => name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");

export async function attachmentResponse(open: () => Promise<OpenedAttachment>): Promise<Response> {
  let file: OpenedAttachment;
  try {
    file = await open();
  } catch (error) {
    if (error instanceof DomainError) throw new Response(error.message, { status: error.status });
    throw new Response("No such file", { status: 404 });
  }
  return new Response(file.body, {
    headers: {
      "Content-Type": file.contentType,
      "Content-Length": String(file.size),
      "Content-Disposition": `attachment; filename="${asciiName(file.name)}"; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, no-store",
      ETag: `"${file.sha256}"`,
    },
  });
}
