/**
 * Circulation limits and words without the schemas: the circulation pages (browser) read them
 * without loading zod (docs/decisions/032-pages-at-sea.md: the JavaScript budget);
 * app/models/circulations/circulations.schema.ts re-exports them.
 */

/** The note's and a comment's limit. */
export const CIRCULATION_TEXT_MAX = 2000;
/** Recipients on one page of the tracking (the page and `circulationTracking`'s default). */
export const RECIPIENTS_PAGE_SIZE = 50;
/** The largest page a caller may ask for. */
export const MAX_CIRCULATION_PAGE = 500;

/** A recipient's state in words (the pages, CSV, print and PDF; "left the vessel", not overdue). */
export const RECIPIENT_STATE_WORDS = {
  acknowledged: "Acknowledged",
  waiting: "Waiting",
  overdue: "Overdue",
  left: "Left the vessel",
} as const;
