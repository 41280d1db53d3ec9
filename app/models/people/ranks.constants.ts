/**
 * The list of ranks' audit record without the schemas: the audit check page (browser) links it
 * without loading zod (docs/decisions/032-pages-at-sea.md); app/models/people/ranks.schema.ts re-exports it.
 */

/** The audit trail's record id of the list of ranks (one record, kind "settings"). */
export const RANKS_RECORD = "00000000-0000-0000-0000-000000000041";
