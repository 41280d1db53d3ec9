import { sql } from "drizzle-orm";

/**
 * A constant of the code as an SQL literal, so the query text (and its plan) stays the same. In a
 * module of its own, without imports from the app: the step definitions and four eyes build SQL
 * with it while their modules load, whatever order the app's import cycles load them in.
 */
export const literal = (text: string) => sql.raw(`'${text.replace(/'/g, "''")}'`);
