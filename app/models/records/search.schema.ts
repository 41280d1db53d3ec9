import { z } from "zod";
import { SEARCH_MAX_LENGTH, SEARCH_RANK_LIMIT } from "./search.constants";
import { refuseControlCharacters } from "../shared/text-rules";

/**
 * `q` of GET /api/search and of the /search page: the words, a serial in any usual form, or a name.
 * Control characters are refused like in every other searched text (NUL cannot reach PostgreSQL).
 */
export const searchQuerySchema = z.object({
  q: refuseControlCharacters(
    z
      .string({ error: "Give q, what to search for" })
      .trim()
      .min(1, { error: "Give q, what to search for" })
      .max(SEARCH_MAX_LENGTH, { error: `A search is at most ${SEARCH_MAX_LENGTH} characters` }),
  ),
});

const hit = z.object({
  kind: z.enum(["moc", "pcr", "legacy_moc", "legacy_pcr"]),
  _id: z.uuid(),
  serial_num: z.string(),
  title: z.string().describe("The record's title; empty when it has none."),
  status: z.string(),
  completed: z.boolean().describe("A completed MOC (its status stays its last step's); false for the other kinds."),
  exactSerial: z.boolean().describe("The serial is the one asked for (in any usual form): listed first."),
  excerpt: z
    .array(z.object({ text: z.string(), match: z.boolean() }))
    .describe("A short excerpt as plain-text pieces; `match` pieces are what the query found."),
  link: z.string().describe("The record's page on this site."),
});

const group = z.object({
  total: z.int().describe("Every match the caller may read."),
  ranked: z
    .boolean()
    .describe(
      `The results are the best ranked by relevance; false when the group has more than ${SEARCH_RANK_LIMIT.toLocaleString("en")} matches and they are the newest (exact serials still first).`,
    ),
  results: z.array(hit).describe("The best-ranked matches (the newest when `ranked` is false), at most 20."),
});

/** GET /api/search's `data`. */
export const searchAnswer = z.object({ q: z.string(), mocs: group, pcrs: group, archive: group });
