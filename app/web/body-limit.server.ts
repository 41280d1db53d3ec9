/**
 * Request body caps for every route, counted as the bytes arrive whatever the framing
 * (Content-Length, chunked, or a Content-Length that lies). docs/security.md lists the caps.
 *
 * - A body that declares more than its route's cap is refused before any of it is read.
 * - A body that grows past the cap while it is read stops there: the reader gets an error and the
 *   client a 413 at once, whatever the route was doing with it.
 * - A body that stops arriving for CLIENT_STALL_SECONDS while the route waits for it is cut: the
 *   reader gets an error and the client a 408 with `Connection: close` (docs/security.md, "Slow
 *   clients").
 * - Either way the 413 says `Connection: close`, and the rest of the body is read and dropped up
 *   to a small bound (DRAIN_BYTES, DRAIN_MS) before the connection closes, so the client reads the
 *   answer instead of a reset, and its next request goes on a new connection.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { CSV_LIMITS } from "~/models/archive/archive.schema";
import { MAX_UPLOAD_BYTES } from "~/models/records/attachments.server";
import { Invalid, TooLarge } from "~/utils/errors";
import { MAX_BODY_BYTES } from "~/utils/http.server";

const MiB = 1024 * 1024;
/** Room for a multipart form's boundaries and other fields around the file. */
const FORM_OVERHEAD = 64 * 1024;

/** What is read and dropped after a 413 before the connection is closed anyway. */
export const DRAIN_BYTES = 4 * MiB;
export const DRAIN_MS = 5_000;

type Cap = { bytes: number; what: string };

/** Form posts and /api bodies: 1 MiB. */
export const FORM_CAP: Cap = { bytes: MAX_BODY_BYTES, what: "1 MiB" };

// Remix's single-fetch posts go to the same path plus `.data`.
const UPLOAD_CAPS: [RegExp, Cap][] = [
  // The risk-assessment upload (app/routes/mocs+/$id.risk.tsx): a 10 MiB file.
  [/^\/mocs\/[^/]+\/risk(\.data)?\/?$/, { bytes: MAX_UPLOAD_BYTES + FORM_OVERHEAD, what: "10 MiB" }],
  // A plan item marked done with its evidence file (app/routes/mocs+/$id.done-item.tsx).
  [/^\/mocs\/[^/]+\/done-item(\.data)?\/?$/, { bytes: MAX_UPLOAD_BYTES + FORM_OVERHEAD, what: "10 MiB" }],
  // A piece of a resumable upload (app/web/resumable-upload.server.ts): at most the whole file.
  [/^\/tus\/attachments(\/[^/]*)?$/, { bytes: MAX_UPLOAD_BYTES + FORM_OVERHEAD, what: "10 MiB" }],
  // Attachments of a MOC or a PCR (app/routes/mocs+/$id.attachments.tsx, pcrs+/$id_.attachments.tsx).
  [/^\/(mocs|pcrs)\/[^/]+\/attachments(\.data)?\/?$/, { bytes: MAX_UPLOAD_BYTES + FORM_OVERHEAD, what: "10 MiB" }],
  // The archive CSV import: a 1 MiB file, carried back as base64 (4/3) on confirmation.
  [
    /^\/archive\/[^/]+\/import(\.data)?\/?$/,
    { bytes: CSV_LIMITS.bytes * 1.5 + FORM_OVERHEAD, what: `${CSV_LIMITS.bytes / MiB} MiB` },
  ],
];

export function bodyCap(pathname: string): Cap {
  for (const [pattern, cap] of UPLOAD_CAPS) if (pattern.test(pathname)) return cap;
  return FORM_CAP;
}

/*
 * What a route reading the body meets when the cap or the stall ends it. The client has its 413 or
 * 408 already (below); the route's answer goes nowhere, but as domain errors they are the client's
 * doing, not "unhandled errors" in the log.
 */
export class BodyTooLarge extends TooLarge {
  constructor(readonly cap: Cap) {
    super(`The request body is larger than ${cap.what}`);
  }
}

export class BodyStalled extends Invalid {
  constructor(readonly seconds: number) {
    super(`The request body stopped arriving for ${seconds} seconds; nothing was saved. Send it again`);
  }
}

const isApi = (pathname: string) => pathname === "/api" || pathname.startsWith("/api/");

function tooLargePage(message: string, title = "The request is too large"): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title} · Change Management</title></head>
<body>
<main>
<h1>${title}</h1>
<p>${message}. Nothing was saved.</p>
<p>Go back and send less, or go to <a href="/">the dashboard</a>.</p>
</main>
</body>
</html>
`;
}

/**
 * Reads the rest of the body and drops it, up to DRAIN_BYTES; past that it stops reading and waits
 * for the client, which has the whole answer by then, to hang up. `done` when the body ended, the
 * client left, or DRAIN_MS passed. (Closing with unread bytes would reset the connection, and a
 * reset can reach the client before it has read the answer.)
 */
export function drainBody(req: IncomingMessage, done: () => void): void {
  if (req.complete || req.destroyed) {
    done();
    return;
  }
  let dropped = 0;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    req.off("data", onData);
    req.off("end", finish);
    req.off("error", finish);
    req.off("close", finish);
    done();
  };
  const onData = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_BYTES) {
      req.off("data", onData);
      req.pause();
    }
  };
  const timer = setTimeout(finish, DRAIN_MS);
  timer.unref();
  req.on("data", onData);
  req.once("end", finish);
  req.once("error", finish);
  req.once("close", finish);
  req.resume();
}

/**
 * Answers 413 (JSON under /api, a page elsewhere) with `Connection: close`, then drains the body.
 * After the drain the response ends and Node closes the connection.
 */
export function refuseTooLarge(req: IncomingMessage, res: ServerResponse, pathname: string, cap: Cap): void {
  if (res.headersSent) {
    // Too late for a status: cut the connection, the client sees the answer was not complete.
    req.socket.destroy();
    return;
  }
  const message = new BodyTooLarge(cap).message;
  const api = isApi(pathname);
  const body = api ? JSON.stringify({ status: 413, message }) : tooLargePage(message);
  res.writeHead(413, {
    "Content-Type": api ? "application/json; charset=utf-8" : "text/html; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
    Connection: "close",
  });
  res.write(body);
  drainBody(req, () => res.end());
}

/**
 * Answers 408 (JSON under /api, a page elsewhere) to a body that stopped arriving, and closes the
 * connection: what is still on its way is not waited for.
 */
export function refuseStalled(req: IncomingMessage, res: ServerResponse, pathname: string, seconds: number): void {
  if (res.headersSent) {
    req.socket.destroy();
    return;
  }
  const message = new BodyStalled(seconds).message;
  const api = isApi(pathname);
  const body = api
    ? JSON.stringify({ status: 408, message })
    : tooLargePage(message.replace(/; nothing was saved. Send it again$/, ""), "The upload stopped");
  res.writeHead(408, {
    "Content-Type": api ? "application/json; charset=utf-8" : "text/html; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
    Connection: "close",
  });
  res.end(body, () => req.socket.destroy());
}

/**
 * The body as a web stream that counts what it passes on. Past `cap.bytes` it stops reading,
 * errors the stream (the route's `formData()` or `json()` rejects) and calls `onExceeded`. While
 * the route waits for more and none comes for `stallMs`, it errors the stream the same way and
 * calls `onStalled`.
 */
export function countedBody(
  req: IncomingMessage,
  cap: Cap,
  onExceeded: () => void,
  stall?: { ms: number; onStalled: () => void },
): ReadableStream<Uint8Array> {
  let size = 0;
  let settled = false;
  let timer: NodeJS.Timeout | undefined;
  const stopWaiting = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  let onData: (chunk: Buffer) => void = () => {};
  let onEnd: () => void = () => {};
  let onError: (error: Error) => void = () => {};
  let waitForData: () => void = () => {};
  const detach = () => {
    settled = true;
    stopWaiting();
    req.off("data", onData);
    req.off("end", onEnd);
    req.off("error", onError);
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        waitForData = () => {
          if (!stall || settled || timer) return;
          timer = setTimeout(() => {
            if (settled) return;
            req.pause();
            detach();
            controller.error(new BodyStalled(stall.ms / 1000));
            stall.onStalled();
          }, stall.ms);
          timer.unref();
        };
        onData = (chunk: Buffer) => {
          if (settled) return;
          stopWaiting();
          size += chunk.length;
          if (size > cap.bytes) {
            req.pause();
            detach();
            controller.error(new BodyTooLarge(cap));
            onExceeded();
            return;
          }
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
          else waitForData();
        };
        onEnd = () => {
          if (settled) return;
          detach();
          controller.close();
        };
        onError = (error: Error) => {
          if (settled) return;
          detach();
          controller.error(error);
        };
        // Paused first: a `data` listener then does not start the flow; `pull` does.
        req.pause();
        req.on("data", onData);
        req.once("end", onEnd);
        req.once("error", onError);
      },
      pull() {
        waitForData();
        req.resume();
      },
      cancel() {
        // The route did not want the rest; the server drains it when the response is done.
        detach();
        req.pause();
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}
