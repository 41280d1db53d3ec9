/**
 * Every table the database holds is in the Drizzle schema with the same columns, so its row types
 * (db/schema/rows.ts: `Row`, and `SqlRow` for hand-written SQL) say what a query really returns
 * (issue 39, typed data access).
 */
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "#db/schema";
import type { SqlRow, TableName } from "#db/schema/rows";
import { getDb } from "~/utils/db.server";

const tables = (Object.values(schema) as unknown[]).filter((value): value is PgTable => value instanceof PgTable);

// What the types promise, checked by the type check: a column by its SQL name, as text for a
// timestamp; a property name or a table the schema lacks is an error.
type Pcr = SqlRow<"pcrs">;
export const typed: Pick<Pcr, "serial_num" | "created_at" | "party_ids"> = {
  serial_num: "3-2026",
  created_at: "2026-12-07T00:00:00.000Z",
  party_ids: [],
};
// @ts-expect-error a property's name is not the column's
export type NotAColumn = Pcr["serialNum"];
// @ts-expect-error no such table
export const notATable: TableName = "pcr";

describe("the schema's row types", () => {
  it("cover every table of the database, column for column", async () => {
    const rows = await getDb().execute<{ table_name: string; column_name: string }>(sql`
      select c.table_name, c.column_name from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
        and c.table_name not like '\\_\\_drizzle%' escape '\\'
      order by 1, 2`);
    const inDatabase = new Map<string, string[]>();
    for (const row of rows)
      inDatabase.set(row.table_name, [...(inDatabase.get(row.table_name) ?? []), row.column_name]);
    const inSchema = new Map(
      tables.map((table) => {
        const config = getTableConfig(table);
        return [config.name, config.columns.map((c) => c.name).sort()];
      }),
    );
    expect([...inSchema.keys()].sort()).toEqual([...inDatabase.keys()].sort());
    for (const [name, columns] of inDatabase) expect(inSchema.get(name), name).toEqual([...columns].sort());
    expect(inSchema.size).toBeGreaterThanOrEqual(50);
  });
});
