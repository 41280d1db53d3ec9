import { sql } from "drizzle-orm";
import { getDb } from "~/utils/db.server";

/** Attempts allowed per key and window (clarifications section 2: 10 failures per email per 15 minutes). */
export const LOGIN_FAILURE_LIMIT = 10;
export const LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60;

export type Attempt = { count: number; blocked: boolean; retryAfterSeconds: number };

/**
 * Counts an attempt before it is checked, in one atomic upsert shared by every instance, so a
 * burst of parallel guesses cannot slip past the budget. A successful attempt hands its point
 * back with `clearAttempts`; a failed one keeps it.
 */
export async function consumeAttempt(
  key: string,
  limit = LOGIN_FAILURE_LIMIT,
  windowSeconds = LOGIN_FAILURE_WINDOW_SECONDS,
): Promise<Attempt> {
  const [row] = await getDb().execute<{ points: number; retry: number }>(sql`
    insert into rate_limits (key, points, reset_at)
    values (${key}, 1, now() + make_interval(secs => ${windowSeconds}))
    on conflict (key) do update set
      points = case when rate_limits.reset_at <= now() then 1 else rate_limits.points + 1 end,
      reset_at = case when rate_limits.reset_at <= now()
                      then now() + make_interval(secs => ${windowSeconds}) else rate_limits.reset_at end
    returning points, extract(epoch from (reset_at - now()))::float8 as retry`);
  const count = row?.points ?? 1;
  return { count, blocked: count > limit, retryAfterSeconds: row?.retry ?? windowSeconds };
}

export async function clearAttempts(key: string): Promise<void> {
  await getDb().execute(sql`delete from rate_limits where key = ${key}`);
}
