/**
 * A MOC or PCR record for its print view and its PDF: loaded with the record's own access rules
 * (the same 404/403 as its page), with its attachment list.
 */
import { historyOf } from "~/models/audit/audit.server";
import { listAttachments, type AttachmentView } from "~/models/records/attachments.server";
import { renderRecordPdf } from "~/models/records-out/record-pdf-worker.server";
import {
  referencesPrintSection,
  type PrintAttachment,
  type PrintRecord,
} from "~/models/records-out/record-print.server";
import { mocPrintRecord } from "~/models/moc/moc-print.server";
import { pcrPrintRecord } from "~/models/pcr/pcr-print.server";
import { effectivenessPrintSection } from "~/models/moc/effectiveness-closure.server";
import { effectivenessReviewOf } from "~/models/moc/effectiveness.server";
import { DomainError } from "~/utils/errors";
import type { RecordRef } from "~/models/records/record-refs.server";
import { referencesOf } from "~/models/records/references.server";
import { linksOf, linksPrintSection } from "~/models/records/record-links.server";
import { refusal } from "~/utils/http.server";
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
  return (await mocRecordAndReader(request, id)).record;
}

export async function pcrRecordFor(request: Request, id: string | undefined): Promise<PrintRecord> {
  return (await pcrRecordAndReader(request, id)).record;
}

async function mocRecordAndReader(request: Request, id: string | undefined) {
  const { doc, user } = await requireMocForPage(request, id);
  const [files, review] = await Promise.all([listAttachments({ mocId: doc._id }), effectivenessReviewOf(doc._id)]);
  const record = mocPrintRecord(doc, forPrint(files));
  // Its effectiveness review after the parts (issue 42, docs/decisions/058-effectiveness-review.md).
  record.sections.push(...effectivenessPrintSection(review, record.generatedAt.slice(0, 10)));
  record.sections.push(await referencesSection({ kind: "moc", id: doc._id }));
  // Its links the reader may see both ends of (issue 42).
  record.sections.push(
    linksPrintSection((await linksOf(user, { kind: "moc", id: doc._id }, undefined, { recordChecked: true })).links),
  );
  return { record, reader: user._id };
}

/** The record's external references as printed (issue 42). */
const referencesSection = async (ref: RecordRef) =>
  referencesPrintSection((await referencesOf(ref.kind, [ref.id])).get(ref.id) ?? []);

async function pcrRecordAndReader(request: Request, id: string | undefined) {
  const { pcr, user } = await requirePcrForPage(request, id);
  const record = pcrPrintRecord(
    pcr,
    await historyOf("pcr", pcr._id),
    forPrint(await listAttachments({ pcrId: pcr._id })),
  );
  record.sections.push(await referencesSection({ kind: "pcr", id: pcr._id }));
  record.sections.push(
    linksPrintSection((await linksOf(user, { kind: "pcr", id: pcr._id }, undefined, { recordChecked: true })).links),
  );
  return { record, reader: user._id };
}

/**
 * The record as a PDF download named after it (`MOC-12-2026.pdf`), made on the PDF worker thread
 * (app/models/records-out/record-pdf-worker.server.ts). A refusal (429 one at a time, with Retry-After; 422 past
 * a budget) is answered here, with its message and headers: a resource route cannot render the
 * app's error page, and Remix answers what it throws as a bare "Unexpected Server Error".
 */
export async function pdfResponse(
  request: Request,
  { record, reader }: { record: PrintRecord; reader: string },
): Promise<Response> {
  let pdf: Uint8Array<ArrayBuffer>;
  try {
    pdf = await renderRecordPdf(record, reader);
  } catch (error) {
    if (error instanceof DomainError) return refusal(request, error);
    throw error;
  }
  return new Response(pdf, {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Length": String(pdf.byteLength),
      "Content-Disposition": `attachment; filename="${record.fileName}"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

/** GET /mocs/:id/pdf. */
export const mocPdfResponse = async (request: Request, id: string | undefined) =>
  pdfResponse(request, await mocRecordAndReader(request, id));

/** GET /pcrs/:id/pdf. */
export const pcrPdfResponse = async (request: Request, id: string | undefined) =>
  pdfResponse(request, await pcrRecordAndReader(request, id));
