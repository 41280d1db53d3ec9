import { sql } from "drizzle-orm";
import { getDb } from "~/utils/db.server";

export type LimitState = { blocked: boolean; retryAfterSeconds: number };

/** Failures allowed per key and window (clarifications section 2: 10 per email per 15 minutes). */
export const LOGIN_FAILURE_LIMIT = 10;
export const LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60;

/** Is this key over its budget? Reads only; counting happens in `recordFailure`. */
export async function checkLimit(key: string, limit = LOGIN_FAILURE_LIMIT): Promise<LimitState> {
  const rows = await getDb().execute<{ points: number; retry: number }>(sql`
    select points, extract(epoch from (reset_at - now()))::float8 as retry
    from rate_limits where key = ${key} and reset_at > now()`);
  const row = rows[0];
  if (!row || row.points < limit) return { blocked: false, retryAfterSeconds: 0 };
  return { blocked: true, retryAfterSeconds: row.retry };
}

/** Counts one failure in a fixed window shared by every instance (one atomic upsert). */
export async function recordFailure(key: string, windowSeconds = LOGIN_FAILURE_WINDOW_SECONDS): Promise<void> {
  await getDb().execute(sql`
    insert into rate_limits (key, points, reset_at)
    values (${key}, 1, now() + make_interval(secs => ${windowSeconds}))
    on conflict (key) do update set
      points = case when rate_limits.reset_at <= now() then 1 else rate_limits.points + 1 end,
      reset_at = case when rate_limits.reset_at <= now()
                      then now() + make_interval(secs => ${windowSeconds}) else rate_limits.reset_at end`);
}

export async function clearFailures(key: string): Promise<void> {
  await getDb().execute(sql`delete from rate_limits where key = ${key}`);
}
