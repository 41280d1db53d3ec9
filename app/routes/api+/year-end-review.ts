import { idQuery } from "~/models/moc/moc.schema";
import { reviewBodySchema, reviewUpdateSchema } from "~/models/review/review.schema";
import {
  createReview,
  getReview,
  listReviews,
  listReviewsPage,
  requireReviewWriter,
  updateReview,
} from "~/models/review/review.server";
import { reviewsCsv } from "~/models/review/review.server";
import { requireApiUser } from "~/web/auth.server";
import { csvResponse, wantsCsv } from "~/web/csv-download.server";
import { pageResponse, readPage } from "~/web/paging.server";
import { apiRoute, ok, readJson, readQuery } from "~/utils/http.server";

const optionalId = idQuery("review id").partial();
const requiredId = idQuery("review id");

const route = apiRoute({
  async GET({ request }) {
    const actor = await requireApiUser(request);
    const { id } = readQuery(request, optionalId);
    if (id) return ok(await getReview(actor, id));
    // `format=csv` or `Accept: text/csv`: the list as CSV, one row per review.
    if (wantsCsv(request)) return csvResponse(reviewsCsv(actor), "year-end-reviews");
    const page = readPage(request);
    if (page) {
      const { rows, next } = await listReviewsPage(actor, page);
      return pageResponse(
        request,
        rows.map((row) => JSON.stringify(row)),
        next,
        page,
      );
    }
    return ok(await listReviews(actor));
  },
  async POST({ request }) {
    const actor = await requireApiUser(request);
    requireReviewWriter(actor);
    return ok(await createReview(actor, await readJson(request, reviewBodySchema)));
  },
  async PUT({ request }) {
    const actor = await requireApiUser(request);
    requireReviewWriter(actor);
    const { id } = readQuery(request, requiredId);
    return ok(await updateReview(actor, id, await readJson(request, reviewUpdateSchema)));
  },
});

export const loader = route.loader;
export const action = route.action;
