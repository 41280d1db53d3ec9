/**
 * Route matching without re-ranking the routes on every request (docs/performance.md, "Route
 * matching"). Run by `npm install` (postinstall).
 *
 * @remix-run/router 1.x flattens and ranks the whole route tree on every `matchRoutes` call, and
 * Remix's server matches twice per request (the request handler, then the static handler's
 * `query`/`queryRoute`). With this app's ~200 routes that was about half of the CPU of the floor
 * route (a CPU profile of `GET /api/floor` under load: 54 % in flattenRoutes, compilePath,
 * computeScore and rankRouteBranches); then each route tried compiled its path's regular expression
 * again (24 %). The route arrays the server passes are built once from the build and never change,
 * so this patch keeps the ranked branches of each array (a WeakMap keyed by the array; recomputed
 * if its length changes), each path's compiled expression (a pure function of the path and two
 * flags; the expressions have no `g` flag, so sharing them is safe; at most 2,000 kept), and each
 * array's matches of a static pathname (one that matched without parameters, so never an id or a
 * token from a sign-in link; at most 1,000 per array; every caller gets a fresh copy of the matches
 * and their params, so nothing a request does reaches another). Only the
 * CommonJS file, which the server loads,
 * is patched; the browser bundle (the ES module) is left as it is, since the browser's router
 * adds routes as it discovers them.
 *
 * Idempotent; a version whose code no longer matches is left unpatched, with a warning
 * (tests/integration/route-matching.test.ts fails then, so an upgrade is noticed).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import console from "node:console";
import process from "node:process";

export const MARKER = "/* change-management: ranked branches kept per route array */";
const require = createRequire(import.meta.url);
let file;
try {
  file = require.resolve("@remix-run/router/dist/router.cjs.js");
} catch {
  process.exit(0); // not installed (a partial install): nothing to patch
}
const source = readFileSync(file, "utf8");
if (source.includes(MARKER)) process.exit(0);

const CALL = "  let branches = flattenRoutes(routes);\n  rankRouteBranches(branches);\n  let matches = null;";
const IMPL = "function matchRoutesImpl(routes, locationArg, basename, allowPartial) {";
const COMPILE = "function compilePath(path, caseSensitive, end) {";
if ([CALL, IMPL, COMPILE].some((code) => source.split(code).length !== 2)) {
  console.warn(`patch-remix-router: ${file} has changed; route matching is left unpatched (slower)`);
  process.exit(0);
}
const CACHE = `${MARKER}
const keptByRoutes = new WeakMap();
function keptOf(routes) {
  let kept = keptByRoutes.get(routes);
  if (!kept || kept.length !== routes.length) {
    let branches = flattenRoutes(routes);
    rankRouteBranches(branches);
    kept = { length: routes.length, branches, matches: new Map() };
    keptByRoutes.set(routes, kept);
  }
  return kept;
}
function rankedBranchesOf(routes) {
  return keptOf(routes).branches;
}
function matchRoutesImpl(routes, locationArg, basename, allowPartial) {
  let pathname = (typeof locationArg === "string" ? parsePath(locationArg) : locationArg).pathname || "/";
  let kept = keptOf(routes);
  let key = (allowPartial ? "1" : "0") + basename + "#" + pathname;
  let found = kept.matches.get(key);
  if (found === undefined) {
    found = matchRoutesImplUncached(routes, locationArg, basename, allowPartial);
    // Kept only for a path that matched without parameters (a route's own static path, like
    // /api/floor or /mocs): a pathname carrying an id or a token (a sign-in link) is never kept.
    if (found && Object.keys(found[0].params).length === 0) {
      if (kept.matches.size >= 1000) kept.matches.clear();
      kept.matches.set(key, found);
    }
  }
  if (!found) return found;
  // A fresh copy for each caller: the entries share one params object, as the router makes them.
  let params = Object.assign({}, found[0] && found[0].params);
  return found.map((match) => Object.assign({}, match, { params }));
}
const compiledPaths = new Map();
function compilePath(path, caseSensitive, end) {
  caseSensitive = caseSensitive === void 0 ? false : caseSensitive;
  end = end === void 0 ? true : end;
  let key = (caseSensitive ? "1" : "0") + (end ? "1" : "0") + path;
  let compiled = compiledPaths.get(key);
  if (!compiled) {
    if (compiledPaths.size >= 2000) compiledPaths.clear();
    compiled = compilePathUncached(path, caseSensitive, end);
    compiledPaths.set(key, compiled);
  }
  return compiled;
}
`;
writeFileSync(
  file,
  source
    // The original is renamed first: the cached `compilePath` added next has the same first line.
    .replace(COMPILE, "function compilePathUncached(path, caseSensitive, end) {")
    .replace(CALL, "  let branches = rankedBranchesOf(routes);\n  let matches = null;")
    .replace(IMPL, `${CACHE}${IMPL.replace("matchRoutesImpl(", "matchRoutesImplUncached(")}`),
);
