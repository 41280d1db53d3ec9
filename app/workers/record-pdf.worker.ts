/**
 * The worker thread that makes record PDFs (app/models/records-out/record-pdf-worker.server.ts starts it): one
 * record per message, laid out within the page budget, the bytes sent back whole. A PDF past its
 * budget answers `{ error: "pages" }`; the thread's time budget and memory are the caller's.
 */
import { parentPort } from "node:worker_threads";
import { PageBudgetExceeded, recordPdf } from "../models/records-out/record-pdf.server";
import type { PrintRecord } from "../models/records-out/record-print.server";

export type PdfJob = { id: number; record: PrintRecord; maxPages: number };
export type PdfResult = { id: number; pdf: Uint8Array } | { id: number; error: "pages" | string };

parentPort!.on("message", (job: PdfJob) => {
  const chunks: Buffer[] = [];
  let doc: PDFKit.PDFDocument;
  const fail = (error: unknown) =>
    parentPort!.postMessage({
      id: job.id,
      error: error instanceof PageBudgetExceeded ? "pages" : error instanceof Error ? error.message : String(error),
    } satisfies PdfResult);
  try {
    doc = recordPdf(job.record, { maxPages: job.maxPages });
  } catch (error) {
    fail(error);
    return;
  }
  doc.on("data", (chunk: Buffer) => chunks.push(chunk));
  doc.on("error", fail);
  doc.on("end", () => {
    // A buffer of its own (Buffer.concat may hand out a slice of a shared pool): it is transferred.
    const pdf = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
    let at = 0;
    for (const chunk of chunks) {
      pdf.set(chunk, at);
      at += chunk.byteLength;
    }
    parentPort!.postMessage({ id: job.id, pdf } satisfies PdfResult, [pdf.buffer as ArrayBuffer]);
  });
});
