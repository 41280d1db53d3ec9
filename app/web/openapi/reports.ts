/**
 * Insight, year-end reviews and the daily reminder run.
 * Part of the OpenAPI description of /api (app/web/openapi.server.ts, docs/decisions/031-api-contract.md).
 */
import { z } from "zod";
import { insightsAnswer, reminderRunAnswer, reviewAnswer, reviewPackAnswer } from "~/web/openapi/answers.schema";
import { idQuery } from "~/models/moc/moc.schema";
import { reviewBodySchema, reviewUpdateSchema } from "~/models/review/review.schema";
import { insightsApiQuery, insightsQuerySchema } from "~/models/insights/insights.schema";
import { okOf, type Operations } from "./operation";

export const REPORT_OPERATIONS: Operations = {
  "/api/insights": {
    get: {
      summary: "The /insights figures for a period and department (admins, HSEQ, full access).",
      description: "Or one table as CSV with format=csv&table=<id>.",
      query: insightsApiQuery,
      ok: okOf(insightsAnswer),
      csv: z.object({}),
    },
  },
  "/api/reviewPack": {
    get: {
      summary:
        "The management review pack: the /insights figures for a period, vessel and department with the MOCs behind each (admins, HSEQ, full access).",
      description:
        "The same figures as /api/insights (the same statements), plus the bottleneck step and, per figure, at most 10 MOCs (newest first) and how many more; /insights/review is the page and /insights/review/pdf the PDF.",
      query: insightsQuerySchema,
      ok: okOf(reviewPackAnswer),
    },
  },
  "/api/year-end-review": {
    get: {
      summary: "Every year-end review, or one with `id`.",
      description:
        "Without `id`: the whole list by year, a page with `limit`/`cursor` (newest review first), or the list as CSV.",
      query: idQuery("review id").partial(),
      ok: okOf(z.union([reviewAnswer, z.array(reviewAnswer)])),
      csv: z.object({}),
      paged: true,
      errors: [404],
    },
    post: {
      summary: "Creates a year-end review (admins and HSEQ).",
      body: reviewBodySchema,
      ok: okOf(reviewAnswer),
      errors: [409],
    },
    put: {
      summary:
        "Changes the fields sent of a year-end review (admins and HSEQ); the others are kept. `moc_summary` left out is kept (counted again when `year` changes), null is counted again.",
      query: idQuery("review id"),
      body: reviewUpdateSchema,
      ok: okOf(reviewAnswer),
      errors: [404, 409],
    },
  },
  "/api/auto_reminder": {
    get: {
      summary: "Runs today's reminders (Bearer CRON_SECRET, or an admin session).",
      ok: reminderRunAnswer,
    },
  },
};
