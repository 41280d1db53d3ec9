/**
 * Every table's row type, from the Drizzle schema (issue 39: typed data access).
 *
 * - `Row<"mocs">`: a row as Drizzle's query builder returns it (`$inferSelect`: its properties'
 *   names, timestamps as Date).
 * - `SqlRow<"mocs">`: a row as hand-written SQL returns it through `db.execute` (the columns'
 *   own snake_case names; timestamps and dates as text, since the postgres.js driver Drizzle sets
 *   up hands them over unparsed). Raw SQL is kept where it is the better tool (a prepared step
 *   move, search, a keyed chain append); its result is typed with `Pick<SqlRow<"...">, ...>` and the
 *   computed columns beside it, so a renamed or retyped column fails the type check.
 *
 * Keyed by the table's SQL name, which is what the SQL beside it says.
 */
import type { PgTable } from "drizzle-orm/pg-core";
import type * as schema from "./index";

type Schema = typeof schema;
type TableOf<Name extends string> = {
  [K in keyof Schema]: Schema[K] extends PgTable & { _: { name: Name } } ? Schema[K] : never;
}[keyof Schema];

/** The SQL names of the schema's tables. */
export type TableName = {
  [K in keyof Schema]: Schema[K] extends PgTable ? Schema[K]["_"]["name"] : never;
}[keyof Schema];

/** A row of the table as the query builder returns it. */
export type Row<Name extends TableName> = TableOf<Name>["$inferSelect"];
/** A row of the table as the query builder inserts it. */
export type NewRow<Name extends TableName> = TableOf<Name>["$inferInsert"];

/** A value as raw SQL hands it over: dates and timestamps as text. */
type AsSql<V> = V extends Date ? string : V;

type Columns<Name extends TableName> = TableOf<Name>["_"]["columns"];

/** A row of the table as hand-written SQL selecting its columns returns it, by the columns' SQL names. */
export type SqlRow<Name extends TableName> = {
  [C in keyof Columns<Name> & keyof Row<Name> as Columns<Name>[C]["_"]["name"]]: AsSql<Row<Name>[C]>;
};
