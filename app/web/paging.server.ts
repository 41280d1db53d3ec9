/**
 * `?limit=&cursor=` on the /api lists (app/models/keyset.ts): the query schema (also in the
 * OpenAPI document), the opaque cursor, and the answer with `Link: <...>; rel="next"`.
 */
import { z } from "zod";
import type { Keyset, PageRequest } from "~/models/keyset";
import { Invalid } from "~/utils/errors";
import { readQuery } from "~/utils/http.server";

export const MAX_PAGE = 500;
const DEFAULT_PAGE = 100;

export const pageQuery = z.object({
  limit: z.coerce
    .number({ error: `limit must be a whole number from 1 to ${MAX_PAGE}` })
    .int({ error: `limit must be a whole number from 1 to ${MAX_PAGE}` })
    .min(1, { error: `limit must be a whole number from 1 to ${MAX_PAGE}` })
    .max(MAX_PAGE, { error: `limit must be a whole number from 1 to ${MAX_PAGE}` })
    .optional()
    .meta({ description: `Page size (1 to ${MAX_PAGE}); without limit and cursor the whole list is answered.` }),
  cursor: z
    .string()
    .max(200)
    .optional()
    .meta({ description: 'Where the page starts: the `cursor` of the previous answer\'s `Link: <...>; rel="next"`.' }),
});

const keyset = z.tuple([z.string().regex(/^\d{4}-\d{2}-\d{2}[ T][\d:.]+([+-]\d{2}(:\d{2})?|Z)$/), z.uuid()]);

export const encodeCursor = (key: Keyset) => Buffer.from(JSON.stringify([key.at, key.id])).toString("base64url");

function decodeCursor(cursor: string): Keyset {
  try {
    const [at, id] = keyset.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
    return { at, id };
  } catch {
    throw new Invalid("The query string is not valid", [
      { path: "cursor", message: "Not a cursor this API gave; start again without it" },
    ]);
  }
}

/** The page a list request asks for, or null for the whole list (no `limit` and no `cursor`). */
export function readPage(request: Request): PageRequest | null {
  const { limit, cursor } = readQuery(request, pageQuery);
  if (limit === undefined && cursor === undefined) return null;
  return { limit: limit ?? DEFAULT_PAGE, after: cursor ? decodeCursor(cursor) : null };
}

/** `{"data":[...],"status":200}` from JSON texts, with the next page's address when there is one. */
export function pageResponse(request: Request, items: string[], next: Keyset | null, limit: number): Response {
  const headers: Record<string, string> = {
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
  };
  if (next) {
    const url = new URL(request.url);
    url.searchParams.set("limit", String(limit));
    url.searchParams.set("cursor", encodeCursor(next));
    headers.Link = `<${url.pathname}${url.search}>; rel="next"`;
  }
  return new Response(`{"data":[${items.join(",")}],"status":200}`, { status: 200, headers });
}
