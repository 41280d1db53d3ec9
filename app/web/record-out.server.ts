/**
 * A MOC or PCR record for its print view and its PDF: loaded with the record's own access rules
 * (the same 404/403 as its page), with its attachment list.
 */
import { Readable } from "node:stream";
import { historyOf } from "~/models/audit.server";
import { listAttachments, type AttachmentView } from "~/models/attachments.server";
import { recordPdf } from "~/models/record-pdf.server";
import { mocPrintRecord, pcrPrintRecord, type PrintAttachment, type PrintRecord } from "~/models/record-print.server";
import { requirePcrForPage } from "./pcr-page.server";
import { requireMocForPage } from "./moc-page.server";

const KIND_LABEL = { risk_assessment: "Risk assessment", file: "File" } as const;

const forPrint = (files: AttachmentView[]): PrintAttachment[] =>
  files.map((a) => ({
    name: a.name,
    kind: KIND_LABEL[a.kind],
    size: a.size,
    contentType: a.contentType,
    sha256: a.sha256,
    uploadedBy: a.uploadedBy?.name ?? null,
    uploadedAt: a.uploadedAt,
    removed: a.removed,
  }));

export async function mocRecordFor(request: Request, id: string | undefined): Promise<PrintRecord> {
  const { doc } = await requireMocForPage(request, id);
  return mocPrintRecord(doc, forPrint(await listAttachments({ mocId: doc._id })));
}

export async function pcrRecordFor(request: Request, id: string | undefined): Promise<PrintRecord> {
  const { pcr } = await requirePcrForPage(request, id);
  return pcrPrintRecord(pcr, await historyOf("pcr", pcr._id), forPrint(await listAttachments({ pcrId: pcr._id })));
}

/** The record as a PDF download named after it (`MOC-12-2026.pdf`). */
export function pdfResponse(record: PrintRecord): Response {
  const body = Readable.toWeb(recordPdf(record)) as ReadableStream<Uint8Array>;
  return new Response(body, {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${record.fileName}"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
