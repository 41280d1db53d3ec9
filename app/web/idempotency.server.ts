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
 * - Nothing that proves who someone is is kept (docs/decisions/048-replays-keep-no-credentials.md):
 *   the credential routes (sign-in, sign-in links, sign-out, the identity provider, passwords,
 *   unsubscribe links) and any other write that sets a password run unkeyed; an answer that sets a
 *   cookie other than the flash message, or whose JSON holds a token, password or secret, is not
 *   kept; the fingerprint is an HMAC under a key derived from SESSION_SECRET over the canonical
 *   request (JSON keys sorted, form fields sorted), password fields left out.
 */
import { createHash, createHmac, hkdfSync, timingSafeEqual } from "node:crypto";
import { and, eq, lt, sql } from "drizzle-orm";
import { idempotencyKeys } from "#db/schema";
import { getDb, inRequestTransaction } from "~/utils/db.server";
import { DomainError } from "~/utils/errors";
import { sessionSecrets } from "~/utils/token.server";
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

/** The page a request is for: a single-fetch post (`/x.data`, `/_root.data`) is the page's. */
function pagePath(url: URL): string {
  const path = url.pathname;
  if (path === "/_root.data") return "/";
  return path.endsWith(".data") ? path.slice(0, -".data".length) : path;
}

/** The address a request is about (its page, and its query without password-like parameters). */
export function requestPath(url: URL): string {
  const search = new URLSearchParams(url.search);
  search.delete("_routes");
  for (const name of [...search.keys()]) if (isPasswordField(name)) search.delete(name);
  const query = search.toString();
  return query ? `${pagePath(url)}?${query}` : pagePath(url);
}

/**
 * The routes that prove, set or hand out who someone is (decision 048): a keyed write to one runs
 * as it would without a key, and nothing of it is kept. A path is one of them when it is the route
 * or under it (`/auth/oidc/callback`, `/unsubscribe/<token>`).
 */
export const CREDENTIAL_ROUTES = [
  "/login", // a sign-in: its answer is the session (cookie, or the token in JSON); also /login/link
  "/logout",
  "/onboarding", // the first password
  "/profile", // the own password (and the current one to change the email)
  "/api/user", // PATCH: the same, for API clients
  "/api/verify", // checks a password
  "/auth", // the identity provider's sign-in and re-authentication
  "/unsubscribe", // the link's token is its address
] as const;

/** Routes where a password only confirms who signs (app/web/reauth.server.ts): kept, the password left out. */
const REAUTHENTICATING = [/^\/api\/pcr\/signatures$/, /^\/pcrs\/[^/]+$/];

/** The route's path as the router matches it: decoded, any case, without repeated or trailing slashes. */
function routeOf(url: URL): string {
  let path = pagePath(url);
  try {
    path = decodeURIComponent(path);
  } catch {
    // A malformed escape: the router refuses it; compare it as it is.
  }
  return path
    .toLowerCase()
    .replace(/\/{2,}/g, "/")
    .replace(/(.)\/+$/, "$1");
}

export function isCredentialRoute(url: URL): boolean {
  const path = routeOf(url);
  return CREDENTIAL_ROUTES.some((route) => path === route || path.startsWith(`${route}/`));
}

/**
 * A field or key that holds a password: a sign-in's or a signature's, a new one, the current one,
 * its repetition (`confirm`). Left out of every fingerprint; a write that sets one is not kept.
 */
export function isPasswordField(name: string): boolean {
  const last =
    name
      .split(/[.[\]]/)
      .filter(Boolean)
      .pop() ?? name;
  const plain = last.toLowerCase().replace(/[^a-z]/g, "");
  return plain.includes("password") || plain.includes("passwd") || plain === "confirm";
}

/** Whether a parsed body carries a password (a non-empty value under a password-like key, at any depth). */
function carriesPassword(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(carriesPassword);
  if (!value || typeof value !== "object") return false;
  return Object.entries(value).some(([name, inner]) =>
    isPasswordField(name) ? inner !== undefined && inner !== null && inner !== "" : carriesPassword(inner),
  );
}

/** JSON with its keys sorted at every depth and password-like keys left out. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((name) => !isPasswordField(name))
      .sort();
    return `{${keys.map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The fingerprint's keys, one per SESSION_SECRET key (HKDF with this purpose): the first keys new rows. */
const FINGERPRINT_PURPOSE = "idempotency-fingerprint-v1";
const derived = new Map<string, Buffer>();
function fingerprintKeys(): Buffer[] {
  return sessionSecrets().map((secret) => {
    let key = derived.get(secret);
    if (!key) {
      key = Buffer.from(hkdfSync("sha256", secret, "", FINGERPRINT_PURPOSE, 32));
      derived.set(secret, key);
    }
    return key;
  });
}

const fingerprintWith = (key: Buffer, material: Buffer) => createHmac("sha256", key).update(material).digest("hex");

/** Whether a stored fingerprint is this request's, under any of the keys (a rotation keeps replays). */
function sameRequest(stored: string, material: Buffer): boolean {
  const given = Buffer.from(stored);
  return fingerprintKeys().some((key) => {
    const expected = Buffer.from(fingerprintWith(key, material));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}

type Keyed = { key: string | null; request: Request; material: Buffer };

const contentType = (request: Request) =>
  request.headers.get("Content-Type")?.split(";")[0]?.trim().toLowerCase() ?? "";

/**
 * Whether a write may carry a key: an `Idempotency-Key` header, or a page form (its hidden field).
 * Known from the headers alone; a write that cannot carry one runs as it would without this layer.
 */
function mayCarryKey(request: Request, url: URL): boolean {
  return (
    request.headers.get(IDEMPOTENCY_HEADER) !== null || (!isApi(url.pathname) && FORM_TYPES.has(contentType(request)))
  );
}

const unkeyed = (request: Request): Keyed => ({ key: null, request, material: Buffer.alloc(0) });

/** A body as JSON when it is JSON, else undefined. */
function parsedJson(bytes: Uint8Array): unknown {
  if (bytes.byteLength === 0) return undefined;
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The key a write carries and the request to run (its body read once, handed on as bytes), or null
 * when it cannot carry one (its body then unread). `material` is what the fingerprint is the HMAC
 * of: method, address and canonical body, password fields left out. Throws a 400 Response for a
 * malformed key.
 */
async function keyOf(request: Request): Promise<Keyed | null> {
  const url = new URL(request.url);
  const type = contentType(request);
  const header = request.headers.get(IDEMPOTENCY_HEADER);
  if (!mayCarryKey(request, url)) return null;

  const bytes = new Uint8Array(await request.arrayBuffer());
  const copy = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    body: bytes,
  });
  const parts: Buffer[] = [Buffer.from(`${request.method.toUpperCase()} ${requestPath(url)}\n`)];
  const reauthenticating = REAUTHENTICATING.some((route) => route.test(routeOf(url)));
  let key = header;
  if (FORM_TYPES.has(type)) {
    // A form's fields, not its bytes: a browser draws a new multipart boundary for each send.
    let fields: FormData;
    try {
      fields = await copy.clone().formData();
    } catch {
      return unkeyed(copy); // the route answers a malformed form itself
    }
    // A list button of a form (conform's intent: add, remove or move a row) asks for the form back
    // with its rows changed and writes nothing; it carries the form's key all the same, and keyed,
    // its answer would make the save that follows look like a reuse of the key (422).
    if (fields.has(CONFORM_INTENT_FIELD)) return unkeyed(copy);
    const fieldKey = fields.get(IDEMPOTENCY_FIELD);
    if (key === null && typeof fieldKey === "string") key = fieldKey;
    // Sorted by name (a field's repeated values keep their order), passwords left out.
    const entries = [...fields].filter(([name]) => name !== IDEMPOTENCY_FIELD);
    const passwords = entries.filter(([name, value]) => isPasswordField(name) && value !== "");
    if (passwords.length > 0 && !reauthenticating) return unkeyed(copy); // it sets a password
    parts.push(Buffer.from("form\n"));
    for (const [name, value] of entries
      .filter(([name]) => !isPasswordField(name))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      parts.push(Buffer.from(`${name.length}:${name}=`));
      if (typeof value === "string") parts.push(Buffer.from(`s${Buffer.byteLength(value)}:${value}`));
      else {
        const content = createHash("sha256")
          .update(new Uint8Array(await value.arrayBuffer()))
          .digest("hex");
        parts.push(Buffer.from(`f${value.name}|${value.type}|${value.size}|${content}`));
      }
      parts.push(Buffer.from("\n"));
    }
  } else {
    const json = parsedJson(bytes);
    if (json === undefined) parts.push(Buffer.from("bytes\n"), Buffer.from(bytes));
    else {
      if (carriesPassword(json) && !reauthenticating) return unkeyed(copy); // it sets a password
      parts.push(Buffer.from(`json\n${canonicalJson(json)}`));
    }
  }
  if (key === null || key === "") return unkeyed(copy);
  if (!KEY_SHAPE.test(key)) {
    throw refusal(
      url,
      400,
      `The idempotency key is not valid: use 8 to 200 visible ASCII characters (a UUID, say), new for each request`,
    );
  }
  return { key, request: copy, material: Buffer.concat(parts) };
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

/** The one cookie an answer may set and still be kept (never stored itself): a page's flash message. */
const FLASH_COOKIE = "flash";

/** A key of an answer's JSON that holds a credential: a token, a password, a secret. */
const credentialKey = (name: string) => /token|password|passwd|secret/i.test(name);

function holdsCredential(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsCredential);
  if (!value || typeof value !== "object") return false;
  return Object.entries(value).some(([name, inner]) => credentialKey(name) || holdsCredential(inner));
}

/**
 * Whether an answer may be kept (decision 048): not when it sets any cookie but the flash message
 * (the session's, the identity provider's flow), nor when its JSON holds a token, password or secret.
 */
function keepable(response: Response, body: Buffer): boolean {
  const cookies = response.headers.getSetCookie();
  if (cookies.some((cookie) => cookie.split("=", 1)[0]!.trim() !== FLASH_COOKIE)) return false;
  if (/json/i.test(response.headers.get("Content-Type") ?? "")) return !holdsCredential(parsedJson(body));
  return true;
}

async function storable(response: Response): Promise<{ stored: Stored | null; response: Response }> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!NOT_STORED.has(name)) headers[name] = value;
  });
  const stored = keepable(response, body) ? { status: response.status, headers, body: body.toString("base64") } : null;
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
  const url = new URL(request.url);
  // What proves, sets or hands out who someone is is never kept: such a write runs unkeyed.
  if (isCredentialRoute(url)) return handle(request);
  // Nor is a write that cannot carry a key (an /api call without the header: a workflow step, say)
  // looked into: it runs unkeyed without the session lookup here, which the route makes itself.
  if (!mayCarryKey(request, url)) return handle(request);
  const who = await authenticate(request);
  if (!who.ok) return handle(request);
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
  const { key, material } = keyed;
  if (key === null) return handle(keyed.request);
  const fingerprint = fingerprintWith(fingerprintKeys()[0]!, material);
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
        if (!sameRequest(found.fingerprint, material)) return refusal(url, 422, KEY_REUSED_MESSAGE);
        return replay(found);
      }
      const response = await handle(keyed.request);
      if (response.status >= 500) throw new RolledBack(response);
      const { stored, response: answer } = await storable(response);
      const where = and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key));
      // A 4xx changed nothing; an answer that may not be kept leaves no key either (a retry runs again).
      if (response.status >= 400 || !stored) await tx.delete(idempotencyKeys).where(where);
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
