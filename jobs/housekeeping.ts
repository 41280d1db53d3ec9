/**
 * The hourly clean-up (HOUSEKEEPING_CRON): idempotency keys and their answers older than a day
 * (app/web/idempotency.server.ts) and resumable uploads past their lifetime from creation
 * (app/models/records/resumable-uploads.server.ts), docs/decisions/040-replays-apply-once.md. pg-boss fires
 * each tick once across instances; a run removes everything due, so a missed one is made up by the next.
 */
import { removeAbandonedUploads } from "~/models/records/resumable-uploads.server";
import { purgeIdempotencyKeys } from "~/web/idempotency.server";
import { logger } from "~/utils/logger.server";

export async function runHousekeeping(now = new Date()): Promise<{ idempotencyKeys: number; uploads: number }> {
  const idempotencyKeys = await purgeIdempotencyKeys(now);
  const uploads = await removeAbandonedUploads(now);
  if (idempotencyKeys || uploads)
    logger().info({ idempotencyKeys, uploads }, "expired keys and abandoned uploads removed");
  return { idempotencyKeys, uploads };
}
