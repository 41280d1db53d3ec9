/**
 * How the browser build is cut into files (docs/decisions/032-pages-at-sea.md, "Fewer files"):
 * Rollup's `manualChunks` for vite.config.ts.
 *
 * Over a ship's link each file of a cold load costs a 700 ms round trip, and a browser asks for at
 * most six at once over HTTP/1.1: left to itself, Rollup cut a record page's code into 23 files,
 * 15 of them under 2 KiB, and the small ones queued behind each other for seconds. Three groups:
 *
 * - `framework`: React, react-dom, React Router, Remix and their helpers, which every page needs to
 *   hydrate. Rollup joins it to Remix's entry module, so a page's first script is one file.
 * - `shared`: the app's own small modules (components, models, utilities, the database enums the
 *   pages show) that the root or at least three pages use and that import nothing but the
 *   framework and other such modules. One file of 8 KiB that every page loads, instead of a dozen
 *   files of a few hundred bytes each.
 * - `forms`: conform and the form helpers built on it, one file for the pages with a form (pages
 *   that only post a button take theirs from app/components/submit.tsx, without conform).
 *
 * Everything else is left to Rollup: route modules, larger components, and what a page loads on
 * first use with `import()` (a form's validator, the signature pad, the drafts), which must stay out
 * of a cold load. `npm run budget` (scripts/js-budget.ts) checks the result per route.
 */
import path from "node:path";

type ModuleInfo = { code: string | null; importedIds: readonly string[]; importers: readonly string[] };
type ChunkMeta = { getModuleInfo: (id: string) => ModuleInfo | null };

const FRAMEWORK =
  /\/node_modules\/(react|react-dom|scheduler|react-router|react-router-dom|@remix-run\/[^/]+|turbo-stream)\//;
const ROOT = path.resolve(import.meta.dirname, "..");
const SHARED_DIRS = ["app/components/", "app/models/", "app/utils/", "db/schema/"].map((dir) => path.join(ROOT, dir));
const CONFORM = /\/node_modules\/@conform-to\/(react|dom)\//;
/** A module's source (as Vite hands it to Rollup, types stripped) above this is left to Rollup. */
const SHARED_MAX_CHARS = 6000;
/** Used by fewer pages than this (and not by the root), a module stays with its pages. */
const SHARED_MIN_PAGES = 3;
const ROUTES = path.join(ROOT, "app/routes/");
/** With conform, what the pages with a form share. */
const FORMS = [
  "app/components/forms.tsx",
  "app/components/schema-form.ts",
  "app/components/lazy-validation.ts",
  "app/components/focus-first-invalid.ts",
].map((file) => path.join(ROOT, file));

function isFramework(id: string): boolean {
  return FRAMEWORK.test(id) || id.includes("vite/preload-helper") || id.includes("commonjsHelpers");
}

/** The pages whose code reaches a module through static imports ("root" for the root route: all). */
function pagesReaching(id: string, meta: ChunkMeta, memo: Map<string, Set<string>>): Set<string> {
  const known = memo.get(id);
  if (known) return known;
  const pages = new Set<string>();
  memo.set(id, pages); // an import cycle adds nothing
  if (id === path.join(ROOT, "app/root.tsx")) pages.add("root");
  else if (id.startsWith(ROUTES) && !path.basename(id).startsWith("__")) pages.add(id);
  else
    for (const importer of meta.getModuleInfo(id)?.importers ?? []) {
      for (const page of pagesReaching(importer, meta, memo)) pages.add(page);
    }
  return pages;
}

/**
 * Small, used by the root or by several pages, not a zod schema (those load on first use), and all
 * it imports is the framework or shared too: Rollup puts a manual chunk's unassigned imports into
 * it, so one module importing a library would drag the library into every page. A module only a
 * page or two use stays with them.
 */
function isShared(id: string, meta: ChunkMeta, seen: Map<string, boolean>, memo: Map<string, Set<string>>): boolean {
  const known = seen.get(id);
  if (known !== undefined) return known;
  seen.set(id, false); // an import cycle decides nothing
  const info = meta.getModuleInfo(id);
  const pages = pagesReaching(id, meta, memo);
  const shared =
    !!info &&
    SHARED_DIRS.some((dir) => id.startsWith(dir)) &&
    !id.endsWith(".schema.ts") &&
    (info.code ?? "").length <= SHARED_MAX_CHARS &&
    (pages.has("root") || pages.size >= SHARED_MIN_PAGES) &&
    info.importedIds.every((dep) => isFramework(dep) || isShared(dep, meta, seen, memo));
  seen.set(id, shared);
  return shared;
}

/** A fresh `manualChunks` for one build (it remembers its verdicts for that build's modules). */
export function manualChunks(): (id: string, meta: ChunkMeta) => string | undefined {
  const seen = new Map<string, boolean>();
  const memo = new Map<string, Set<string>>();
  return (id, meta) => {
    if (isFramework(id)) return "framework";
    if (CONFORM.test(id) || FORMS.includes(id)) return "forms";
    return isShared(id, meta, seen, memo) ? "shared" : undefined;
  };
}
