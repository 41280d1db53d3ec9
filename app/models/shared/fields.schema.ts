/**
 * The input fields every record's schemas share: ids, dates and the length caps of text and rich
 * text. The kinds' schemas (app/models/moc/moc.schema.ts, pcr, archive, review, chat, ...) build
 * on these.
 */
import { z } from "zod";

/** The longest rich text (HTML) a field takes. */
export const MAX_HTML = 100_000;
/** The longest plain text a field takes. */
export const MAX_TEXT = 5_000;

export const uuid = (what = "id") => z.uuid({ error: `Expected a ${what}` });
export const isoDate = z.iso.date({ error: "Expected a date (YYYY-MM-DD)" });
