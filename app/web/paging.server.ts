/**
 * `?limit=&cursor=` on the /api lists (app/models/shared/keyset.ts): the query schema (also in the
 * OpenAPI document), the opaque cursor, and the answer with `Link: <...>; rel="next"`.
 */
import { z } from "zod";
import type { Keyset, PageRequest } from "~/models/shared/keyset";
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

/**
 * The cursor: the list's path, its order, the last row's sort values and id, as base64url JSON.
 * It is opaque to clients; one made for another list or another order is refused (400).
 */
const cursorSchema = z.object({
  l: z.string().max(100),
  o: z.string().max(100),
  v: z.array(z.string().max(300).nullable()).min(1).max(4),
  i: z.uuid(),
});

const listOf = (request: Request) => new URL(request.url).pathname;

export const encodeCursor = (list: string, order: string, key: Keyset) =>
  Buffer.from(JSON.stringify({ l: list, o: order, v: key.values, i: key.id })).toString("base64url");

const refuse = (message: string) => new Invalid("The query string is not valid", [{ path: "cursor", message }]);

function decodeCursor(cursor: string, list: string, order: string, size: number): Keyset {
  let parsed: z.infer<typeof cursorSchema>;
  try {
    parsed = cursorSchema.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")));
  } catch {
    throw refuse("Not a cursor this API gave; start again without it");
  }
  if (parsed.l !== list || parsed.o !== order || parsed.v.length !== size) {
    throw refuse("The cursor belongs to another list/order; start again without it, or keep the list's sort and dir");
  }
  return { values: parsed.v, id: parsed.i };
}

/**
 * The page a list request asks for, or null for the whole list (no `limit` and no `cursor`).
 * `order` names the list's order when it has a choice (`raised.desc`), `size` its number of sort
 * values: a cursor of another list (path), order or shape is a 400.
 */
export function readPage(request: Request, order = "", size = 1): PageRequest | null {
  const { limit, cursor } = readQuery(request, pageQuery);
  if (limit === undefined && cursor === undefined) return null;
  return {
    limit: limit ?? DEFAULT_PAGE,
    after: cursor ? decodeCursor(cursor, listOf(request), order, size) : null,
    order,
  };
}

/** `{"data":[...],"status":200}` from JSON texts, with the next page's address when there is one. */
export function pageResponse(request: Request, items: string[], next: Keyset | null, page: PageRequest): Response {
  const headers: Record<string, string> = {
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
  };
  if (next) {
    const url = new URL(request.url);
    url.searchParams.set("limit", String(page.limit));
    url.searchParams.set("cursor", encodeCursor(url.pathname, page.order, next));
    headers.Link = `<${url.pathname}${url.search}>; rel="next"`;
  }
  return new Response(`{"data":[${items.join(",")}],"status":200}`, { status: 200, headers });
}
