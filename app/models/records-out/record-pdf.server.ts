/**
 * A MOC or PCR record as a PDF (pdfkit; docs/decisions/022-records-out.md): the same content as
 * the print view, from the same description (record-print.server.ts), in real text with an
 * embedded DejaVu Sans (subset), so any name prints and the text can be searched and copied.
 * Every page has a header naming the record and its status, and a footer "Page x of y" with the
 * generation time.
 *
 * Made in a worker thread (app/models/records-out/record-pdf-worker.server.ts), never on the request thread,
 * within a page budget (`maxPages`: past it, PageBudgetExceeded) and a time budget.
 */
import { createRequire } from "node:module";
import path from "node:path";
import PDFDocument from "pdfkit";
import { PRINT_KINDS } from "./print-kinds";
import type { PrintBlock, PrintRecord } from "./record-print.server";
import { utcText } from "../shared/utc-text";

const require = createRequire(import.meta.url);
const fontDir = () => path.dirname(require.resolve("dejavu-fonts-ttf/ttf/DejaVuSans.ttf"));

const MARGIN = { top: 64, bottom: 60, left: 50, right: 50 };
const GREY = "#555555";

const fileSize = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Thrown while the PDF is laid out, when it would have more than its budget of pages. */
export class PageBudgetExceeded extends Error {
  constructor(readonly maxPages: number) {
    super(`more than ${maxPages} pages`);
  }
}

/**
 * The PDF's bytes, as a Node stream (pdfkit writes as it goes). With `maxPages`, laying out a page
 * past it throws PageBudgetExceeded before the document grows further.
 */
export function recordPdf(record: PrintRecord, options: { maxPages?: number } = {}): PDFKit.PDFDocument {
  const doc = new PDFDocument({
    size: "A4",
    margins: MARGIN,
    bufferPages: true,
    info: {
      Title: `${record.title} — ${record.status}`,
      Subject: PRINT_KINDS[record.kind].label,
      Creator: "Change Management",
      CreationDate: new Date(record.generatedAt),
    },
  });
  if (options.maxPages !== undefined) {
    const maxPages = options.maxPages;
    let pages = 1;
    doc.on("pageAdded", () => {
      if (++pages > maxPages) throw new PageBudgetExceeded(maxPages);
    });
  }
  doc.registerFont("body", path.join(fontDir(), "DejaVuSans.ttf"));
  doc.registerFont("bold", path.join(fontDir(), "DejaVuSans-Bold.ttf"));
  const width = doc.page.width - MARGIN.left - MARGIN.right;

  const heading = (title: string) => {
    if (doc.y > doc.page.height - MARGIN.bottom - 80) doc.addPage();
    doc.moveDown(0.6).font("bold").fontSize(12.5).fillColor("black").text(title, MARGIN.left, doc.y, { width });
    const y = doc.y + 1;
    doc
      .moveTo(MARGIN.left, y)
      .lineTo(MARGIN.left + width, y)
      .lineWidth(0.5)
      .strokeColor("#999999")
      .stroke();
    doc.moveDown(0.3);
  };
  const note = (value: string) =>
    doc.font("body").fontSize(9).fillColor(GREY).text(value, MARGIN.left, doc.y, { width });
  const field = (label: string, value: string) => {
    const labelWidth = 150;
    if (doc.y > doc.page.height - MARGIN.bottom - 30) doc.addPage();
    const top = doc.y;
    doc
      .font("bold")
      .fontSize(9.5)
      .fillColor("black")
      .text(label, MARGIN.left, top, { width: labelWidth - 8 });
    const afterLabel = doc.y;
    // The value may run onto the next page; it then continues at the top of that page.
    const startPage = doc.bufferedPageRange().count;
    doc
      .font("body")
      .fontSize(9.5)
      .text(value || "—", MARGIN.left + labelWidth, top, { width: width - labelWidth });
    const samePage = doc.bufferedPageRange().count === startPage;
    doc.y = samePage ? Math.max(doc.y, afterLabel) + 2 : doc.y + 2;
    doc.x = MARGIN.left;
  };
  const table = (columns: string[], rows: string[][], empty: string, widths?: number[]) => {
    if (rows.length === 0) {
      note(empty);
      return;
    }
    const w = widths ?? columns.map(() => width / columns.length);
    const drawRow = (cells: string[], bold: boolean) => {
      doc.font(bold ? "bold" : "body").fontSize(8.5);
      const heights = cells.map((c, i) => doc.heightOfString(c || "—", { width: w[i]! - 6 }));
      const height = Math.max(...heights) + 6;
      if (doc.y + height > doc.page.height - MARGIN.bottom) {
        doc.addPage();
        if (!bold) drawRow(columns, true);
        doc.font(bold ? "bold" : "body").fontSize(8.5); // the repeated header left its bold font set
      }
      const top = doc.y;
      let x = MARGIN.left;
      cells.forEach((c, i) => {
        doc.rect(x, top, w[i]!, height).lineWidth(0.4).strokeColor("#aaaaaa").stroke();
        doc.fillColor("black").text(c || "—", x + 3, top + 3, { width: w[i]! - 6 });
        x += w[i]!;
      });
      doc.x = MARGIN.left;
      doc.y = top + height;
    };
    drawRow(columns, true);
    for (const row of rows) drawRow(row, false);
    doc.moveDown(0.3);
  };
  const block = (b: PrintBlock) => {
    if (b.kind === "fields") return b.fields.forEach((f) => field(f.label, f.value));
    if (b.title) {
      // A table's title is not left alone at a page's foot: with it go the header and a first row.
      if (doc.y > doc.page.height - MARGIN.bottom - 70) doc.addPage();
      doc.moveDown(0.3).font("bold").fontSize(9.5).fillColor("black").text(b.title, MARGIN.left, doc.y, { width });
    }
    table(b.columns, b.rows, b.empty);
    if (b.more) note(b.more.text);
  };
  /** A drawn signature as its image (a PNG or JPEG data URL), beside its label. */
  const signatureImage = (label: string, dataUrl: string) => {
    const height = 48;
    if (doc.y + height > doc.page.height - MARGIN.bottom) doc.addPage();
    const top = doc.y;
    doc.font("bold").fontSize(9.5).fillColor("black").text(label, MARGIN.left, top, { width: 142 });
    try {
      const bytes = Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64");
      doc.image(bytes, MARGIN.left + 150, top, { fit: [180, height] });
      doc.y = top + height + 4;
    } catch {
      // Not an image pdfkit can read (a damaged upload): say so rather than fail the record.
      doc
        .font("body")
        .text("Drawn signature (an image that cannot be printed)", MARGIN.left + 150, top, { width: width - 150 });
    }
    doc.x = MARGIN.left;
  };

  // Title
  doc.font("body").fontSize(9).fillColor(GREY).text(PRINT_KINDS[record.kind].label);
  doc.font("bold").fontSize(18).fillColor("black").text(record.title);
  doc.font("body").fontSize(10).text(`${PRINT_KINDS[record.kind].statusLabel}: ${record.status}`);

  for (const section of record.sections) {
    heading(section.title);
    if (section.note) note(section.note);
    section.blocks.forEach(block);
  }

  // A circulation's tracking has none of a record's signatures, trail or attachments (its lists are empty).
  const recordParts = PRINT_KINDS[record.kind].recordParts;
  if (recordParts) heading("Signatures");
  if (recordParts && record.signatures.length === 0) note("No signatures yet.");
  for (const s of record.signatures) {
    if (doc.y > doc.page.height - MARGIN.bottom - 90) doc.addPage();
    doc
      .font("bold")
      .fontSize(10)
      .fillColor("black")
      .text(
        `${s.role}${s.state === "unsigned" ? " — not signed" : s.state === "commented" ? " — commented, not signed" : ""}`,
        MARGIN.left,
        doc.y,
        { width },
      );
    field("Name", s.name ?? "—");
    field("Position or role", s.position ?? s.role);
    field("Time (UTC)", utcText(s.at));
    field("Meaning", s.meaning);
    if (s.image) signatureImage("Signature", s.image);
    else if (s.mark) field("Signature", s.mark);
    if (s.comment) field("Comment", s.comment);
    if (s.reconstructed) field("Record", s.reconstructed);
    doc.moveDown(0.4);
  }

  if (recordParts) heading("Audit trail");
  if (recordParts)
    table(
      ["Time (UTC)", "Who", "What", "Details"],
      record.history.map((h) => [utcText(h.at), h.who, h.action, h.detail ?? ""]),
      "No activity yet.",
      [90, 100, 130, width - 320],
    );

  if (recordParts) heading("Attachments");
  if (recordParts)
    table(
      ["File", "Kind", "Size", "Uploaded", "SHA-256"],
      record.attachments.map((a) => [
        `${a.name}${a.removed ? " (removed)" : ""}\n${a.contentType}`,
        a.kind,
        fileSize(a.size),
        `${a.uploadedBy ?? "—"}\n${utcText(a.uploadedAt)}`,
        a.sha256 ?? "—",
      ]),
      "No attachments.",
      [130, 65, 50, 100, width - 345],
    );

  // Header and footer on every page, once the page count is known.
  const { start, count } = doc.bufferedPageRange();
  const generated = `Generated ${utcText(record.generatedAt)}`;
  for (let i = start; i < start + count; i++) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0; // writing in the margin must not start a new page
    doc
      .font("bold")
      .fontSize(9)
      .fillColor("black")
      .text(record.title, MARGIN.left, 28, { width: width / 2, lineBreak: false });
    doc
      .font("body")
      .fontSize(9)
      .text(`${PRINT_KINDS[record.kind].statusLabel}: ${record.status}`, MARGIN.left + width / 2, 28, {
        width: width / 2,
        align: "right",
        lineBreak: false,
      });
    doc
      .moveTo(MARGIN.left, 42)
      .lineTo(MARGIN.left + width, 42)
      .lineWidth(0.5)
      .strokeColor("#999999")
      .stroke();
    const y = doc.page.height - 38;
    doc
      .font("body")
      .fontSize(8.5)
      .fillColor(GREY)
      .text(generated, MARGIN.left, y, { width: width / 2, lineBreak: false });
    doc.text(`Page ${i - start + 1} of ${count}`, MARGIN.left + width / 2, y, {
      width: width / 2,
      align: "right",
      lineBreak: false,
    });
    doc.page.margins.bottom = bottom;
  }
  doc.end();
  return doc;
}
