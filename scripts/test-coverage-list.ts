/**
 * What the tests cover, as a sorted text list to compare before and after a change to the tests
 * (issue 39: CI made faster with nothing lost):
 *
 *   node --import tsx scripts/test-coverage-list.ts [root] [--out FILE]
 *
 * `root` is a checkout (default: this one); it is only read. The list has one line per
 * - integration test: `vitest <file> › <describe › title>`, as `vitest list` reads the files
 *   (statically, so no test code runs and no database is needed: a title written with a template
 *   or `it.each` is listed as written);
 * - browser test run, per Playwright project: `e2e[<project>] <file> › <describe › title>`, as
 *   `playwright test --list` reports them, tags written in a title left out (a test tagged so that
 *   the no-js project skips it loses its `e2e[no-js]` line and keeps its `e2e[js]` one);
 * - route file under app/routes: `route <file> <path> requested|not requested`, whether a path
 *   written in tests/ (a string such as `/mocs/${moc._id}/hseq`, whoever sends it: a page, the API
 *   helper, a request built for a loader) reaches that route, or one of its children.
 *
 * `diff` of two lists shows what was lost or gained; the counts go to stderr.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { UNSAFE_defineRoutes as defineRoutes } from "@remix-run/dev";
import { flatRoutes } from "remix-flat-routes";
import ts from "typescript";

const args = process.argv.slice(2);
const outAt = args.indexOf("--out");
const out = outAt === -1 ? null : args[outAt + 1];
const root = path.resolve(args.find((arg, i) => !arg.startsWith("--") && i !== outAt + 1) ?? ".");

/** A binary of the checkout's own dependencies (a worktree's node_modules may be a link to another's). */
const bin = (name: string) => path.join(root, "node_modules", ".bin", name);

function vitestTitles(): string[] {
  const dir = mkdtempSync(path.join(tmpdir(), "cm-coverage-"));
  try {
    const file = path.join(dir, "vitest.json");
    execFileSync(bin("vitest"), ["list", "--staticParse", `--json=${file}`], {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
    });
    const tests = JSON.parse(readFileSync(file, "utf8")) as { name: string; file: string }[];
    return tests.map((t) => `vitest ${path.relative(root, t.file)} › ${t.name.replaceAll(" > ", " › ")}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type PlaywrightSuite = {
  title: string;
  file: string;
  specs?: { title: string; file: string; tests: { projectName: string }[] }[];
  suites?: PlaywrightSuite[];
};

/** A title without the tags written in it (`@js`, `@once`...): they decide where a test runs, listed by project. */
const untagged = (title: string) =>
  title
    .replace(/(^|\s)@[\w-]+(?=\s|$)/g, " ")
    .replace(/\s+/g, " ")
    .trim();

function playwrightRuns(): string[] {
  const report = execFileSync(bin("playwright"), ["test", "-c", "tests/e2e", "--list", "--reporter=json"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const { suites } = JSON.parse(report) as { suites: PlaywrightSuite[] };
  const lines: string[] = [];
  const walk = (suite: PlaywrightSuite, titles: string[]) => {
    for (const spec of suite.specs ?? []) {
      const title = [...titles, untagged(spec.title)].join(" › ");
      for (const t of spec.tests) lines.push(`e2e[${t.projectName}] ${spec.file} › ${title}`);
    }
    for (const child of suite.suites ?? []) walk(child, [...titles, untagged(child.title)]);
  };
  // The top suites are the files, named by the lines themselves.
  for (const file of suites) walk(file, []);
  return lines;
}

type Route = { id: string; file: string; path: string; parentId?: string; index?: boolean };

/** The app's routes as the build reads them: the same folders and ignored files as vite.config.ts. */
function routes(): Route[] {
  const manifest = flatRoutes("routes", defineRoutes, {
    appDir: path.join(root, "app"),
    ignoredRouteFiles: ["**/*.test.*", "**/.*", "**/*.server.*", "**/__*"],
  });
  const byId = new Map(Object.values(manifest).map((r) => [r.id, r]));
  const fullPath = (id: string | undefined): string[] => {
    const route = id ? byId.get(id) : undefined;
    if (!route) return [];
    return [...fullPath(route.parentId), ...(route.path ? route.path.split("/") : [])];
  };
  return Object.values(manifest).map((r) => ({
    id: r.id,
    file: path.join("app", r.file),
    path: `/${fullPath(r.id).join("/")}`,
    parentId: r.parentId,
    index: r.index,
  }));
}

/** A value written in a test that may name a path: a placeholder stands for each `${...}`. */
const PLACEHOLDER = "\uE000";

function filesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) found.push(...filesUnder(full));
    else if (/\.tsx?$/.test(name)) found.push(full);
  }
  return found;
}

/** Every string in tests/ (but the benchmarks, which test nothing) that reads as a path: `/...`, or a URL's path. */
function pathsInTests(): string[] {
  const paths = new Set<string>();
  const sources = ["integration", "e2e", "helpers", "cluster"].flatMap((dir) =>
    filesUnder(path.join(root, "tests", dir)),
  );
  for (const file of sources) {
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      let text: string | null = null;
      if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
      else if (ts.isTemplateExpression(node)) {
        text = node.head.text + node.templateSpans.map((span) => PLACEHOLDER + span.literal.text).join("");
      }
      if (text !== null) {
        // A URL (or a base URL in a placeholder) in front of the path is left out.
        const value = text.replace(/^(?:https?:\/\/[^/]+|\uE000(?=\/))/, "");
        if (value.startsWith("/") && !value.startsWith("//")) paths.add(value.split(/[?#]/)[0]!);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return [...paths];
}

/**
 * The routes a written path reaches, best first as the router ranks them (static segments over
 * parameters). A placeholder segment stands for a parameter; it is taken for a static segment
 * only when no route has a parameter there, and a splat (the 404 pages) only when no other route
 * matches at all.
 */
function reached(written: string, all: Route[]): Route[] {
  const segments = written.split("/").filter(Boolean);
  const score = (route: Route, placeholderAsStatic: boolean): number | null => {
    const pattern = route.path.split("/").filter(Boolean);
    let total = route.index ? 1 : 0;
    for (let i = 0; i < pattern.length; i++) {
      const want = pattern[i]!;
      const have = segments[i];
      if (want === "*") return total;
      if (have === undefined) return want.endsWith("?") ? total : null;
      const param = want.startsWith(":");
      if (have.includes(PLACEHOLDER) && !param && !placeholderAsStatic) return null;
      if (!param && !have.includes(PLACEHOLDER) && want.replace(/\?$/, "") !== have) return null;
      total += param ? 3 : 10;
    }
    return segments.length === pattern.length ? total : null;
  };
  const splat = (route: Route) => route.path.endsWith("*");
  for (const [placeholderAsStatic, splats] of [
    [false, false],
    [true, false],
    [false, true],
  ] as const) {
    const ranked = all
      .filter((route) => splat(route) === splats)
      .map((route) => ({ route, score: score(route, placeholderAsStatic) }))
      .filter((r): r is { route: Route; score: number } => r.score !== null)
      .sort((a, b) => b.score - a.score);
    if (!ranked.length) continue;
    // A placeholder taken as static may be any of them; otherwise the path reaches the best only.
    return placeholderAsStatic ? ranked.map((r) => r.route) : [ranked[0]!.route];
  }
  return [];
}

function routeLines(): string[] {
  const all = routes();
  const byId = new Map(all.map((r) => [r.id, r]));
  const requested = new Set<string>();
  for (const written of pathsInTests()) {
    for (const route of reached(written, all)) {
      // A page's parents (its layouts) answer with it: their loaders run on the same request.
      for (let at: Route | undefined = route; at; at = at.parentId ? byId.get(at.parentId) : undefined) {
        requested.add(at.id);
      }
    }
  }
  return all.map((r) => `route ${r.file} ${r.path} ${requested.has(r.id) ? "requested" : "not requested"}`);
}

const lines = [...vitestTitles(), ...playwrightRuns(), ...routeLines()].sort();
writeFileSync(out ?? 1, `${lines.join("\n")}\n`);

const count = (prefix: string) => lines.filter((l) => l.startsWith(prefix)).length;
const projects = [...new Set(lines.map((l) => /^e2e\[([^\]]+)\]/.exec(l)?.[1]).filter(Boolean))].sort();
console.error(
  [
    `${count("vitest ")} integration tests`,
    ...projects.map((p) => `${count(`e2e[${p}] `)} browser test runs in ${p}`),
    `${lines.filter((l) => l.startsWith("route ") && l.endsWith(" requested") && !l.endsWith("not requested")).length} of ${count("route ")} routes requested`,
  ].join(", "),
);
