/**
 * Compression for a slow, metered link (docs/decisions/032-pages-at-sea.md):
 *
 * - `precompressedAssets`: files under build/client that the build compressed once
 *   (vite.config.ts, `precompress` in scripts/precompress.ts) are served as their `.br` or `.gz`
 *   sibling when the browser accepts it, with `Vary: Accept-Encoding`; the static middleware after
 *   it then sets the caching (immutable for /assets) as for the plain file.
 * - `dynamicCompression`: every other answer (pages, loader data, /api JSON, CSV) is compressed by
 *   the `compression` middleware, brotli or gzip as `Accept-Encoding` asks. Streamed answers stay
 *   streamed: the request handler flushes the encoder after each chunk (app/server/request-handler.ts).
 */
import compression from "compression";
import type { NextFunction, Request, Response } from "express";
import { existsSync, statSync } from "node:fs";
import path from "node:path";

/** The encodings the build writes next to each file, best first. */
export const PRECOMPRESSED = [
  { encoding: "br", suffix: ".br" },
  { encoding: "gzip", suffix: ".gz" },
] as const;

/**
 * For a GET/HEAD of a file under `dir` that has a compressed sibling the client accepts: rewrite
 * the URL to the sibling and set `Content-Encoding`, the original `Content-Type` and `Vary`.
 */
export function precompressedAssets(dir: string) {
  const root = path.resolve(dir);
  const known = new Map<string, Set<string>>();
  const siblings = (file: string): Set<string> => {
    let found = known.get(file);
    if (!found) {
      found = new Set();
      for (const { suffix } of PRECOMPRESSED) {
        const candidate = file + suffix;
        if (existsSync(candidate) && statSync(candidate).isFile()) found.add(suffix);
      }
      known.set(file, found);
    }
    return found;
  };
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    let pathname: string;
    try {
      pathname = decodeURIComponent(req.path);
    } catch {
      return next();
    }
    const file = path.join(root, pathname);
    if (!file.startsWith(root + path.sep) || /\.(br|gz)$/.test(file)) return next();
    const available = siblings(file);
    if (available.size === 0) return next();
    res.vary("Accept-Encoding");
    // Brotli first whenever the client accepts it, whatever order it lists them in.
    const chosen = PRECOMPRESSED.find(
      (p) => available.has(p.suffix) && req.acceptsEncodings(p.encoding) === p.encoding,
    );
    if (!chosen) return next();
    res.type(path.extname(file));
    res.setHeader("Content-Encoding", chosen.encoding);
    req.url = req.url.replace(/^([^?]*)/, `$1${chosen.suffix}`);
    next();
  };
}

/**
 * `compression` with its defaults (brotli quality 4, gzip level 6, answers under 1 KB left alone),
 * skipping what is already encoded (the files above, Cache-Control: no-transform).
 */
export function dynamicCompression() {
  return compression();
}

/** After each chunk of a streamed answer: push what the encoder holds to the client now. */
export function flushCompressed(res: Response): void {
  (res as Response & { flush?: () => void }).flush?.();
}
