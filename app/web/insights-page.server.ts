/** The pages of Insight (/insights, /insights/review): who may open them, as GET /api/insights says. */
import { requireInsightsReader } from "~/models/insights/insights.server";
import { Forbidden } from "~/utils/errors";
import { pageError } from "~/utils/page.server";
import { requirePageUser } from "./auth.server";

/** The signed-in user, or the sign-in redirect; the 403 page unless they may see Insight. */
export async function requireInsightsPageUser(request: Request) {
  const user = await requirePageUser(request);
  try {
    requireInsightsReader(user);
  } catch (error) {
    if (error instanceof Forbidden) pageError(error);
    throw error;
  }
  return user;
}
