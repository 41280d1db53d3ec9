/**
 * The management review pack's page, PDF and API (issue 42, docs/decisions/059-management-review-pack.md):
 * the /insights filters read with Insight's schema (the same defaults and 400s), Insight's
 * permission (403), and the one description (app/models/insights/review-pack.server.ts) for all three.
 */
import { insightsQuerySchema, type InsightsFilter } from "~/models/insights/insights.schema";
import { getReviewPack, reviewPackRecord, type ReviewPack } from "~/models/insights/review-pack.server";
import type { PrintRecord } from "~/models/records-out/record-print.server";
import { DomainError } from "~/utils/errors";
import { pageError } from "~/utils/page.server";
import { requireInsightsPageUser } from "./insights-page.server";
import { pdfResponse } from "./record-out.server";

type FilterValues = { from: string; to: string; department: string; vessel: string };

/** The pack's query string for a filter (the page's PDF link, the API's). */
export const reviewPackQuery = (filter: InsightsFilter) =>
  new URLSearchParams({
    from: filter.from,
    to: filter.to,
    ...(filter.department ? { department: filter.department } : {}),
    ...(filter.vessel ? { vessel: filter.vessel } : {}),
  }).toString();

/**
 * The page's reading: the user (403 page unless they may see Insight), the filter's values as
 * typed, and either the pack and its description or the filter's errors by field.
 */
export async function reviewPackForPage(
  request: Request,
): Promise<
  | { ok: true; pack: ReviewPack; record: PrintRecord; values: FilterValues; query: string; reader: string }
  | { ok: false; values: FilterValues; errors: { field: string; message: string }[] }
> {
  const user = await requireInsightsPageUser(request);
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const parsed = insightsQuerySchema.safeParse(params);
  if (!parsed.success) {
    return {
      ok: false,
      values: {
        from: params.from ?? "",
        to: params.to ?? "",
        department: params.department ?? "",
        vessel: params.vessel ?? "",
      },
      errors: parsed.error.issues.map((i) => ({ field: String(i.path[0] ?? ""), message: i.message })),
    };
  }
  const filter = parsed.data;
  const pack = await getReviewPack(user, filter);
  return {
    ok: true,
    pack,
    record: reviewPackRecord(pack),
    values: { from: filter.from, to: filter.to, department: filter.department ?? "", vessel: filter.vessel ?? "" },
    query: reviewPackQuery(filter),
    reader: user._id,
  };
}

/** GET /insights/review/pdf: the same description as a PDF, made on the PDF worker; bad filters 400. */
export async function reviewPackPdfResponse(request: Request): Promise<Response> {
  const read = await reviewPackForPage(request);
  if (!read.ok) pageError(new DomainError(400, read.errors.map((e) => e.message).join("; ")));
  return pdfResponse(request, { record: read.record, reader: read.reader });
}
