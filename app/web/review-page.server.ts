/** The page side of year-end reviews: who may open the forms, loading a review, the people to pick. */
import { z } from "zod";
import { canWriteReviews } from "~/models/authz/authz.server";
import { getReview, type ReviewDocument } from "~/models/review/review.server";
import type { PublicUser } from "~/models/people/user.server";
import { requirePageUserWho } from "./auth.server";
import { NotFound } from "~/utils/errors";
import { activeUserOptions } from "./moc-page.server";
import { pageError, runForPage } from "~/utils/page.server";
import { sanitizeRichText } from "~/utils/sanitize.server";

/** The new and edit pages: admins and the HSEQ department; anyone else gets the 403 page. */
export async function requireReviewWriterPage(request: Request): Promise<PublicUser> {
  return requirePageUserWho(
    request,
    canWriteReviews,
    "Only admins and the HSEQ department can write year-end reviews.",
  );
}

/** A review for a page, its rich text sanitised again on the way out; 404 for an unknown or ill-formed id. */
export async function loadReview(user: PublicUser, id: string | undefined): Promise<ReviewDocument> {
  const parsed = z.uuid().safeParse(id);
  const result = await runForPage(() =>
    parsed.success ? getReview(user, parsed.data) : Promise.reject(new NotFound("No such year-end review")),
  );
  if (!result.ok) pageError(result.error);
  const review = result.value;
  return {
    ...review,
    sections: review.sections.map((s) => ({ heading: s.heading, body: sanitizeRichText(s.body) })),
    effectiveness: sanitizeRichText(review.effectiveness),
    improvements: sanitizeRichText(review.improvements),
    issues: sanitizeRichText(review.issues),
  };
}

/** People to pick: every active user, plus anyone the review already names (even if deactivated since). */
export async function reviewUserOptions(review?: ReviewDocument) {
  const options = await activeUserOptions();
  const listed = new Set(options.map((o) => o._id));
  const named = [...(review?.participants ?? []), ...(review?.actions.map((a) => a.owner) ?? [])];
  for (const person of named) {
    if (person && !listed.has(person._id)) {
      listed.add(person._id);
      options.push({ _id: person._id, name: `${person.name} (deactivated)`, department: person.department });
    }
  }
  return options.sort((a, b) => a.name.localeCompare(b.name));
}

/** An API issue path as the form's field name: `actions.0.owner` -> `actions[0].owner`. */
export const reviewFieldName = (path: string) =>
  path.startsWith("participants") ? "participants" : path.replace(/\.(\d+)(?=\.|$)/g, "[$1]");

export const todayUtc = () => new Date().toISOString().slice(0, 10);
