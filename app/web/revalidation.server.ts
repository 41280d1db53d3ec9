/**
 * Revalidation of pages and loader data (docs/decisions/032-pages-at-sea.md): a `GET` answered
 * with a page (`text/html`) or Remix's loader data (`text/x-script`, single fetch) carries a weak
 * `ETag` computed from its content, and the same request with a matching `If-None-Match` is
 * answered `304 Not Modified` without a body. Pages are already rendered completely before they
 * are answered (app/entry.server.tsx), so reading them here costs no streaming.
 *
 * A page carries a fresh CSP nonce each time; the tag is computed with the nonce left out, and a
 * 304 does not send the new `Content-Security-Policy`, so the browser keeps the policy stored with
 * the body it reuses (whose scripts carry the stored nonce).
 *
 * Its forms carry fresh idempotency keys too (app/components/form.tsx); the tag leaves their values
 * out as well, so an unchanged page is still a 304 and the browser shows the keys it stored. Those
 * are unused unless a form of that very page was sent, and a page sent from changes with the answer
 * (the record it shows, or at least the flash that says what was done), so it comes back as a 200
 * with new keys (docs/decisions/040-replays-apply-once.md).
 */
import { createHash } from "node:crypto";
import { IDEMPOTENCY_FIELD } from "~/components/form";

/** Bodies larger than this are passed on as they stream, without a tag. */
const MAX_TAGGED_BYTES = 4 * 1024 * 1024;
const TAGGED_TYPES = /^(text\/html|text\/x-script)\b/i;
/** Headers that describe a body: not sent with a 304 (RFC 9110 15.4.5), nor the page's new nonce. */
const BODY_HEADERS = ["content-type", "content-length", "content-encoding", "content-security-policy"];

/** The hidden key fields as React renders them: `name="idempotencyKey" value="<32 hex>"`. */
const KEY_VALUES = new RegExp(`(name="${IDEMPOTENCY_FIELD}" value=")[0-9a-f]{32}"`, "g");

function nonceOf(headers: Headers): string | null {
  return /'nonce-([^']+)'/.exec(headers.get("content-security-policy") ?? "")?.[1] ?? null;
}

/** True when an `If-None-Match` list names `etag` (weak comparison, as for GET). */
export function matchesEtag(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const wanted = opaque(etag);
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === wanted);
}

async function readUpTo(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  limit: number,
): Promise<{ chunks: Uint8Array[]; complete: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { chunks, complete: true };
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) return { chunks, complete: false };
  }
}

/** The response unchanged, or tagged, or a 304 when the client already holds the same content. */
export async function withRevalidation(request: Request, response: Response): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") return response;
  if (response.status !== 200 || !response.body || response.headers.has("etag")) return response;
  if (!TAGGED_TYPES.test(response.headers.get("content-type") ?? "")) return response;

  const reader = response.body.getReader();
  const { chunks, complete } = await readUpTo(reader, MAX_TAGGED_BYTES);
  const headers = new Headers(response.headers);
  if (!complete) {
    // Too large to hold: pass it on as it comes, untagged.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
      },
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  }

  const body = Buffer.concat(chunks);
  const nonce = nonceOf(headers);
  const hash = createHash("sha256");
  const text = body.toString("utf8").replace(KEY_VALUES, '$1"');
  hash.update(nonce ? text.replaceAll(nonce, "") : text);
  const etag = `W/"${hash.digest("base64url").slice(0, 27)}"`;
  headers.set("ETag", etag);
  // Stored, but checked with the server before each use.
  if (!headers.has("cache-control")) headers.set("Cache-Control", "private, no-cache");

  if (matchesEtag(request.headers.get("if-none-match"), etag)) {
    for (const name of BODY_HEADERS) headers.delete(name);
    return new Response(null, { status: 304, headers });
  }
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
