/**
 * One circulation's tracking for its print view, PDF and CSV (issue 41): read with the tracking
 * page's own authorization (`circulationTracking`: the same 404/403), every recipient included,
 * and described once (app/models/circulations/circulation-outputs.server.ts).
 */
import { z } from "zod";
import {
  circulationCsv,
  circulationPrintRecord,
  fullCirculationTracking,
} from "~/models/circulations/circulation-outputs.server";
import type { PrintRecord } from "~/models/records-out/record-print.server";
import { NotFound } from "~/utils/errors";
import { pageError, runForPage } from "~/utils/page.server";
import { requirePageUser } from "./auth.server";
import { csvResponse } from "./csv-download.server";
import { pdfResponse } from "./record-out.server";

const NO_SUCH = "There is no such circulation.";

/** The tracking as a printed record, and who reads it (the PDF's one-at-a-time slot is theirs). */
export async function circulationRecordFor(
  request: Request,
  id: string | undefined,
): Promise<{ record: PrintRecord; reader: string }> {
  const user = await requirePageUser(request);
  const circulationId = z.uuid().safeParse(id);
  if (!circulationId.success) pageError(new NotFound(NO_SUCH));
  const tracking = await runForPage(() => fullCirculationTracking(user, circulationId.data));
  if (!tracking.ok) pageError(tracking.error);
  return { record: circulationPrintRecord(tracking.value), reader: user._id };
}

/** GET /circulations/:id/pdf. */
export const circulationPdfResponse = async (request: Request, id: string | undefined) =>
  pdfResponse(request, await circulationRecordFor(request, id));

/** GET /circulations/:id/csv: named after the record and the day ("acknowledgements-MOC-12-2026-2026-12-01.csv"). */
export async function circulationCsvResponse(request: Request, id: string | undefined): Promise<Response> {
  const { record } = await circulationRecordFor(request, id);
  const text = circulationCsv(record);
  return csvResponse(new Blob([text]).stream(), `acknowledgements-${record.serial.replace(/[^A-Za-z0-9-]+/g, "-")}`);
}
