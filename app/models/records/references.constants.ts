/**
 * External references (issue 42, docs/decisions/057-record-links-and-references.md) without the
 * schemas: the record pages (browser) read the limits and the link rule without loading zod
 * (docs/decisions/032-pages-at-sea.md); app/models/records/references.schema.ts re-exports them.
 */

/** The audit trail's record id of the list of reference types (one record, kind "settings"). */
export const REFERENCE_TYPES_RECORD = "00000000-0000-0000-0000-000000000042";

/** A reference's number: at most this long (trimmed, at least one character). */
export const REFERENCE_MAX = 100;
/** A reference type's name. */
export const REFERENCE_TYPE_NAME_MAX = 60;
/** A URL template's length. */
export const REFERENCE_TEMPLATE_MAX = 500;
/** Where a URL template takes the reference's number. */
export const REFERENCE_PLACEHOLDER = "{ref}";

/**
 * A reference's address: its type's template with the number URL-encoded in place of each `{ref}`;
 * null for a type without a template. The one place the link is built (pages, print, API).
 */
export const referenceUrl = (template: string | null, ref: string): string | null =>
  template ? template.split(REFERENCE_PLACEHOLDER).join(encodeURIComponent(ref)) : null;

/** How a reference reads in lists, CSV and print: "PMS work order WO-1234". */
export const referenceText = (reference: { typeName: string; ref: string }) => `${reference.typeName} ${reference.ref}`;
