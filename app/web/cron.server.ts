/**
 * Who may start a reminder run (GET /api/auto_reminder): a scheduler holding `CRON_SECRET`
 * (`Authorization: Bearer <CRON_SECRET>`), or an admin's session. Any other bearer value is read
 * as a session token as everywhere else, so a wrong secret is a 401 like a bad token.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { canRunReminders } from "~/models/authz/authz.server";
import { requireIdentity } from "./auth.server";
import { env } from "~/utils/env.server";
import { Forbidden } from "~/utils/errors";

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();

/** True when the request carries the configured CRON_SECRET (compared in constant time). */
export function hasCronSecret(request: Request): boolean {
  const secret = env().CRON_SECRET;
  if (!secret) return false;
  const bearer = request.headers
    .get("Authorization")
    ?.match(/^Bearer\s+(.+)$/i)?.[1]
    ?.trim();
  if (!bearer) return false;
  // Equal-length digests: the comparison time says nothing about the secret or its length.
  return timingSafeEqual(digest(bearer), digest(secret));
}

export async function requireReminderRunner(request: Request): Promise<{ via: "cron" | "session" }> {
  if (hasCronSecret(request)) return { via: "cron" };
  const identity = await requireIdentity(request);
  // A GET that sends email: not from another site's page with the admin's cookie.
  if (identity.via === "cookie" && request.headers.get("Sec-Fetch-Site") === "cross-site") {
    throw new Forbidden("Cross-site requests are not allowed");
  }
  if (!canRunReminders(identity.user)) throw new Forbidden("Only administrators can run the reminders");
  return { via: "session" };
}
