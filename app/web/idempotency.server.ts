/**
 * Replays apply once (docs/decisions/040-replays-apply-once.md, docs/api-contract.md): a write
 * that carries an idempotency key (the `Idempotency-Key` header, on /api and pages alike, or a page
 * form's hidden `idempotencyKey` field, app/components/form.tsx) runs in one transaction with the
 * key: the first answer (status, headers, body; for a page action its redirect) is stored per
 * person and key in that transaction, and the same request again gets that answer without running
 * a second time.
 *
 * - The key row is claimed first (an insert that waits on a concurrent claim of the same key), so
 *   of two concurrent duplicates one runs and the other waits and then gets its answer.
 * - The same key with another request (method, path or body) is refused with 422.
 * - Answers below 400 are kept. A 4xx changed nothing (docs/api-contract.md): the key is released
 *   so the person can correct and send again. A 5xx rolls the whole request back.
 * - Keys are kept 24 hours (`purgeIdempotencyKeys`, run by the hourly job).
 * - Without a signed-in person (the sign-in form) there is nothing to key by: the request runs
 *   as it would without a key. A form's list buttons (conform's intents) write nothing: unkeyed.
 */
import { createHash } from "node:crypto";
import { and, eq, lt, sql } from "drizzle-orm";
import { idempotencyKeys } from "#db/schema";
import { getDb, inRequestTransaction } from "~/utils/db.server";
import { DomainError } from "~/utils/errors";
import { takeUploadSlot, uploadSlotHeldFor } from "./attachment-upload.server";
import { authenticate, type AuthResult } from "./auth.server";

export const IDEMPOTENCY_HEADER = "Idempotency-Key";
/** The page forms' hidden field (app/components/form.tsx keeps the same name). */
export const IDEMPOTENCY_FIELD = "idempotencyKey";
/** How long a key and its answer are kept. */
export const IDEMPOTENCY_TTL_HOURS = 24;
/** The field conform adds when a form's list button (add, remove or move a row) is pressed. */
const CONFORM_INTENT_FIELD = "__intent__";
/** Visible ASCII, 8 to 200 characters: a UUID, 32 hex digits or the like. */
const KEY_SHAPE = /^[\x21-\x7e]{8,200}$/;

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const FORM_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data"]);
/** Headers of an answer that belong to that one response, not to the stored answer. */
const NOT_STORED = new Set([
  "set-cookie",
  "date",
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "etag",
]);

export const KEY_REUSED_MESSAGE =
  "This idempotency key was already used for a different request (another method, address or body); send a new key for a new request";

/** The same refusal on a page: this copy of the form was sent before, from another tab or view. */
export const PAGE_KEY_REUSED_MESSAGE =
  "This copy of the form was already sent, with other contents (from another tab or an earlier view of the page). Nothing was changed. Open the page again and send it from there.";

function isApi(pathname: string): boolean {
  return pathname === "/api" || pathname.startsWith("/api/");
}

/** The address a request is about: a single-fetch post (`/x.data`, `/_root.data`) is the page's. */
export function requestPath(url: URL): string {
  let path = url.pathname;
  if (path === "/_root.data") path = "/";
  else if (path.endsWith(".data")) path = path.slice(0, -".data".length);
  const search = new URLSearchParams(url.search);
  search.delete("_routes");
  const query = search.toString();
  return query ? `${path}?${query}` : path;
}

type Keyed = { key: string | null; request: Request; fingerprint: string };

/**
 * The key a write carries and the request to run (its body read once, handed on as bytes), or null
 * when it cannot carry one (its body then unread). Throws a 400 Response for a malformed key.
 */
async function keyOf(request: Request): Promise<Keyed | null> {
  const url = new URL(request.url);
  const type = request.headers.get("Content-Type")?.split(";")[0]?.trim().toLowerCase() ?? "";
  const header = request.headers.get(IDEMPOTENCY_HEADER);
  const form = !isApi(url.pathname) && FORM_TYPES.has(type);
  if (header === null && !form) return null;

  const bytes = new Uint8Array(await request.arrayBuffer());
  const copy = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    body: bytes,
  });
  const hash = createHash("sha256").update(`${request.method.toUpperCase()} ${requestPath(url)}\n`);
  let key = header;
  if (FORM_TYPES.has(type)) {
    // A form's fields, not its bytes: a browser draws a new multipart boundary for each send.
    let fields: FormData;
    try {
      fields = await copy.clone().formData();
    } catch {
      return { key: null, request: copy, fingerprint: "" }; // the route answers a malformed form itself
    }
    // A list button of a form (conform's intent: add, remove or move a row) asks for the form back
    // with its rows changed and writes nothing; it carries the form's key all the same, and keyed,
    // its answer would make the save that follows look like a reuse of the key (422).
    if (fields.has(CONFORM_INTENT_FIELD)) return { key: null, request: copy, fingerprint: "" };
    const fieldKey = fields.get(IDEMPOTENCY_FIELD);
    if (key === null && typeof fieldKey === "string") key = fieldKey;
    for (const [name, value] of fields) {
      if (name === IDEMPOTENCY_FIELD) continue;
      hash.update(`${name.length}:${name}=`);
      if (typeof value === "string") hash.update(`s${Buffer.byteLength(value)}:`).update(value);
      else {
        const content = createHash("sha256")
          .update(new Uint8Array(await value.arrayBuffer()))
          .digest("hex");
        hash.update(`f${value.name}|${value.type}|${value.size}|${content}`);
      }
      hash.update("\n");
    }
  } else {
    hash.update(bytes);
  }
  if (key === null || key === "") return { key: null, request: copy, fingerprint: "" };
  if (!KEY_SHAPE.test(key)) {
    throw refusal(
      url,
      400,
      `The idempotency key is not valid: use 8 to 200 visible ASCII characters (a UUID, say), new for each request`,
    );
  }
  return { key, request: copy, fingerprint: hash.digest("hex") };
}

function refusal(url: URL, status: number, message: string, extra: Record<string, string> = {}): Response {
  if (isApi(url.pathname)) {
    const body = status === 400 ? { status, message, issues: [{ path: "", message }] } : { status, message };
    return Response.json(body, { status, headers: { ...extra, "Cache-Control": "no-store" } });
  }
  // A page form's key reused: a second view of a page the browser kept (decision 040, "Keys and
  // revalidation"), already sent from another tab. Say what to do, in the person's words.
  const text = escapeHtml(status === 422 ? PAGE_KEY_REUSED_MESSAGE : message);
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not sent</title></head><body><main><h1>Not sent</h1><p>${text}</p><p><a href="${url.pathname}">Open the page again</a> · <a href="/">The dashboard</a></p></main></body></html>`;
  return new Response(html, {
    status,
    headers: { ...extra, "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" },
  });
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** Thrown out of the transaction to roll it back while still answering the response. */
class RolledBack {
  constructor(readonly response: Response) {}
}

type Stored = { status: number; headers: Record<string, string>; body: string };

function replay(stored: Stored): Response {
  const headers = new Headers(stored.headers);
  headers.set("Idempotent-Replayed", "true");
  const body = Buffer.from(stored.body, "base64");
  const empty = stored.status === 204 || stored.status === 304 || body.byteLength === 0;
  return new Response(empty ? null : body, { status: stored.status, headers });
}

async function storable(response: Response): Promise<{ stored: Stored; response: Response }> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!NOT_STORED.has(name)) headers[name] = value;
  });
  const stored = { status: response.status, headers, body: body.toString("base64") };
  const empty = response.status === 204 || response.status === 304 || body.byteLength === 0;
  // The live answer keeps all its own headers (its cookie too).
  return {
    stored,
    response: new Response(empty ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    }),
  };
}

/**
 * Runs `handle` for `request` with the idempotency rules above: the server's one place for them
 * (app/server/request-handler.ts), so every /api route and every page action follows them.
 */
export async function withIdempotency(
  request: Request,
  handle: (request: Request) => Promise<Response>,
): Promise<Response> {
  if (SAFE_METHODS.has(request.method.toUpperCase())) return handle(request);
  // A write another site started is the route's to refuse, never an answer to replay; and without a
  // signed-in person there is nothing to key by. Both are known from the headers: the body is left
  // unread for the route, which may answer before reading it (a sign-in redirect, a cap).
  if (request.headers.get("Sec-Fetch-Site") === "cross-site") return handle(request);
  const who = await authenticate(request);
  if (!who.ok) return handle(request);
  const url = new URL(request.url);
  // A multipart page form is an upload: the person's upload slot is taken before its body is read
  // here, as the route would before reading it (a third at once is a 429, not a wait).
  const multipart = !isApi(url.pathname) && /^multipart\/form-data/i.test(request.headers.get("Content-Type") ?? "");
  let release: (() => void) | null = null;
  let keyed: Keyed | null;
  try {
    if (multipart) release = takeUploadSlot(who.identity.user._id);
    keyed = await keyOf(request);
  } catch (error) {
    release?.();
    if (error instanceof DomainError) return refusal(url, error.status, error.message, error.headers);
    if (error instanceof Response) return error;
    throw error;
  }
  if (release) {
    uploadSlotHeldFor(keyed?.request ?? request);
    try {
      return await keyedRun(request, keyed, who, url, handle);
    } finally {
      release();
    }
  }
  return keyedRun(request, keyed, who, url, handle);
}

async function keyedRun(
  request: Request,
  keyed: Keyed | null,
  who: Extract<AuthResult, { ok: true }>,
  url: URL,
  handle: (request: Request) => Promise<Response>,
): Promise<Response> {
  if (!keyed) return handle(request);
  // Without a key (a form that has none), the route gets the same bytes, read once here.
  const { key, fingerprint } = keyed;
  if (key === null) return handle(keyed.request);
  const userId = who.identity.user._id;
  const method = request.method.toUpperCase();
  const path = requestPath(url);

  try {
    return await inRequestTransaction(async (tx) => {
      // Waits while another request holds the same key, then finds its committed answer.
      const claimed = await tx
        .insert(idempotencyKeys)
        .values({ userId, key, fingerprint, method, path, status: 0, headers: {}, body: "" })
        .onConflictDoNothing()
        .returning({ key: idempotencyKeys.key });
      if (claimed.length === 0) {
        const [found] = await tx
          .select()
          .from(idempotencyKeys)
          .where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key)));
        if (!found) throw new RolledBack(refusal(url, 409, "This request is being sent already; wait for its answer"));
        if (found.fingerprint !== fingerprint) return refusal(url, 422, KEY_REUSED_MESSAGE);
        return replay(found);
      }
      const response = await handle(keyed.request);
      if (response.status >= 500) throw new RolledBack(response);
      const { stored, response: answer } = await storable(response);
      const where = and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key));
      if (response.status >= 400) await tx.delete(idempotencyKeys).where(where);
      else await tx.update(idempotencyKeys).set(stored).where(where);
      return answer;
    });
  } catch (error) {
    if (error instanceof RolledBack) return error.response;
    throw error;
  }
}

/** Removes keys older than a day (the hourly job); returns how many went. */
export async function purgeIdempotencyKeys(now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - IDEMPOTENCY_TTL_HOURS * 3600_000);
  const gone = await getDb()
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, sql`${cutoff.toISOString()}::timestamptz`))
    .returning({ key: idempotencyKeys.key });
  return gone.length;
}
