import type { LoaderFunctionArgs } from "@remix-run/node";
import { openAttachment } from "~/models/records/attachments.server";
import { requirePageUser } from "~/web/auth.server";
import { attachmentResponse } from "~/web/attachment-download.server";

/**
 * The address risk assessments had when they were files under DATA_DIR/uploads: those files are
 * in the database now (moved at start, docs/decisions/022-records-out.md), and their old links
 * keep working for people who may see the MOC.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  return attachmentResponse(() => openAttachment(user, { legacyPath: `${params.mocId}/${params.file}` }));
}
