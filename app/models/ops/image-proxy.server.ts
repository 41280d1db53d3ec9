/**
 * The image proxy (GET /api/proxy, docs/decisions/009-image-proxy.md), safe against server-side request
 * forgery:
 *
 * - Addresses are checked where the socket is opened: the undici Agent's `connect` resolves the
 *   host itself, refuses the connection when any resolved address is not public unicast, and then
 *   connects to the address it checked. DNS cannot answer one thing to a check and another to the
 *   connection (rebinding), and IP literals go through the same check. (WHATWG URL parsing has
 *   already turned `2130706433`, `0x7f000001` and `0177.0.0.1` into `127.0.0.1`.)
 * - `host:port` pairs in IMAGE_PROXY_ALLOWED_HOSTS skip the address check (tests, intranet hosts).
 * - Redirects are followed by hand, at most 3, each one a new request through the same checks.
 * - One deadline for the whole fetch; only png, jpeg, gif, webp and avif pass, by Content-Type and
 *   by their first bytes; then the body streams to the client, counted and cut at 10 MiB, never
 *   held whole in memory.
 * - At most IMAGE_PROXY_MAX_PER_USER fetches per user and IMAGE_PROXY_MAX_CONCURRENT in all run at
 *   once in a process (each until its body is passed on); more answer 429.
 * - Nothing of the caller's request is forwarded: no cookies, no Authorization, a plain User-Agent.
 */
import { z } from "zod";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { Agent, buildConnector, request, type Dispatcher } from "undici";
import { env } from "~/utils/env.server";
import { DomainError, Invalid } from "~/utils/errors";
import { acquireProxySlot } from "./image-proxy-slots.server";

/** GET /api/proxy's query. */
export const proxyQuery = z.object({
  url: z.string({ error: "url is required" }).trim().min(1, "url is required").max(4096, "url is too long"),
});

export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
export const MAX_REDIRECTS = 3;
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

const USER_AGENT = "ChangeManagement-ImageProxy/1.0";
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** A refusal with its HTTP status: 403 refused address, 415 not an image, 502 upstream, 504 timeout. */
export class ProxyError extends DomainError {}

/** Thrown inside the connector; carries the reason out of undici to `fetchImage`. */
class RefusedAddress extends Error {
  constructor(
    readonly host: string,
    readonly range: string,
  ) {
    super(`${host} resolves to a ${range} address`);
  }
}

// ---------------------------------------------------------------------------------------------
// Addresses

/**
 * Which range an address is in, and whether the proxy may connect to it: only public unicast.
 * Loopback, private, link-local, multicast, unspecified, broadcast, carrier-grade NAT, reserved,
 * unique-local, NAT64, 6to4, Teredo and the rest of ipaddr.js's special ranges are refused;
 * IPv4-mapped IPv6 is judged by its IPv4 address, and IPv4-compatible IPv6 (::a.b.c.d) is refused.
 */
export function classifyAddress(address: string): { allowed: boolean; range: string } {
  // A zone id (fe80::1%eth0) does not change the range.
  const bare = address.replace(/%.*$/, "");
  const kind = isIP(bare);
  if (!kind) return { allowed: false, range: "invalid" };
  // ipaddr.js reads the dotted tail of "::127.0.0.1" as IPv4-mapped; the WHATWG serialisation
  // ("::7f00:1") is unambiguous.
  const ip = ipaddr.parse(kind === 6 ? new URL(`http://[${bare}]/`).hostname.slice(1, -1) : bare);
  if (ip.kind() === "ipv6") {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) {
      const range = v6.toIPv4Address().range();
      return range === "unicast" ? { allowed: true, range } : { allowed: false, range: `ipv4Mapped ${range}` };
    }
    const range = v6.range();
    if (range === "unicast" && v6.parts.slice(0, 6).every((part) => part === 0)) {
      return { allowed: false, range: "ipv4Compatible" };
    }
    return { allowed: range === "unicast", range };
  }
  const range = ip.range();
  return { allowed: range === "unicast", range };
}

/** `host:port` as the allowlist writes it: lower case, IPv6 in brackets, default ports filled in. */
export function hostKey(hostname: string, port: string | number, protocol: string): string {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  const p = String(port || (protocol === "https:" ? 443 : 80));
  return `${isIP(host) === 6 ? `[${host}]` : host}:${p}`;
}

export function parseAllowedHosts(value: string | undefined): Set<string> {
  const hosts = new Set<string>();
  for (const entry of (value ?? "").split(",")) {
    const trimmed = entry.trim().toLowerCase();
    if (!trimmed) continue;
    // Through the URL parser, so `[::1]:80`, `LOCALHOST:8080` and `127.1:80` match what requests use.
    try {
      const url = new URL(`http://${trimmed}`);
      if (url.port) hosts.add(hostKey(url.hostname, url.port, "http:"));
      else if (/:80$/.test(trimmed)) hosts.add(hostKey(url.hostname, 80, "http:"));
    } catch {
      // An unreadable entry allows nothing.
    }
  }
  return hosts;
}

/** Resolves `hostname` and returns an address safe to connect to, or throws RefusedAddress. */
async function checkedAddress(hostname: string): Promise<string> {
  const addresses = isIP(hostname)
    ? [hostname]
    : (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);
  if (addresses.length === 0) throw new RefusedAddress(hostname, "unresolvable");
  for (const address of addresses) {
    const { allowed, range } = classifyAddress(address);
    if (!allowed) throw new RefusedAddress(hostname, range);
  }
  return addresses[0]!;
}

/** An undici dispatcher whose every new connection goes to a checked address. */
function guardedAgent(allowedHosts: Set<string>, timeoutMs: number): Agent {
  const connectTo = buildConnector({ timeout: timeoutMs });
  return new Agent({
    // No keep-alive (pipelining 0): every request, each redirect hop included, opens a connection
    // of its own through the check below. The agent is destroyed after the fetch.
    connections: 1,
    pipelining: 0,
    connect(options, callback) {
      const { hostname, port, protocol } = options;
      if (allowedHosts.has(hostKey(hostname, port, protocol))) {
        connectTo(options, callback);
        return;
      }
      checkedAddress(hostname).then(
        // `host` stays the name, so TLS still sends it as SNI and checks the certificate against it.
        (address) => connectTo({ ...options, hostname: address }, callback),
        (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
      );
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Content

/** The image type its first bytes show, or null. */
export function sniffImageType(bytes: Uint8Array): ImageType | null {
  const ascii = (from: number, to: number) => Buffer.from(bytes.subarray(from, to)).toString("latin1");
  if (bytes.length >= 8 && ascii(0, 8) === "\x89PNG\r\n\x1a\n") return "image/png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (bytes.length >= 6 && (ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a")) return "image/gif";
  if (bytes.length >= 12 && ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  if (bytes.length >= 12 && ascii(4, 8) === "ftyp") {
    // The ftyp box: major brand, minor version, then compatible brands, 4 bytes each.
    const boxSize = Math.min(Buffer.from(bytes.subarray(0, 4)).readUInt32BE(0), bytes.length);
    const brands = [ascii(8, 12)];
    for (let at = 16; at + 4 <= boxSize; at += 4) brands.push(ascii(at, at + 4));
    if (brands.some((brand) => brand === "avif" || brand === "avis")) return "image/avif";
  }
  return null;
}

const mediaType = (header: string | string[] | undefined) =>
  (Array.isArray(header) ? header[0] : header)?.split(";")[0]?.trim().toLowerCase() ?? "";

// ---------------------------------------------------------------------------------------------
// The fetch

export type ProxyOptions = {
  timeoutMs?: number;
  allowedHosts?: Set<string>;
  maxBytes?: number;
  /** Whose fetch this is, for the per-user limit. */
  userId?: string;
};

/** The image: its type, its length when the server declared it, and the body as it streams. */
export type ProxiedImage = { contentType: ImageType; length: number | null; body: ReadableStream<Uint8Array> };

/** What is read before the type is judged: enough for every signature sniffImageType knows. */
const SNIFF_BYTES = 256;

/** The client's `url`, or 400: absolute http(s), no credentials. */
export function parseImageUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Invalid("url is not a valid absolute URL", [
      { path: "url", message: "Expected an absolute http(s) URL" },
    ]);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Invalid("Only http and https URLs can be proxied", [{ path: "url", message: "Expected http or https" }]);
  }
  if (url.username || url.password) {
    throw new Invalid("URLs with credentials cannot be proxied", [
      { path: "url", message: "Remove the user:password@" },
    ]);
  }
  url.hash = "";
  return url;
}

/**
 * One answer for a host that resolves to a refused address and a host that does not resolve:
 * otherwise the proxy tells anyone signed in which internal names exist (a DNS oracle).
 */
export const HOST_REFUSED = "The image host is not allowed or could not be found";

function failure(error: unknown, deadline: AbortSignal): ProxyError {
  if (error instanceof ProxyError) return error;
  if (error instanceof RefusedAddress) return new ProxyError(403, HOST_REFUSED);
  if (deadline.aborted) return new ProxyError(504, "The image server did not answer in time");
  const code = (error as { code?: string } | null)?.code;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "ENODATA") return new ProxyError(403, HOST_REFUSED);
  return new ProxyError(502, "The image could not be fetched from its server");
}

/**
 * Drops a response body unread. undici's body emits an AbortError when destroyed; without a
 * listener that error would be an uncaught exception that takes the process down.
 */
function discard(body: Dispatcher.ResponseData["body"]): void {
  body.on("error", () => {});
  body.destroy();
}

const tooLarge = () => new ProxyError(502, "The image is larger than 10 MiB");

/**
 * The body from its first bytes on, as a stream counted against `maxBytes` whatever Content-Length
 * said (or did not say): past it the stream errors, and the client's answer is cut short. `done`
 * runs once, when the body ended, failed or was cancelled.
 */
function streamBody(
  body: Dispatcher.ResponseData["body"],
  maxBytes: number,
  done: () => void,
): { head: () => Promise<Buffer>; stream: () => ReadableStream<Uint8Array> } {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first: Buffer[] = [];
  let size = 0;
  let ended = false;
  const head = async () => {
    while (size < SNIFF_BYTES && !ended) {
      const next = await chunks.next();
      if (next.done) ended = true;
      else {
        size += next.value.length;
        if (size > maxBytes) throw tooLarge();
        first.push(next.value);
      }
    }
    return Buffer.concat(first);
  };
  // Made after `head`: the first bytes, read to judge the type, go first.
  const stream = () =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of first) controller.enqueue(new Uint8Array(chunk));
        if (ended) {
          controller.close();
          done();
        }
      },
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done) {
            controller.close();
            done();
            return;
          }
          size += next.value.length;
          if (size > maxBytes) {
            discard(body);
            controller.error(tooLarge());
            done();
            return;
          }
          controller.enqueue(new Uint8Array(next.value));
        } catch (error) {
          controller.error(error);
          done();
        }
      },
      cancel() {
        discard(body);
        done();
      },
    });
  return { head, stream };
}

/**
 * Fetches an image for the proxy. Throws Invalid (400) for a bad url and ProxyError for the rest:
 * 403 a refused address or redirect, 415 not one of the image types, 502 an upstream failure
 * (error status, too many redirects, over 10 MiB, unreachable), 504 past the deadline.
 */
export async function fetchImage(rawUrl: string, options: ProxyOptions = {}): Promise<ProxiedImage> {
  const config = env();
  const timeoutMs = options.timeoutMs ?? config.IMAGE_PROXY_TIMEOUT_MS;
  const allowedHosts = options.allowedHosts ?? parseAllowedHosts(config.IMAGE_PROXY_ALLOWED_HOSTS);
  const maxBytes = options.maxBytes ?? MAX_IMAGE_BYTES;
  let url = parseImageUrl(rawUrl);
  const releaseSlot = acquireProxySlot(options.userId ?? "", {
    perUser: config.IMAGE_PROXY_MAX_PER_USER,
    overall: config.IMAGE_PROXY_MAX_CONCURRENT,
  });
  const deadline = AbortSignal.timeout(timeoutMs);
  const agent = guardedAgent(allowedHosts, timeoutMs);
  let streaming = false;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    releaseSlot();
    agent.destroy().catch(() => {});
  };
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await request(url, {
        dispatcher: agent,
        method: "GET",
        signal: deadline,
        headers: {
          "user-agent": USER_AGENT,
          accept: "image/avif,image/webp,image/png,image/jpeg,image/gif",
          "accept-encoding": "identity",
        },
      });
      const { statusCode, headers, body } = response;
      if (REDIRECT_STATUSES.has(statusCode)) {
        discard(body);
        if (redirects >= MAX_REDIRECTS)
          throw new ProxyError(502, `The image server redirected more than ${MAX_REDIRECTS} times`);
        const location = Array.isArray(headers.location) ? headers.location[0] : headers.location;
        if (!location) throw new ProxyError(502, "The image server sent a redirect without a Location");
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new ProxyError(502, "The image server sent an unreadable redirect");
        }
        if (next.protocol !== "http:" && next.protocol !== "https:") {
          throw new ProxyError(403, "The image server redirected to a URL that is not http or https");
        }
        if (next.username || next.password)
          throw new ProxyError(403, "The image server redirected to a URL with credentials");
        next.hash = "";
        url = next;
        continue;
      }
      if (statusCode < 200 || statusCode >= 300) {
        discard(body);
        throw new ProxyError(502, `The image server answered ${statusCode}`);
      }
      const declared = mediaType(headers["content-type"]);
      if (!(IMAGE_TYPES as readonly string[]).includes(declared)) {
        discard(body);
        throw new ProxyError(415, "Only png, jpeg, gif, webp and avif images can be proxied");
      }
      const encoding = mediaType(headers["content-encoding"]);
      if (encoding && encoding !== "identity") {
        discard(body);
        throw new ProxyError(502, "The image server sent an encoded body");
      }
      const length = Number(
        Array.isArray(headers["content-length"]) ? headers["content-length"][0] : headers["content-length"],
      );
      if (Number.isFinite(length) && length > maxBytes) {
        discard(body);
        throw tooLarge();
      }
      const { head, stream } = streamBody(body, maxBytes, release);
      let sniffed: ImageType | null;
      try {
        sniffed = sniffImageType(await head());
      } catch (error) {
        discard(body);
        throw error;
      }
      if (!sniffed) {
        discard(body);
        throw new ProxyError(415, "The response is not a png, jpeg, gif, webp or avif image");
      }
      streaming = true;
      return { contentType: sniffed, length: Number.isFinite(length) ? length : null, body: stream() };
    }
  } catch (error) {
    throw failure(error, deadline);
  } finally {
    // A body on its way to the client keeps its slot and connection until it is done.
    if (!streaming) release();
  }
}
