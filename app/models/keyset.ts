/**
 * Keyset paging of the /api lists (docs/decisions/031-api-contract.md): a page is the rows after
 * the last one of the previous page in the list's own order (`created_at desc` and the id), so
 * rows created while a client walks the pages land before its position and no row is skipped or
 * repeated. A list asked without `limit` or `cursor` still answers everything.
 */
export type Keyset = { at: string; id: string };
export type PageRequest = { limit: number; after: Keyset | null };
export type PageOf<T> = { rows: T[]; next: Keyset | null };

/** The first `limit` of `rows` (read with `limit + 1`), and the key after which the next page starts. */
export function cut<T>(rows: T[], limit: number, keyOf: (row: T) => Keyset): PageOf<T> {
  if (rows.length <= limit) return { rows, next: null };
  const page = rows.slice(0, limit);
  return { rows: page, next: keyOf(page[page.length - 1]!) };
}
