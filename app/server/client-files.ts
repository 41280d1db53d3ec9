/**
 * The files of the client build (build/client), served as a slow, metered link needs them
 * (docs/decisions/032-pages-at-sea.md):
 *
 * - They are listed once, when the server starts (the build does not change while it runs:
 *   scripts/build-once.ts). Only a GET or HEAD naming one of them reaches the middleware below, so a
 *   page, an /api call or a made-up path costs a set lookup, not a `stat` of the disk, and nothing
 *   is remembered per path a client sends (docs/performance.md, "The floor's own layers").
 * - A file the build compressed once (vite.config.ts, scripts/precompress.ts) is served as its `.br`
 *   or `.gz` sibling when the browser accepts it, with `Vary: Accept-Encoding`.
 * - A name under /assets carries its content's hash and is cached as immutable: it is never
 *   revalidated, so ETag, Last-Modified and Accept-Ranges would be bytes for nothing on every file
 *   of a cold load. The others (the service worker, the web manifest, the icon) for an hour.
 */
import express, { type NextFunction, type Request, type Response } from "express";
import { readdirSync } from "node:fs";
import path from "node:path";

/** The encodings the build writes next to each file, best first. */
export const PRECOMPRESSED = [
  { encoding: "br", suffix: ".br" },
  { encoding: "gzip", suffix: ".gz" },
] as const;

/** URL paths (`/sw.js`, `/assets/x-123.js`, `/assets/x-123.js.br`) of the files under `dir`; dot-files and dot-folders left out, as the static middleware ignores them. */
export function clientFiles(dir: string): Set<string> {
  const files = new Set<string>();
  const walk = (folder: string, prefix: string) => {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const url = `${prefix}/${entry.name}`;
      if (entry.isDirectory()) walk(path.join(folder, entry.name), url);
      else if (entry.isFile()) files.add(url);
    }
  };
  walk(path.resolve(dir), "");
  return files;
}

/** The URL path as a file name: percent-decoded (undefined when malformed). */
function decodedPath(req: Request): string | undefined {
  const raw = req.path;
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/**
 * The client build under `dir`, as one middleware: a GET or HEAD of one of its files is answered
 * (its compressed sibling when accepted); every other request goes straight on.
 */
export function clientBuild(dir: string) {
  const files = clientFiles(dir);
  const immutable = express.static(dir, {
    immutable: true,
    maxAge: "1y",
    index: false,
    etag: false,
    lastModified: false,
    acceptRanges: false,
  });
  const revalidated = express.static(dir, { maxAge: "1h", index: false });
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const file = decodedPath(req);
    if (file === undefined || !files.has(file)) return next();
    const available = /\.(br|gz)$/.test(file) ? [] : PRECOMPRESSED.filter((p) => files.has(file + p.suffix));
    if (available.length > 0) {
      res.vary("Accept-Encoding");
      // Brotli first whenever the client accepts it, whatever order it lists them in.
      const chosen = available.find((p) => req.acceptsEncodings(p.encoding) === p.encoding);
      if (chosen) {
        res.type(path.extname(file));
        res.setHeader("Content-Encoding", chosen.encoding);
        req.url = req.url.replace(/^([^?]*)/, `$1${chosen.suffix}`);
      }
    }
    (file.startsWith("/assets/") ? immutable : revalidated)(req, res, next);
  };
}
