/**
 * A record's external references as one text, in SQL (issue 42,
 * docs/decisions/057-record-links-and-references.md): "PMS work order WO-1234; Incident INC-7", in
 * the types' order. The CSV exports read it as a column of their one statement (a correlated
 * subquery over the partial index on the record). Alone in this module, without the model's
 * imports, so the export queries read it without an import cycle through the record-kind registry.
 */
import { sql, type SQL } from "drizzle-orm";
import type { RecordRefKind } from "./record-refs.constants";

export const referencesTextSql = (kind: RecordRefKind, recordId: SQL): SQL =>
  sql`coalesce((select string_agg(t.name || ' ' || rr.ref, '; ' order by t.sort, t.name, lower(rr.ref))
    from record_references rr join reference_types t on t.id = rr.type_id
    where rr.record_kind = ${kind} and rr.record_id = ${recordId} and rr.removed_at is null), '')`;
