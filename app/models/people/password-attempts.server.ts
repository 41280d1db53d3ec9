/**
 * The failure budgets every password check spends (sign-in, /api/verify, PCR signing, the
 * profile's password change), docs/security.md:
 *
 * - per account and client address (an IPv6 client's /64): 10 failures in 15 minutes lock that
 *   account *from that address* (the other addresses are not locked out by it);
 * - per account, across addresses: 50 failures in 15 minutes (a guesser spreading over many
 *   addresses). This one can be spent from outside, so the owner always has a way in that needs
 *   no password: a one-time sign-in link by email (app/models/sign-in/sign-in-link.server.ts);
 * - per client address, across accounts: 50 failures in 15 minutes (one password tried against
 *   many accounts).
 *
 * Each attempt is counted before the password is checked, in one atomic upsert of the three
 * `rate_limits` rows shared by every instance, so parallel guesses cannot slip past. Every
 * statement here takes those rows' locks in key order, so parallel sign-ins never deadlock. A right
 * password clears its account-and-address count and hands back its point on the other two.
 */
import { sql } from "drizzle-orm";
import { addressGroup, UNKNOWN_CLIENT } from "~/utils/client-address.server";
import { getDb } from "~/utils/db.server";
import { RateLimited } from "~/utils/errors";
import { LOGIN_FAILURE_LIMIT, LOGIN_FAILURE_WINDOW_SECONDS } from "../shared/rate-limit.server";

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

/** Whose budget an attempt spends: an email as typed (its account, when one has it) or an account id. */
export type PasswordAccount = string | { userId: string };

type BudgetName = keyof typeof PASSWORD_BUDGETS;

const nameOfKey = (key: string): BudgetName | undefined =>
  key.startsWith("login:")
    ? "accountAndAddress"
    : key.startsWith("login-account:")
      ? "account"
      : key.startsWith("login-address:")
        ? "address"
        : undefined;

/**
 * Spends one attempt of `account` from `address` before its password is checked, or throws 429
 * (with Retry-After) when a budget is spent; the password is then not checked at all.
 *
 * The budgets are keyed by the account's id, not its email (docs/decisions/028-untrusted-text-and-sign-in-links.md: changing one's email must
 * not hand out a fresh budget). An email is resolved to its account in the same statement; an
 * email no account has is budgeted under itself, so an unknown address behaves like a known one.
 * The address is the client's network (app/utils/client-address.server.ts `addressGroup`: an
 * IPv6 client by its /64, since one host commonly holds the whole /64).
 */
export async function startPasswordAttempt(account: PasswordAccount, address: string): Promise<PasswordAttempt> {
  const network = addressGroup(address);
  const who =
    typeof account === "string"
      ? sql`coalesce((select 'user:' || u.id::text from users u where u.email = ${account.trim().toLowerCase()}),
          'email:' || ${account.trim().toLowerCase()})`
      : sql`${`user:${account.userId}`}::text`;
  // Without a known address (a process other than the server, app/utils/client-address.server.ts)
  // there is no address budget: it would be one budget for everyone.
  const addressRow =
    address === UNKNOWN_CLIENT
      ? sql``
      : sql`union all select ${`login-address:${network}`}, ${PASSWORD_BUDGETS.address.windowSeconds}::int`;
  const counted = await getDb().execute<{ key: string; points: number; retry: number }>(sql`
    with who as (select ${who} as k),
    wanted(key, secs) as (
      select 'login:' || who.k || '@' || ${network}, ${PASSWORD_BUDGETS.accountAndAddress.windowSeconds}::int from who
      union all select 'login-account:' || who.k, ${PASSWORD_BUDGETS.account.windowSeconds}::int from who
      ${addressRow}
    )
    insert into rate_limits (key, points, reset_at)
    select key, 1, now() + make_interval(secs => secs) from wanted order by key
    on conflict (key) do update set
      points = case when rate_limits.reset_at <= now() then 1 else rate_limits.points + 1 end,
      reset_at = case when rate_limits.reset_at <= now() then excluded.reset_at else rate_limits.reset_at end
    returning key, points, extract(epoch from (reset_at - now()))::float8 as retry`);
  let retryAfter = 0;
  const keys: Partial<Record<BudgetName, string>> = {};
  for (const row of counted) {
    const name = nameOfKey(row.key);
    if (!name) continue;
    keys[name] = row.key;
    if (row.points > PASSWORD_BUDGETS[name].limit) retryAfter = Math.max(retryAfter, row.retry);
  }
  if (retryAfter > 0) throw new RateLimited(retryAfter, TOO_MANY_PASSWORD_FAILURES);
  const others = [keys.account, keys.address].filter((k): k is string => Boolean(k));
  return {
    async succeeded() {
      const cleared = keys.accountAndAddress ?? "";
      const all = [cleared, ...others].map((k) => sql`${k}`);
      // The rows are locked in key order first, the order the upsert above takes them in: one
      // statement deleting one row and updating the others locked them in an order of the
      // planner's choosing, and parallel sign-ins of one account deadlocked (a 500 in CI).
      await getDb().transaction(async (tx) => {
        await tx.execute(
          sql`select 1 from rate_limits where key in (${sql.join(all, sql`, `)}) order by key for update`,
        );
        await tx.execute(sql`delete from rate_limits where key = ${cleared}`);
        if (others.length > 0) {
          await tx.execute(sql`update rate_limits set points = greatest(points - 1, 0)
            where key in (${sql.join(
              others.map((k) => sql`${k}`),
              sql`, `,
            )})`);
        }
      });
    },
  };
}
