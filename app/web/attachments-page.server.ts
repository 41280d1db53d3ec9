/** The attachment pages of a MOC and a PCR: list, upload (spooled, then stored) and remove, one action each. */
import { data } from "@remix-run/node";
import { z } from "zod";
import {
  listAttachments,
  removeAttachment,
  storeAttachment,
  UPLOAD_TYPES,
  type AttachmentTarget,
} from "~/models/records/attachments.server";
import type { Actor } from "~/models/authz/authz.server";
import { redirectWithFlash } from "~/utils/flash.server";
import { pageError, runForPage } from "~/utils/page.server";
import { receiveUpload } from "./attachment-upload.server";

export async function attachmentsPageData(target: AttachmentTarget, canWrite: boolean) {
  return { files: await listAttachments(target), canWrite, types: Object.keys(UPLOAD_TYPES) };
}

const removeSchema = z.object({ intent: z.literal("remove"), id: z.uuid() });

/** An upload (multipart) or a removal (`intent=remove`, `id`); back to `here` with a message. */
export async function attachmentsPageAction(request: Request, actor: Actor, target: AttachmentTarget, here: string) {
  if (/^multipart\/form-data/i.test(request.headers.get("Content-Type") ?? "")) {
    const result = await receiveUpload(request, actor, (file) => storeAttachment(actor, target, "file", file));
    if (!result.ok) {
      if (result.error.status === 404) pageError(result.error);
      return data(
        { error: result.error.issues?.[0]?.message ?? result.error.message },
        { status: result.error.status },
      );
    }
    return redirectWithFlash(here, { kind: "success", message: `${result.value.name} is attached.` });
  }
  const parsed = removeSchema.safeParse(Object.fromEntries(await request.formData()));
  if (!parsed.success) return data({ error: "That action was not understood." }, { status: 400 });
  const result = await runForPage(() => removeAttachment(actor, parsed.data.id));
  if (!result.ok) return redirectWithFlash(here, { kind: "error", message: result.error.message });
  return redirectWithFlash(here, {
    kind: "success",
    message: "The file is removed from the record (kept in its history).",
  });
}
