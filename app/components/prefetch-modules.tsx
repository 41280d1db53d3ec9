/**
 * Code for the next page, fetched while the person reads this one (docs/decisions/032-pages-at-sea.md).
 *
 * Over a ship's link a navigation to a page whose code the browser has not seen waits one more
 * 700 ms round trip for that code before its data arrives. Once a page has loaded and the browser
 * is idle, the route modules of the pages its links lead to are fetched with `modulepreload`; they
 * are cached for good (their names carry their content hash), so a click then waits for the data
 * alone. Data is never fetched ahead: it costs the ship's bandwidth and would be stale.
 *
 * Links are matched against the routes the router knows; Remix discovers the routes of rendered
 * links shortly after hydration (`/__manifest`), so links not matched yet are tried again later.
 */
import { useLocation, useNavigation } from "@remix-run/react";
import { useEffect } from "react";
import { matchRoutes, type RouteObject } from "react-router-dom";

type ManifestRoute = { module: string; imports?: string[] };
type RemixWindow = Window & {
  __remixRouter?: { routes: RouteObject[] };
  __remixManifest?: { routes: Record<string, ManifestRoute | undefined> };
};

/** Unmatched links are looked at again this many times, a second apart (route discovery). */
const ATTEMPTS = 5;
/**
 * At most this many pages' code per page read: the likeliest next clicks (links in the page's own
 * content first, then the header's), not every page an admin's header names, so a cold start
 * costs a ship tens of KiB, not the whole app.
 */
const MAX_ROUTES = 8;
const NOT_FOUND_ROUTE = "routes/$";

/**
 * The route `href` leads to and the module URLs of its routes, or null while its routes are not
 * discovered yet.
 */
export function modulesFor(win: RemixWindow, href: string): { route: string; modules: string[] } | null {
  const routes = win.__remixRouter?.routes;
  const manifest = win.__remixManifest?.routes;
  if (!routes || !manifest) return { route: "", modules: [] };
  const matches = matchRoutes(routes, href);
  const last = matches?.at(-1);
  if (!matches || !last?.route.id || last.route.id === NOT_FOUND_ROUTE) return null;
  const modules = matches.flatMap((match) => {
    const route = match.route.id ? manifest[match.route.id] : undefined;
    return route ? [route.module, ...(route.imports ?? [])] : [];
  });
  return { route: last.route.id, modules };
}

/**
 * The same-origin paths the page links to (not downloads, not other sites, not this page): the
 * page's content first, then the rest (the header).
 */
function linkedPaths(doc: Document): string[] {
  const here = doc.location.pathname;
  const paths = new Set<string>();
  const anchors = [
    ...doc.querySelectorAll<HTMLAnchorElement>("main a[href]"),
    ...doc.querySelectorAll<HTMLAnchorElement>("a[href]"),
  ];
  for (const anchor of anchors) {
    if (anchor.hasAttribute("download") || anchor.target === "_blank") continue;
    const url = new URL(anchor.href, doc.baseURI);
    if (url.origin !== doc.location.origin || url.pathname === here) continue;
    // Resource routes (API, files, PDFs) are not pages: the router never loads their modules.
    if (/^\/(api|uploads|attachments)\//.test(url.pathname) || /\.\w+$/.test(url.pathname)) continue;
    paths.add(url.pathname);
  }
  return [...paths];
}

function preload(doc: Document, modules: Iterable<string>) {
  const present = new Set(
    [...doc.querySelectorAll<HTMLLinkElement>('link[rel="modulepreload"]')].map((link) => link.getAttribute("href")),
  );
  for (const href of modules) {
    if (present.has(href)) continue;
    present.add(href);
    const link = doc.createElement("link");
    link.rel = "modulepreload";
    link.href = href;
    doc.head.appendChild(link);
  }
}

export function PrefetchLinkedModules() {
  const { key } = useLocation();
  const { state } = useNavigation();
  useEffect(() => {
    if (state !== "idle") return;
    const win = window as RemixWindow;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let idle: number | undefined;
    let pending = linkedPaths(document);
    const chosen = new Set<string>();
    const attempt = (left: number) => {
      const modules = new Set<string>();
      const later: string[] = [];
      for (const path of pending) {
        const found = modulesFor(win, path);
        if (found === null) later.push(path);
        else if (chosen.has(found.route) || chosen.size < MAX_ROUTES) {
          chosen.add(found.route);
          for (const module of found.modules) modules.add(module);
        }
      }
      preload(document, modules);
      pending = later;
      if (pending.length && left > 1) timer = setTimeout(() => schedule(left - 1), 1000);
    };
    const schedule = (left: number) => {
      if ("requestIdleCallback" in win) idle = win.requestIdleCallback(() => attempt(left), { timeout: 3000 });
      else timer = setTimeout(() => attempt(left), 200);
    };
    // After the load event: the page's own resources come first.
    const start = () => schedule(ATTEMPTS);
    if (document.readyState === "complete") start();
    else win.addEventListener("load", start, { once: true });
    return () => {
      win.removeEventListener("load", start);
      if (timer) clearTimeout(timer);
      if (idle !== undefined && "cancelIdleCallback" in win) win.cancelIdleCallback(idle);
    };
  }, [key, state]);
  return null;
}
