import type { LoaderFunctionArgs } from "@remix-run/node";
import { openAttachment } from "~/models/records/attachments.server";
import { requirePageUser } from "~/web/auth.server";
import { attachmentResponse } from "~/web/attachment-download.server";

/** A MOC or PCR file, for people who may see its record; streamed from the database, always a download. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  return attachmentResponse(() =>
    /^[0-9a-f-]{36}$/.test(params.id ?? "")
      ? openAttachment(user, { id: params.id! })
      : Promise.reject(new Error("not an id")),
  );
}
