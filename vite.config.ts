import { vitePlugin as remix } from "@remix-run/dev";
import { fileURLToPath } from "node:url";
import { flatRoutes } from "remix-flat-routes";
import { defineConfig } from "vitest/config";
import { manualChunks } from "./scripts/chunks";
import { precompress } from "./scripts/precompress";
import { serviceWorker } from "./scripts/service-worker-build";

declare module "@remix-run/node" {
  interface Future {
    v3_singleFetch: true;
  }
}

// The Remix plugin ignores tsconfig `paths`, so the aliases are repeated here.
export const alias = {
  "~": fileURLToPath(new URL("./app", import.meta.url)),
  "#db": fileURLToPath(new URL("./db", import.meta.url)),
  "#jobs": fileURLToPath(new URL("./jobs", import.meta.url)),
};

export default defineConfig(({ isSsrBuild }) => ({
  resolve: { alias },
  server: { port: 3000 },
  build: {
    // The browser's code only (the server's stays readable in stack traces): Terser at two passes
    // writes every page's code about 4 KiB (brotli) smaller than esbuild's minifier, and fewer,
    // larger files make a cold load (scripts/chunks.ts; docs/decisions/032-pages-at-sea.md).
    ...(isSsrBuild
      ? {}
      : { minify: "terser" as const, terserOptions: { compress: { passes: 2 }, format: { comments: false } } }),
    rollupOptions: {
      ...(isSsrBuild ? {} : { output: { manualChunks: manualChunks() } }),
      onwarn(warning, warn) {
        // zod's bundled comments trip a harmless Rollup notice on every build.
        if (warning.message.includes("annotation that Rollup cannot interpret")) return;
        // Resource routes have no browser code, so their client chunks are empty by design.
        if (warning.code === "EMPTY_BUNDLE") return;
        // Forms load their schema with import() (app/components/lazy-validation.ts) while the
        // server code imports it statically: expected; `npm run budget` checks what the pages ship.
        if (warning.message.includes("dynamic import will not move module into another chunk")) return;
        warn(warning);
      },
    },
  },
  test: {
    include: ["tests/integration/**/*.test.ts"],
    globalSetup: ["tests/helpers/global-setup.ts"],
    setupFiles: ["tests/helpers/setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: two workers, each with its own database per test file.
    maxWorkers: 2,
    reporters: process.env.CI ? ["default", "json"] : ["default"],
    outputFile: { json: "test-results/vitest.json" },
  },
  plugins: [
    // The Remix plugin builds the app; tests call route modules directly instead.
    !process.env.VITEST &&
      remix({
        // Routes are grouped by feature in "+" folders (app/routes/mocs+/$id.hseq.tsx serves
        // /mocs/:id/hseq): remix-flat-routes reads them, Remix's own convention is turned off.
        // docs/architecture.md explains the layout. Code one route alone uses sits beside it and is
        // not a route: `*.server.*` (loaders, actions) and `__*` (components), matched against the
        // path inside app/routes, so no route's id or path changes.
        ignoredRouteFiles: ["**/*"],
        routes: async (defineRoutes) =>
          flatRoutes("routes", defineRoutes, {
            ignoredRouteFiles: ["**/*.test.*", "**/.*", "**/*.server.*", "**/__*"],
          }),
        future: {
          v3_fetcherPersist: true,
          v3_relativeSplatPath: true,
          v3_throwAbortReason: true,
          v3_singleFetch: true,
          v3_lazyRouteDiscovery: true,
        },
      }),
    // The service worker (docs/decisions/045-offline-shell-and-drafts.md), written before the
    // compressed copies are made (writeBundle runs before closeBundle).
    !process.env.VITEST && serviceWorker(),
    // Brotli and gzip copies of the browser build, served by app/server/client-files.ts.
    !process.env.VITEST && precompress(),
  ],
}));
