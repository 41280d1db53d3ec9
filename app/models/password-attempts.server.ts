/**
 * The failure budgets every password check spends (sign-in, /api/verify, PCR signing, the
 * profile's password change), docs/security.md:
 *
 * - per account and client address: 10 failures in 15 minutes lock that account *from that
 *   address* (the other addresses are not locked out by it, so nobody can lock an account out
 *   from anywhere);
 * - per account, across addresses: 50 failures in 15 minutes (a guesser spreading over many
 *   addresses);
 * - per client address, across accounts: 50 failures in 15 minutes (one password tried against
 *   many accounts).
 *
 * Each attempt is counted before the password is checked, in one atomic upsert of the three
 * `rate_limits` rows shared by every instance, so parallel guesses cannot slip past. A right
 * password clears its account-and-address count and hands back its point on the other two.
 */
import { sql } from "drizzle-orm";
import { UNKNOWN_CLIENT } from "~/utils/client-address.server";
import { getDb } from "~/utils/db.server";
import { RateLimited } from "~/utils/errors";
import { LOGIN_FAILURE_LIMIT, LOGIN_FAILURE_WINDOW_SECONDS } from "./rate-limit.server";

export const PASSWORD_BUDGETS = {
  accountAndAddress: { limit: LOGIN_FAILURE_LIMIT, windowSeconds: LOGIN_FAILURE_WINDOW_SECONDS },
  account: { limit: 50, windowSeconds: LOGIN_FAILURE_WINDOW_SECONDS },
  address: { limit: 50, windowSeconds: LOGIN_FAILURE_WINDOW_SECONDS },
} as const;

export const TOO_MANY_PASSWORD_FAILURES = "Too many failed password attempts; try again later";

export type PasswordAttempt = {
  /** The password was right: clear this account's count for this address, return the other points. */
  succeeded: () => Promise<void>;
};

const keysFor = (account: string, address: string) => {
  const who = account.trim().toLowerCase();
  return {
    accountAndAddress: `login:${who}@${address}`,
    account: `login-account:${who}`,
    address: `login-address:${address}`,
  };
};

/**
 * Spends one attempt of `account` (an email) from `address` before its password is checked, or
 * throws 429 (with Retry-After) when a budget is spent; the password is then not checked at all.
 */
export async function startPasswordAttempt(account: string, address: string): Promise<PasswordAttempt> {
  const keys = keysFor(account, address);
  // Without a known address (a process other than the server, app/utils/client-address.server.ts)
  // there is no address budget: it would be one budget for everyone.
  const names = (Object.keys(keys) as (keyof typeof keys)[]).filter(
    (name) => name !== "address" || address !== UNKNOWN_CLIENT,
  );
  const rows = sql.join(
    names.map(
      (name) => sql`(${keys[name]}, 1, now() + make_interval(secs => ${PASSWORD_BUDGETS[name].windowSeconds}))`,
    ),
    sql`, `,
  );
  const counted = await getDb().execute<{ key: string; points: number; retry: number }>(sql`
    insert into rate_limits (key, points, reset_at) values ${rows}
    on conflict (key) do update set
      points = case when rate_limits.reset_at <= now() then 1 else rate_limits.points + 1 end,
      reset_at = case when rate_limits.reset_at <= now() then excluded.reset_at else rate_limits.reset_at end
    returning key, points, extract(epoch from (reset_at - now()))::float8 as retry`);
  let retryAfter = 0;
  for (const row of counted) {
    const name = names.find((n) => keys[n] === row.key);
    if (name && row.points > PASSWORD_BUDGETS[name].limit) retryAfter = Math.max(retryAfter, row.retry);
  }
  if (retryAfter > 0) throw new RateLimited(retryAfter, TOO_MANY_PASSWORD_FAILURES);
  return {
    async succeeded() {
      await getDb().execute(sql`
        with cleared as (delete from rate_limits where key = ${keys.accountAndAddress})
        update rate_limits set points = greatest(points - 1, 0) where key in (${keys.account}, ${keys.address})`);
    },
  };
}
