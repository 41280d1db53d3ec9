/**
 * Year-end reviews as the cross-cutting modules read them (their registry entry,
 * app/models/kinds/review.server.ts): a review loaded for their rules and a batch described for a
 * reader (links, references). Everyone reads them (`canReadRecords`); their writers keep them.
 */
import type { SqlRow } from "#db/schema/rows";
import { sql } from "drizzle-orm";
import type { Executor } from "~/utils/db.server";
import { canReadRecords, canWriteReviews } from "../authz/authz.server";
import { constantSql, describeWith, type LoadedRecord } from "../record-kind/record-kind";

/** A review as the cross-cutting modules read it; null for an unknown one. */
export async function loadReviewRecord(db: Executor, id: string): Promise<LoadedRecord<{ kind: "review" }> | null> {
  const [row] = await db.execute<Pick<SqlRow<"year_end_reviews">, "year" | "title">>(
    sql`select year, title from year_end_reviews where id = ${id}`,
  );
  if (!row) return null;
  return {
    kind: "review",
    id,
    label: `Year-end review ${row.year}`,
    title: row.title,
    path: `/reviews/${id}`,
    status: null,
    access: { kind: "review" },
  };
}

/** Year-end reviews: "Year-end review 2025", its title; read as `canReadRecords` (the review pages' rule). */
export const describeReviews = describeWith(
  (actor, ids) => sql`select r.id::text as id, 'Year-end review ' || r.year as label, r.title,
      '/reviews/' || r.id as path, ${constantSql(canReadRecords(actor))} as readable,
      ${constantSql(canWriteReviews(actor))} as "worksOn"
    from year_end_reviews r where r.id = any(${ids})`,
);
