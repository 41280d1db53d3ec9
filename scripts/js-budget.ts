/**
 * The JavaScript budget (docs/decisions/032-pages-at-sea.md): for every route of the browser build,
 * the JavaScript a cold load of it fetches (Remix's entry and the modules of the route and its
 * parents, with their static imports: the `modulepreload` links of the page) must stay within its
 * budget, counted compressed as it crosses the wire (the `.br` file the build wrote, or brotli at
 * quality 11 when there is none). Code a page loads later (`import()` on first use: a form's
 * validator, the signature pad) is not part of a cold load.
 *
 *   node --import tsx scripts/js-budget.ts [--build build/client]
 *
 * Prints one line per route and exits 1 when any route is over its budget (`npm run lint` runs it
 * after a build; tests/integration/at-sea.test.ts checks that an oversized route fails it).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants } from "node:zlib";

export const DEFAULT_BUDGET_KIB = 100;
/** Routes allowed more than the default, and why. */
export const ROUTE_BUDGETS_KIB: Record<string, number> = {
  // Insight: figures, tables and charts for the whole fleet (docs/decisions/032-pages-at-sea.md: at most 150 KiB).
  "routes/insights": 150,
};

type ManifestRoute = {
  id: string;
  parentId?: string;
  path?: string;
  index?: boolean;
  module: string;
  imports?: string[];
};
type Manifest = { entry: { module: string; imports: string[] }; routes: Record<string, ManifestRoute> };

export type RouteWeight = { id: string; files: string[]; bytes: number; budgetBytes: number; over: boolean };

export function readManifest(buildDir: string): Manifest {
  const assets = path.join(buildDir, "assets");
  const file = readdirSync(assets).find((name) => /^manifest-[\w-]+\.js$/.test(name));
  if (!file) throw new Error(`no Remix manifest (assets/manifest-*.js) under ${buildDir}: build first`);
  const text = readFileSync(path.join(assets, file), "utf8");
  const json = /window\.__remixManifest\s*=\s*(\{[\s\S]*\})\s*;?\s*$/.exec(text)?.[1];
  if (!json) throw new Error(`${file} is not a Remix manifest`);
  return JSON.parse(json) as Manifest;
}

function compressedSize(buildDir: string, url: string, cache: Map<string, number>): number {
  const known = cache.get(url);
  if (known !== undefined) return known;
  const file = path.join(buildDir, url.replace(/^\//, ""));
  const size = existsSync(`${file}.br`)
    ? readFileSync(`${file}.br`).length
    : brotliCompressSync(readFileSync(file), {
        params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
      }).length;
  cache.set(url, size);
  return size;
}

/** The cold-load JavaScript of every route of the build, against its budget. */
export function weighRoutes(buildDir: string): RouteWeight[] {
  const manifest = readManifest(buildDir);
  const cache = new Map<string, number>();
  return Object.values(manifest.routes)
    .map((route) => {
      const files = new Set<string>([manifest.entry.module, ...manifest.entry.imports]);
      const chain: ManifestRoute[] = [];
      for (let at: ManifestRoute | undefined = route; at; at = at.parentId ? manifest.routes[at.parentId] : undefined) {
        chain.unshift(at);
      }
      for (const link of chain) for (const url of [...(link.imports ?? []), link.module]) files.add(url);
      const list = [...files];
      const bytes = list.reduce((sum, url) => sum + compressedSize(buildDir, url, cache), 0);
      const budgetBytes = (ROUTE_BUDGETS_KIB[route.id] ?? DEFAULT_BUDGET_KIB) * 1024;
      return { id: route.id, files: list, bytes, budgetBytes, over: bytes > budgetBytes };
    })
    .sort((a, b) => b.bytes - a.bytes);
}

function main(argv: string[]) {
  const at = argv.indexOf("--build");
  const buildDir = path.resolve(at >= 0 && argv[at + 1] ? argv[at + 1]! : "build/client");
  const weights = weighRoutes(buildDir);
  const kib = (bytes: number) => (bytes / 1024).toFixed(1);
  const lines = weights.map(
    (w) => `${w.over ? "OVER" : "ok  "} ${kib(w.bytes).padStart(6)} / ${kib(w.budgetBytes).padStart(5)} KiB  ${w.id}`,
  );
  const over = weights.filter((w) => w.over);
  process.stdout.write(
    `JavaScript of a cold load per route (brotli), against its budget:\n${lines.join("\n")}\n` +
      (over.length
        ? `${over.length} route(s) over budget: ${over.map((w) => w.id).join(", ")}\n`
        : `every route within budget\n`),
  );
  process.exitCode = over.length ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  }
}
