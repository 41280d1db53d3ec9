/**
 * Rules for text people type that other people then read as an identity: a person's name, a file
 * name, a record's title (docs/decisions/028-untrusted-text-and-sign-in-links.md). Shared by the
 * zod schemas of the API, the pages and their browser-side validation, and by the upload path.
 */
import { z } from "zod";
import { CONTROL_CHARACTERS } from "./control-characters";

/**
 * Bidirectional formatting characters: the embeddings and overrides (U+202A-U+202E), the isolates
 * (U+2066-U+2069) and the invisible direction marks (U+200E, U+200F, U+061C). An override makes
 * `Invoice‮fdp.exe` read as `Invoiceexe.pdf` and lets one name pass for another; a mark is invisible
 * and makes two equal-looking names differ. Right-to-left scripts themselves are welcome: their
 * letters carry their direction, and browsers lay them out without these characters.
 */
export const BIDI_CONTROL = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

export const hasBidiControl = (text: string) => BIDI_CONTROL.test(text);

/** The one message for a refused bidirectional control, naming the field (`Name`, `The title`). */
export const bidiControlMessage = (what: string) =>
  `${what} must not contain right-to-left overrides or other invisible direction characters (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C)`;

/** `schema` (a string schema), refusing bidirectional controls with a message naming `what`. */
export const withoutBidiControls = <S extends z.ZodType<string, unknown>>(schema: S, what: string) =>
  schema.refine((text) => !hasBidiControl(text), { error: bidiControlMessage(what) });

// ---------------------------------------------------------------------------------------------
// Search text

/** C0 and C1 control characters and DEL: NUL cannot reach PostgreSQL text, the others are never typed. */
const CONTROL = new RegExp(CONTROL_CHARACTERS.source);

/** Whether `text` holds a C0 or C1 control character or DEL (a file name: app/models/records/attachments.server.ts). */
export const hasControlCharacter = (text: string) => CONTROL.test(text);

export const SEARCH_MAX = 200;
export const SEARCH_CONTROL_MESSAGE =
  "Search text must not contain control characters (such as NUL, tab or line breaks)";

/**
 * `schema` (an optional string of a query string that is searched for: the user directory's
 * `search`, the admin outbox's recipient) refusing control characters with SEARCH_CONTROL_MESSAGE.
 */
export const refuseControlCharacters = <S extends z.ZodType<string | undefined, unknown>>(schema: S) =>
  schema.refine((text) => text === undefined || !CONTROL.test(text), { error: SEARCH_CONTROL_MESSAGE });

/**
 * The `q` of a list's query string (the pages /mocs, /pcrs, /archive/* and the list endpoints of
 * /api): control characters are refused (400 with SEARCH_CONTROL_MESSAGE); an over-long search is
 * dropped, as any other malformed filter of these lists is.
 */
export const searchQuerySchema = z
  .string()
  .optional()
  .catch(undefined)
  .refine((q) => q === undefined || !CONTROL.test(q), { error: SEARCH_CONTROL_MESSAGE })
  .transform((q) => (q !== undefined && q.length <= SEARCH_MAX ? q : undefined));
