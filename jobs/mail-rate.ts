/**
 * The mail API's request rate (docs/decisions/020-batched-email.md). Resend counts requests per
 * API key, and every instance shares the key, so the guarantee is a budget in the database:
 * `mail_api_budget.next_slot` is the earliest time the next request may start, and taking a slot
 * moves it on by one interval in one statement (the row lock orders concurrent takers). In front
 * of it each process keeps its own limiter, so its workers queue up locally instead of all
 * waiting on that row. A 429 pushes the shared slot to the time the provider names, so every
 * instance holds off, not just the one that was told.
 */
import { sql } from "drizzle-orm";
import { getDb } from "#db/client";

/** Slots are spaced a little wider than 1/rate, so timer and network jitter never puts three requests in one second. */
export const RATE_MARGIN = 1.2;

const BUDGET_KEY = "resend";

export function slotIntervalMs(requestsPerSecond: number): number {
  return Math.ceil((1000 / requestsPerSecond) * RATE_MARGIN);
}

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

/** Spaces this process's requests `intervalMs` apart; callers are served in order. */
export class ProcessLimiter {
  #next = 0;
  async take(intervalMs: number): Promise<void> {
    const now = Date.now();
    const slot = Math.max(this.#next, now);
    this.#next = slot + intervalMs;
    await sleep(slot - now);
  }
}

const holder = globalThis as typeof globalThis & { __cmMailLimiter?: ProcessLimiter };
function processLimiter(): ProcessLimiter {
  holder.__cmMailLimiter ??= new ProcessLimiter();
  return holder.__cmMailLimiter;
}

/**
 * Waits for this process's turn, then for a slot of the budget every instance shares. The wait is
 * computed by the database from its own clock, so instances' clocks need not agree.
 */
export async function takeMailSlot(requestsPerSecond: number): Promise<void> {
  const interval = slotIntervalMs(requestsPerSecond);
  await processLimiter().take(interval);
  const [row] = await getDb().execute<{ waitMs: number }>(sql`
    insert into mail_api_budget as b (key, next_slot)
    values (${BUDGET_KEY}, clock_timestamp() + make_interval(secs => ${interval / 1000}))
    on conflict (key) do update
      set next_slot = greatest(b.next_slot, clock_timestamp()) + make_interval(secs => ${interval / 1000})
    returning greatest(0, extract(epoch from (b.next_slot - clock_timestamp())) * 1000
      - ${interval})::float8 as "waitMs"`);
  await sleep(row?.waitMs ?? 0);
}

/** The provider said "not before `ms` from now": no instance starts a request before then. */
export async function holdOffMail(ms: number): Promise<void> {
  await getDb().execute(sql`
    insert into mail_api_budget as b (key, next_slot)
    values (${BUDGET_KEY}, clock_timestamp() + make_interval(secs => ${ms / 1000}))
    on conflict (key) do update
      set next_slot = greatest(b.next_slot, clock_timestamp() + make_interval(secs => ${ms / 1000}))`);
}
