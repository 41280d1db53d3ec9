/**
 * Build-time compression of the browser build (docs/decisions/032-pages-at-sea.md): every text
 * file of build/client over 1 KB gets a `.br` (brotli, quality 11) and a `.gz` (gzip, level 9)
 * sibling, written once by node:zlib, so the server sends them without compressing on each request
 * (app/server/client-files.ts). A Vite plugin (vite.config.ts) runs it after the client build.
 */
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { Plugin } from "vite";

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

const COMPRESSIBLE = /\.(js|mjs|css|svg|json|html|txt|map|xml|webmanifest)$/;
const MIN_BYTES = 1024;

async function* files(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(full);
    else if (entry.isFile()) yield full;
  }
}

/** Writes `<file>.br` and `<file>.gz` next to each compressible file of `dir`; returns how many. */
export async function precompressDirectory(dir: string): Promise<number> {
  let count = 0;
  for await (const file of files(dir)) {
    if (!COMPRESSIBLE.test(file) || (await stat(file)).size < MIN_BYTES) continue;
    const body = await readFile(file);
    const [br, gzipped] = await Promise.all([
      brotli(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      }),
      gz(body, { level: constants.Z_BEST_COMPRESSION }),
    ]);
    await Promise.all([writeFile(`${file}.br`, br), writeFile(`${file}.gz`, gzipped)]);
    count += 1;
  }
  return count;
}

/** Vite plugin: after the browser build is written (not the server build), compress it. */
export function precompress(): Plugin {
  let outDir = "";
  let ssr = false;
  return {
    name: "cm:precompress",
    apply: "build",
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
      ssr = Boolean(config.build.ssr);
    },
    async closeBundle() {
      if (ssr) return;
      const count = await precompressDirectory(outDir);
      this.info?.(`precompressed ${count} files (.br, .gz) in ${outDir}`);
    },
  };
}
