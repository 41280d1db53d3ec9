/**
 * Fixed-window budgets in the `rate_limits` table, shared by every instance: the password
 * failure budgets (app/models/people/password-attempts.server.ts), chat posting, sign-in link requests.
 */
import { sql } from "drizzle-orm";
import { getDb } from "~/utils/db.server";
import { RateLimited } from "~/utils/errors";

/** The sign-in failure budget (docs/decisions/001-session-tokens.md: 10 failures per 15 minutes), spent per account and address by app/models/people/password-attempts.server.ts. */
export const LOGIN_FAILURE_LIMIT = 10;
export const LOGIN_FAILURE_WINDOW_SECONDS = 15 * 60;

export type Budget = { limit: number; windowSeconds: number };

/**
 * Spends one point of `key`'s budget in one atomic upsert (parallel requests cannot slip past).
 * Answers whether the point was within the budget and, if not, how long until the window ends.
 */
export async function spendPoint(key: string, budget: Budget): Promise<{ allowed: boolean; retryAfter: number }> {
  const [row] = await getDb().execute<{ points: number; retry: number }>(sql`
    insert into rate_limits (key, points, reset_at)
    values (${key}, 1, now() + make_interval(secs => ${budget.windowSeconds}))
    on conflict (key) do update set
      points = case when rate_limits.reset_at <= now() then 1 else rate_limits.points + 1 end,
      reset_at = case when rate_limits.reset_at <= now() then excluded.reset_at else rate_limits.reset_at end
    returning points, extract(epoch from (reset_at - now()))::float8 as retry`);
  const allowed = row!.points <= budget.limit;
  return { allowed, retryAfter: allowed ? 0 : row!.retry };
}

/** spendPoint, throwing 429 (with Retry-After and `message`) past the budget. */
export async function takePoint(key: string, budget: Budget, message: string): Promise<void> {
  const { allowed, retryAfter } = await spendPoint(key, budget);
  if (!allowed) throw new RateLimited(retryAfter, message);
}
