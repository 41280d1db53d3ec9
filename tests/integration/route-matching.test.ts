/**
 * The server's route matching keeps each route array's ranked branches, each path's compiled
 * expression and each pathname's matches (scripts/patch-remix-router.mjs, docs/performance.md
 * "Route matching"): the patch is
 * applied by `npm install`, and the patched matcher answers exactly as the unpatched one (the
 * browser's ES module, which is left as it is) for every kind of route path, on first and repeated
 * calls, and after the array changes.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const patchedFile = require.resolve("@remix-run/router/dist/router.cjs.js");
type Route = { id: string; path?: string; index?: boolean; caseSensitive?: boolean; children?: Route[] };
type Matcher = {
  matchRoutes: (routes: Route[], location: string) => { route: { id: string }; params: object }[] | null;
};
const patched = require(patchedFile) as Matcher;

const tree = (): Route[] => [
  {
    id: "root",
    path: "",
    children: [
      { id: "index", index: true },
      {
        id: "mocs",
        path: "mocs",
        children: [
          { id: "mocs-index", index: true },
          { id: "moc", path: ":id" },
        ],
      },
      { id: "moc-step", path: "mocs/:id/:step" },
      { id: "moc-pdf", path: "mocs/:id/pdf" },
      { id: "optional", path: "archive/:kind?" },
      { id: "case", path: "Admin/Users", caseSensitive: true },
      { id: "api-floor", path: "api/floor" },
      { id: "api-submit", path: "api/submit/:step" },
      { id: "splat", path: "files/*" },
      { id: "not-found", path: "*" },
    ],
  },
];

const PATHS = [
  "/",
  "/mocs",
  "/mocs/",
  "/mocs/123",
  "/mocs/123/pdf",
  "/mocs/123/hseq",
  "/archive",
  "/archive/pcr",
  "/Admin/Users",
  "/admin/users",
  "/api/floor",
  "/API/FLOOR",
  "/api/submit/hseq",
  "/files/a/b/c.pdf",
  "/mocs/%20x",
  "/nothing/here",
];

const summary = (m: ReturnType<Matcher["matchRoutes"]>) => m?.map((x) => [x.route.id, x.params]) ?? null;

describe("route matching on the server", () => {
  it("is patched by npm install", () => {
    expect(readFileSync(patchedFile, "utf8")).toContain("change-management: ranked branches kept per route array");
  });

  it("answers as the unpatched matcher, on first and repeated calls and after the routes change", async () => {
    const unpatched = (await import("@remix-run/router/dist/router.js" as string)) as Matcher;
    const routes = tree();
    for (let round = 0; round < 3; round++) {
      for (const path of PATHS) {
        expect(summary(patched.matchRoutes(routes, path)), path).toEqual(summary(unpatched.matchRoutes(routes, path)));
      }
    }
    // Each caller gets its own copy: its entries share one params object, as the router makes
    // them, and what one request does to it does not reach the next.
    const first = patched.matchRoutes(routes, "/mocs/123")!;
    expect(first[0]!.params).toBe(first[1]!.params);
    (first[1]!.params as Record<string, string>).id = "changed";
    expect(summary(patched.matchRoutes(routes, "/mocs/123"))).toEqual(
      summary(unpatched.matchRoutes(routes, "/mocs/123")),
    );
    // More distinct static paths than are kept (1,000 per array; here case variants): the same answers.
    for (let n = 0; n < 1_500; n++) {
      const path = [..."/api/floor"].map((c, i) => ((n >> i) & 1 ? c.toUpperCase() : c)).join("") + "/".repeat(n % 3);
      expect(summary(patched.matchRoutes(routes, path))).toEqual(summary(unpatched.matchRoutes(routes, path)));
    }
    // Paths with parameters (ids, tokens) are matched each time, never kept.
    for (let n = 0; n < 1_500; n++) {
      const path = `/mocs/${n}/step-${n % 7}`;
      expect(summary(patched.matchRoutes(routes, path))).toEqual(summary(unpatched.matchRoutes(routes, path)));
    }
    // A route added to the array: ranked again, not the kept branches.
    routes.push({ id: "late", path: "late/:x" });
    expect(summary(patched.matchRoutes(routes, "/late/1"))).toEqual([["late", { x: "1" }]]);
    expect(summary(patched.matchRoutes(routes, "/late/1"))).toEqual(summary(unpatched.matchRoutes(routes, "/late/1")));
  });
});
