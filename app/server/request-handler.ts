/**
 * Express -> Remix: what `@remix-run/express`'s handler does, plus what the app needs of the HTTP
 * layer (docs/security.md):
 *
 * - every body counted against its route's cap as it is read (app/web/body-limit.server.ts);
 * - the client's address, by the `TRUST_PROXY` rules, handed to the routes
 *   (app/utils/client-address.server.ts);
 * - cross-origin writes judged against `APP_URL` (and the request's own origin) here, before Remix's
 *   own check, which compares `Origin` with `Host` only and answers a bare 500;
 * - headers every response carries set once, even when a route sets them too;
 * - a write that carries an idempotency key applied once (app/web/idempotency.server.ts);
 * - an answer given before the body was read closes the connection after draining the body;
 * - a client that stops reading the answer, or stops sending its body, for CLIENT_STALL_SECONDS is
 *   cut (docs/security.md, "Slow clients").
 */
import type { ServerBuild } from "@remix-run/node";
import { createRequestHandler } from "@remix-run/node";
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from "express";
import { maxHeaderSize, STATUS_CODES, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { withRevalidation } from "~/web/revalidation.server";
import { withIdempotency } from "~/web/idempotency.server";
import { bodyCap, countedBody, drainBody, FORM_CAP, refuseStalled, refuseTooLarge } from "~/web/body-limit.server";
import { CLIENT_ADDRESS_HEADER, clientAddressHeader } from "~/utils/client-address.server";
import { DatabaseUnavailable, isDatabaseUnavailable } from "~/utils/errors";
import { errorPage } from "~/utils/http.server";
import { env } from "~/utils/env.server";
import { BASE_SECURITY_HEADERS } from "~/utils/security-headers.server";
import { flushCompressed } from "./compression";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const SET_ONCE = new Set(Object.keys(BASE_SECURITY_HEADERS).map((name) => name.toLowerCase()));

export class BadRequest extends Error {
  readonly status = 400;
}

/** The URL the client asked for; the host from X-Forwarded-Host only when the proxy is trusted. */
function requestUrl(req: ExpressRequest): URL {
  const trust = req.app.get("trust proxy fn") as (address: string, hop: number) => boolean;
  const forwarded = trust(req.socket.remoteAddress ?? "", 0)
    ? req.get("X-Forwarded-Host")?.split(",")[0]?.trim()
    : undefined;
  const host = forwarded || req.get("host") || "localhost";
  let url: URL;
  try {
    url = new URL(`${req.protocol}://${host}${req.originalUrl}`);
  } catch {
    throw new BadRequest("The Host header or the URL is not valid");
  }
  try {
    decodeURIComponent(url.pathname);
  } catch {
    throw new BadRequest("The URL path is not valid: it has a malformed percent-encoding (such as %ff)");
  }
  return url;
}

function requestHeaders(req: ExpressRequest, url: URL, appOrigin: string): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  // Only this server says who the client is.
  headers.set(CLIENT_ADDRESS_HEADER, clientAddressHeader(req.ip));
  const origin = headers.get("origin");
  if (origin !== null && !SAFE_METHODS.has(req.method)) {
    // Judged here; the routes then see a write from another site the way a browser reports one
    // (Sec-Fetch-Site: cross-site) and refuse it with a 403 and their own error page or JSON.
    headers.delete("origin");
    if (origin !== appOrigin && origin !== url.origin) headers.set("sec-fetch-site", "cross-site");
  }
  return headers;
}

/**
 * Waits until the socket takes more (`drain`), the client leaves, or `stallMs` pass with the client
 * reading nothing: then the connection is cut, so a reader that stopped holds nothing for long.
 */
function drained(res: ExpressResponse, stallMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    const timer = setTimeout(() => {
      res.destroy();
      done();
    }, stallMs);
    timer.unref();
    res.once("drain", done);
    res.once("close", done);
  });
}

async function send(req: ExpressRequest, res: ExpressResponse, response: Response, stallMs: number): Promise<void> {
  res.statusMessage = response.statusText;
  res.status(response.status);
  for (const [name, value] of response.headers) {
    if (SET_ONCE.has(name)) res.setHeader(name, value);
    else res.append(name, value);
  }
  // Answered before the body was read: this connection cannot carry another request cleanly.
  const unread = !req.complete;
  if (unread) res.setHeader("Connection", "close");
  if (response.body) {
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || res.destroyed) break;
        const flowing = res.write(value);
        // Compressed or not, each chunk reaches the client as it is produced.
        flushCompressed(res);
        if (!flowing) await drained(res, stallMs);
      }
    } finally {
      if (res.destroyed) await reader.cancel().catch(() => {});
    }
  }
  if (unread && !res.destroyed) drainBody(req, () => res.end());
  else res.end();
}

export function remixRequestHandler(build: ServerBuild, options: { appUrl: string }) {
  const handle = createRequestHandler(build, "production");
  const appOrigin = new URL(options.appUrl).origin;
  const stallMs = env().CLIENT_STALL_SECONDS * 1000;
  return async (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    let request: Request;
    const controller = new AbortController();
    let refused = false;
    try {
      const url = requestUrl(req);
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const cap = hasBody ? bodyCap(url.pathname) : FORM_CAP;
      const declared = Number(req.headers["content-length"]);
      if (hasBody && Number.isFinite(declared) && declared > cap.bytes) {
        refuseTooLarge(req, res, url.pathname, cap);
        return;
      }
      const body = hasBody
        ? countedBody(
            req,
            cap,
            () => {
              refused = true;
              controller.abort();
              refuseTooLarge(req, res, url.pathname, cap);
            },
            {
              ms: stallMs,
              onStalled: () => {
                refused = true;
                controller.abort();
                refuseStalled(req, res, url.pathname, stallMs / 1000);
              },
            },
          )
        : undefined;
      request = new Request(url, {
        method: req.method,
        headers: requestHeaders(req, url, appOrigin),
        signal: controller.signal,
        ...(body ? { body, duplex: "half" } : {}),
      } as RequestInit);
    } catch (error) {
      next(error);
      return;
    }
    // The client went away before the answer was complete: stop the loaders and actions.
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    try {
      // ETag / 304 for pages and loader data (app/web/revalidation.server.ts).
      // A write with an idempotency key runs once (app/web/idempotency.server.ts).
      const answer = await withIdempotency(request, (keyed) => handle(keyed, {}));
      const response = await withRevalidation(request, answer);
      if (refused || res.headersSent) {
        await response.body?.cancel().catch(() => {});
        return;
      }
      await send(req, res, response, stallMs);
    } catch (error) {
      if (refused) return;
      next(error);
    }
  };
}

const isApiPath = (path: string) => path === "/api" || path.startsWith("/api/");

/** The app's error answer from the HTTP layer: JSON under /api, the short error page elsewhere. */
function sendError(
  req: ExpressRequest,
  res: ExpressResponse,
  code: number,
  message: string,
  headers: Record<string, string> = {},
) {
  res.status(code).setHeader("Cache-Control", "no-store");
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (!req.complete) res.setHeader("Connection", "close");
  // A 400 lists its issues like every other (the request as a whole: path "").
  if (isApiPath(req.path))
    res.json(code === 400 ? { status: code, message, issues: [{ path: "", message }] } : { status: code, message });
  else res.type("html").send(errorPage(code, message));
}

/**
 * Errors that reach Express (a malformed URL, an unusable Host): 4xx as JSON under /api, as a short
 * page elsewhere; an unreachable database (met before a route ran: the idempotency key's lookup) a
 * 503 with Retry-After; anything else is a logged 500.
 */
export function errorHandler(log: {
  error: (obj: object, msg: string) => void;
  warn: (obj: object, msg: string) => void;
}) {
  return (error: unknown, req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    if (isDatabaseUnavailable(error)) {
      log.warn({ err: error, method: req.method, path: req.path }, "database unavailable");
      const unavailable = new DatabaseUnavailable();
      sendError(req, res, unavailable.status, unavailable.message, unavailable.headers);
      return;
    }
    const status = (error as { status?: unknown }).status;
    const clientError = typeof status === "number" && status >= 400 && status < 500;
    if (!clientError) log.error({ err: error, method: req.method, path: req.path }, "unhandled server error");
    const code = clientError ? status : 500;
    const message =
      error instanceof BadRequest
        ? error.message
        : clientError
          ? "The request is not valid: its URL or a header is malformed"
          : "Something went wrong on our side";
    sendError(req, res, code, message);
  };
}

// ---------------------------------------------------------------------------------------------
// Methods, and what Node's HTTP parser refuses before Express sees a request

/** The methods the app answers. Anything else (TRACE, CONNECT, PROPFIND, an unknown word) is 405. */
export const ALLOWED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
const ALLOW = ALLOWED_METHODS.join(", ");
const methodMessage = (method: string) => `The ${method} method is not supported here; use ${ALLOW}`;

/**
 * 405 with `Allow` for a method the app does not answer, before it reaches Remix (fetch's Request
 * refuses TRACE and CONNECT outright: that was a logged 500).
 */
export function refuseOtherMethods() {
  const allowed = new Set(ALLOWED_METHODS);
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    if (allowed.has(req.method)) next();
    else sendError(req, res, 405, methodMessage(req.method), { Allow: ALLOW });
  };
}

/** A whole HTTP answer written straight to a socket, in the app's error shape; the connection closes. */
function socketAnswer(status: number, message: string, path: string, headers: Record<string, string> = {}): string {
  const api = isApiPath(path);
  const body = api ? JSON.stringify({ status, message }) : errorPage(status, message);
  const head = {
    ...BASE_SECURITY_HEADERS,
    "Content-Type": api ? "application/json; charset=utf-8" : "text/html; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
    "Cache-Control": "no-store",
    Connection: "close",
    ...headers,
  };
  const lines = Object.entries(head).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join("\r\n")}\r\n\r\n${body}`;
}

/** The target of the request line in what the parser had read ("" when it had not got that far). */
function targetOf(raw: Buffer | undefined): string {
  const line = raw?.subarray(0, 2048).toString("latin1").split("\r\n", 1)[0] ?? "";
  return line.match(/^\S+ (\/\S*)/)?.[1] ?? "";
}

type ParserError = Error & { code?: string; rawPacket?: Buffer };

/**
 * Node's `clientError`: what its parser refused. Node's own answers have no body (431 among them);
 * these carry the app's error shape, JSON when the request line named /api. Same statuses as
 * Node's, plus 405 for a method its parser does not know. Not logged: the client's doing.
 */
export function answerClientError(error: ParserError, socket: Duplex & { bytesWritten?: number }) {
  if (error.code !== "ECONNRESET" && socket.writable && !socket.bytesWritten) {
    const path = targetOf(error.rawPacket);
    let answer: string;
    switch (error.code) {
      case "HPE_HEADER_OVERFLOW":
        answer = socketAnswer(
          431,
          `The request's headers are too large (more than ${Math.floor(maxHeaderSize / 1024)} KiB in all): send fewer or shorter headers or cookies`,
          path,
        );
        break;
      case "HPE_INVALID_METHOD":
        answer = socketAnswer(405, methodMessage("request's"), path, { Allow: ALLOW });
        break;
      case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
        answer = socketAnswer(413, "The request's chunk extensions are too large", path);
        break;
      case "ERR_HTTP_REQUEST_TIMEOUT":
        answer = socketAnswer(408, "The request took too long to arrive", path);
        break;
      default:
        answer = socketAnswer(400, "The request is not valid HTTP", path);
    }
    socket.end(answer);
    socket.once("finish", () => socket.destroy());
    return;
  }
  socket.destroy();
}

/** A CONNECT request (Node hands its socket over instead of making it a request): 405 too. */
export function refuseConnect(req: IncomingMessage, socket: Duplex) {
  socket.end(socketAnswer(405, methodMessage(req.method ?? "CONNECT"), "", { Allow: ALLOW }));
  socket.once("finish", () => socket.destroy());
}
