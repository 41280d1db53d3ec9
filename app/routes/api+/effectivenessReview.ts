import { effectivenessReviewSchema } from "~/models/moc/effectiveness.schema";
import { answerEffectivenessReview } from "~/models/moc/effectiveness.server";
import { requireApiUser } from "~/web/auth.server";
import { apiRoute, ok, readJson } from "~/utils/http.server";

/**
 * A closed MOC's effectiveness review answered (issue 42, docs/decisions/058-effectiveness-review.md):
 * the HSEQ department or an admin, once (201; 409 when answered or when the MOC has none).
 */
const route = apiRoute({
  async POST({ request }) {
    const actor = await requireApiUser(request);
    return ok(await answerEffectivenessReview(actor, await readJson(request, effectivenessReviewSchema)), 201);
  },
});

export const loader = route.loader;
export const action = route.action;
