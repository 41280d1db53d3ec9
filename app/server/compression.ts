/**
 * Compression for a slow, metered link (docs/decisions/032-pages-at-sea.md): every answer that is
 * not a file of the client build (pages, loader data, /api JSON, CSV) is compressed by the
 * `compression` middleware, brotli or gzip as `Accept-Encoding` asks. Streamed answers stay
 * streamed: the request handler flushes the encoder after each chunk (app/server/request-handler.ts).
 * The build's files are compressed once, by the build (app/server/client-files.ts).
 */
import compression from "compression";
import type { NextFunction, Request, Response } from "express";

/**
 * `compression` with its defaults (brotli quality 4, gzip level 6, answers under 1 KB left alone),
 * skipping what is already encoded (the build's files, Cache-Control: no-transform). A request that
 * accepts no encoding (no `Accept-Encoding`: scripts, API clients) skips the layer altogether: its
 * answer is the same identity bytes either way, without the encoder's wrapping of every write.
 */
export function dynamicCompression() {
  const compress = compression();
  return (req: Request, res: Response, next: NextFunction) => {
    if (!req.headers["accept-encoding"]) return next();
    compress(req, res, next);
  };
}

/** After each chunk of a streamed answer: push what the encoder holds to the client now. */
export function flushCompressed(res: Response): void {
  (res as Response & { flush?: () => void }).flush?.();
}
