/**
 * The daily seal of the audit trail (AUDIT_SEAL_CRON, 00:15 UTC by default): pg-boss fires each
 * tick once across instances, and the seal claims its UTC day in `job_runs` in its own
 * transaction, so a repeated job is a no-op (app/models/ops/audit-seal-day.server.ts).
 */
import { sealAuditTrail, type SealOutcome } from "~/models/ops/audit-seal-day.server";
import { logger } from "~/utils/logger.server";

export async function runAuditSeal(now = new Date()): Promise<SealOutcome> {
  const outcome = await sealAuditTrail(now);
  if (outcome.ran) logger().info(outcome, "audit trail sealed");
  else logger().info({ day: outcome.day }, "audit trail already sealed today");
  return outcome;
}
