/**
 * Builds the service worker (app/offline/service-worker.ts; docs/decisions/045-offline-shell-and-drafts.md)
 * after the browser build: Vite bundles it with its Workbox modules into one classic script, then
 * Workbox's injectManifest writes build/client/sw.js with the list of the build's files to precache
 * (every script, stylesheet and font under assets/, the web app manifest and the icon; not the
 * .br/.gz copies, which the server picks by Accept-Encoding for the same URLs).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "vite";
import { injectManifest } from "workbox-build";

const SOURCE = fileURLToPath(new URL("../app/offline/service-worker.ts", import.meta.url));

export async function buildServiceWorker(outDir: string): Promise<{ count: number; size: number; warnings: string[] }> {
  const temp = await mkdtemp(path.join(tmpdir(), "cm-sw-"));
  try {
    await build({
      configFile: false,
      logLevel: "warn",
      define: { "process.env.NODE_ENV": JSON.stringify("production") },
      build: {
        outDir: temp,
        emptyOutDir: true,
        minify: true,
        copyPublicDir: false,
        lib: { entry: SOURCE, formats: ["iife"], name: "serviceWorker", fileName: () => "sw.js" },
      },
    });
    const result = await injectManifest({
      swSrc: path.join(temp, "sw.js"),
      swDest: path.join(outDir, "sw.js"),
      globDirectory: outDir,
      globPatterns: ["assets/**/*.{js,css,woff2,woff,ttf,svg}", "manifest.webmanifest", "favicon.svg"],
      globIgnores: ["**/*.br", "**/*.gz", "sw.js"],
      // Assets carry a content hash in their names: no revision needed.
      dontCacheBustURLsMatching: /^assets\//,
      maximumFileSizeToCacheInBytes: 2 * 1024 * 1024,
    });
    return { count: result.count, size: result.size, warnings: result.warnings };
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** Vite plugin: after the browser build is written (not the server build), write sw.js into it. */
export function serviceWorker(): Plugin {
  let outDir = "";
  let ssr = false;
  return {
    name: "cm:service-worker",
    apply: "build",
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
      ssr = Boolean(config.build.ssr);
    },
    async writeBundle() {
      if (ssr) return;
      const { count, size, warnings } = await buildServiceWorker(outDir);
      for (const warning of warnings) this.warn(`service worker: ${warning}`);
      this.info?.(`service worker: ${count} files precached (${Math.round(size / 1024)} KiB)`);
    },
  };
}
