/**
 * Keyset paging of the /api lists (docs/decisions/031-api-contract.md): a page is the rows after
 * the last one of the previous page in creation order, newest first (`created_at desc, id desc`:
 * keys no edit changes), so rows created while a client walks the pages land before its position
 * and no row is skipped or repeated. Lists whose whole answer has another order (users by name,
 * the archive by date raised, reviews by year) page in this order too. A list asked without
 * `limit` or `cursor` still answers everything, in its own order.
 */
import { sql, type AnyColumn, type SQL } from "drizzle-orm";

export type Keyset = { at: string; id: string };
export type PageRequest = { limit: number; after: Keyset | null };
export type PageOf<T> = { rows: T[]; next: Keyset | null };

/** The first `limit` of `rows` (read with `limit + 1`), and the key after which the next page starts. */
export function cut<T>(rows: T[], limit: number, keyOf: (row: T) => Keyset): PageOf<T> {
  if (rows.length <= limit) return { rows, next: null };
  const page = rows.slice(0, limit);
  return { rows: page, next: keyOf(page[page.length - 1]!) };
}

/**
 * The condition "after `after`" in the paging order `created_at desc, id desc` of `createdAt` and
 * `id` (columns or SQL of a table alias); `undefined` on the first page.
 */
export function afterKey(createdAt: SQL | AnyColumn, id: SQL | AnyColumn, after: Keyset | null): SQL | undefined {
  return after ? sql`(${createdAt}, ${id}) < (${after.at}::timestamptz, ${after.id}::uuid)` : undefined;
}
