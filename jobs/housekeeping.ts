/**
 * The hourly clean-up (HOUSEKEEPING_CRON): idempotency keys and their answers older than a day
 * (app/web/idempotency.server.ts, docs/decisions/040-replays-apply-once.md). pg-boss fires each
 * tick once across instances; a run removes everything due, so a missed one is made up by the next.
 */
import { purgeIdempotencyKeys } from "~/web/idempotency.server";
import { logger } from "~/utils/logger.server";

export async function runHousekeeping(now = new Date()): Promise<{ idempotencyKeys: number }> {
  const idempotencyKeys = await purgeIdempotencyKeys(now);
  if (idempotencyKeys) logger().info({ idempotencyKeys }, "expired idempotency keys removed");
  return { idempotencyKeys };
}
