/**
 * Keyset paging of the /api lists (docs/decisions/031-api-contract.md): a page is the rows after
 * the last one of the previous page in the list's order, so a row is never skipped or repeated
 * however the rows before the position change. The cursor (app/web/paging.server.ts) carries the
 * list, its order, and the last row's sort values and id.
 *
 * Most lists page newest first (`created_at desc, id desc`: keys no edit changes, so rows created
 * while a client walks the pages land before its position); a list with a choice of order (the
 * archive, the MOC lists: `sort`, `dir`) pages in the order asked for, described by `SortKey`s,
 * which also write its `order by`, so the whole list, its pages and its CSV share one order.
 */
import { sql, type AnyColumn, type SQL } from "drizzle-orm";

/** The last row of a page: its sort values (as text, null for a null) and its id. */
export type Keyset = { values: (string | null)[]; id: string };
export type PageRequest = {
  limit: number;
  after: Keyset | null;
  /** The order the pages follow (`raised.desc`, `newest`; "" for the fixed one), kept in the cursor. */
  order: string;
};
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
  return after ? sql`(${createdAt}, ${id}) < (${after.values[0] ?? null}::timestamptz, ${after.id}::uuid)` : undefined;
}

/**
 * One key of a list's order: an expression, the PostgreSQL type its value is read back as, and
 * its direction. Nulls sort last either way.
 */
export type SortKey = {
  sql: SQL;
  type: "date" | "timestamptz" | "int" | "numeric" | "text" | "boolean";
  desc: boolean;
};

/** `order by` for `keys` and then the row's `id` (ascending unless `idDesc`): unique, so pages never overlap. */
export function orderBy(keys: SortKey[], id: SQL, idDesc = false): SQL {
  return sql.join(
    [
      ...keys.map((k) => sql`${k.sql} ${sql.raw(k.desc ? "desc" : "asc")} nulls last`),
      sql`${id} ${sql.raw(idDesc ? "desc" : "asc")}`,
    ],
    sql`, `,
  );
}

/** The keys' values of a row as text, to select beside it (`_k0`, `_k1`, ...) for the next cursor. */
export const sortValues = (keys: SortKey[]): SQL =>
  sql.join(
    keys.map((k, i) => sql`(${k.sql})::text as ${sql.identifier(`_k${i}`)}`),
    sql`, `,
  );

/** A selected row's sort values (`sortValues`) and id as the key of the next page. */
export const keyOfRow = (keys: SortKey[], row: Record<string, unknown>, id: string): Keyset => ({
  values: keys.map((_k, i) => (row[`_k${i}`] ?? null) as string | null),
  id,
});

/**
 * The rows after `after` in `orderBy(keys, id, idDesc)`: strictly later on the first key that
 * differs, nulls last. Undefined on the first page; a cursor with the wrong number of values is
 * refused by the caller before this (app/web/paging.server.ts).
 */
export function afterSorted(keys: SortKey[], id: SQL, after: Keyset | null, idDesc = false): SQL | undefined {
  if (!after) return undefined;
  const later = (i: number): SQL => {
    if (i === keys.length) return sql`${id} ${sql.raw(idDesc ? "<" : ">")} ${after.id}::uuid`;
    const k = keys[i]!;
    const value = after.values[i] ?? null;
    if (value === null) return sql`(${k.sql} is null and ${later(i + 1)})`;
    const typed = sql`${value}::${sql.raw(k.type)}`;
    return sql`(${k.sql} is null or ${k.sql} ${sql.raw(k.desc ? "<" : ">")} ${typed} or (${k.sql} = ${typed} and ${later(i + 1)}))`;
  };
  return later(0);
}
