/**
 * "2026-03-04 09:15 UTC" from an ISO time; a bare date stays a date. Its own module: the PDF
 * worker thread (app/workers/record-pdf.worker.ts) loads it without the rest of the print model.
 */
export function utcText(value: string | null | undefined): string {
  if (!value) return "—";
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
