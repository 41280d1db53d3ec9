import type { LoaderFunctionArgs } from "@remix-run/node";
import { readMocAttachment } from "~/models/uploads.server";
import { requireMocForPage } from "~/web/moc-page.server";
import { DomainError } from "~/utils/errors";

/** A MOC attachment, for people who may see that MOC; always a download, never rendered inline. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  await requireMocForPage(request, params.mocId);
  try {
    const file = await readMocAttachment(params.mocId!, params.file!);
    return new Response(new Uint8Array(file.body), {
      headers: {
        "Content-Type": file.type,
        "Content-Disposition": `attachment; filename="${file.name.replace(/^[0-9a-f]{16}-/, "")}"`,
        "Content-Security-Policy": "default-src 'none'; sandbox",
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "private, no-store",
      },
    });
  } catch (error) {
    if (error instanceof DomainError) throw new Response(error.message, { status: error.status });
    throw error;
  }
}
