/**
 * The service worker (docs/decisions/045-offline-shell-and-drafts.md), built by
 * scripts/service-worker-build.ts into build/client/sw.js with Workbox's injectManifest.
 *
 * - The browser build's assets are precached (Workbox precaching), so a saved page draws offline.
 * - The dashboard and the last 50 MOC and PCR record pages the signed-in person opened are kept
 *   in one cache named after that person's id (`offline-pages-<id>`), with the time each copy was
 *   fetched. Without a link a saved page is served read-only (its scripts removed: no form on it
 *   can be sent, and nothing hydrates) under the banner "Offline — as of 14:05 UTC".
 * - Signing in or out (a POST to /login or /logout) and a page of another person empty every
 *   saved page first: nothing of one person's is shown to another.
 * Pages work without it: nothing here is needed to use the app.
 */
import { cleanupOutdatedCaches, precacheAndRoute } from "workbox-precaching";
import { registerRoute } from "workbox-routing";
import { offlineCopy, recordPath, userOfPage, PAGES_CACHE_PREFIX, KEEP_RECORDS } from "./pages";

type ManifestEntry = { url: string; revision: string | null };
type Clients = { claim(): Promise<void> };
type WorkerScope = {
  __WB_MANIFEST: ManifestEntry[];
  clients: Clients;
  skipWaiting(): Promise<void>;
  addEventListener(type: "activate", listener: (event: { waitUntil(p: Promise<unknown>): void }) => void): void;
  addEventListener(type: "install", listener: () => void): void;
};
declare const self: WorkerScope;

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
self.addEventListener("install", () => void self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

const FETCHED_HEADER = "X-Offline-Fetched";
/** A background copy of a record opened through a client-side navigation is fetched at most this often. */
const REFRESH_AFTER_MS = 5 * 60_000;

async function pageCaches(): Promise<string[]> {
  return (await caches.keys()).filter((name) => name.startsWith(PAGES_CACHE_PREFIX));
}

export async function forgetPages(): Promise<void> {
  await Promise.all((await pageCaches()).map((name) => caches.delete(name)));
}

/** Keeps a copy of a signed-in page under its person's cache (and drops anyone else's). */
async function keep(path: string, response: Response): Promise<void> {
  const html = await response.text();
  const user = userOfPage(html);
  if (!user) return;
  const name = PAGES_CACHE_PREFIX + user;
  await Promise.all((await pageCaches()).filter((other) => other !== name).map((other) => caches.delete(other)));
  const cache = await caches.open(name);
  const headers = new Headers({ "Content-Type": "text/html; charset=utf-8", [FETCHED_HEADER]: String(Date.now()) });
  // Deleted first, so the order of the keys is the order of last use.
  await cache.delete(path);
  await cache.put(path, new Response(html, { headers }));
  const records = (await cache.keys()).filter((request) => new URL(request.url).pathname !== "/");
  await Promise.all(records.slice(0, Math.max(0, records.length - KEEP_RECORDS)).map((r) => cache.delete(r)));
}

async function savedCopy(path: string): Promise<Response | undefined> {
  const [name] = await pageCaches();
  if (!name) return undefined;
  const cached = await (await caches.open(name)).match(path);
  if (!cached) return undefined;
  const fetchedAt = Number(cached.headers.get(FETCHED_HEADER) ?? Date.now());
  return new Response(offlineCopy(await cached.text(), new Date(fetchedAt), new Date()), {
    headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" },
  });
}

const notSaved = () =>
  new Response(offlineCopy(null, null, new Date()), {
    status: 503,
    headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" },
  });

// Pages: from the network, a copy kept of the dashboard and the records; without a link, the copy.
registerRoute(
  ({ request }) => request.mode === "navigate" && request.method === "GET",
  async ({ request }) => {
    const path = new URL(request.url).pathname;
    const saved = recordPath(path);
    try {
      const response = await fetch(request);
      const type = response.headers.get("Content-Type") ?? "";
      if (saved && response.ok && !response.redirected && type.startsWith("text/html")) {
        await keep(path, response.clone());
      }
      return response;
    } catch (error) {
      if (!navigator.onLine || error instanceof TypeError) return (await savedCopy(path)) ?? notSaved();
      throw error;
    }
  },
);

// A record opened by a client-side navigation arrives as data, not a page: its page is fetched
// once in the background (at most every 5 minutes) so that it can be read offline too.
registerRoute(
  ({ request, url }) =>
    request.method === "GET" &&
    url.pathname.endsWith(".data") &&
    // The root's data alone is no page opened (the drafts read a flash with it).
    url.searchParams.get("_routes") !== "root" &&
    recordPath(pagePathOf(url)),
  async ({ request, url }) => {
    const response = await fetch(request);
    if (response.ok) void refresh(pagePathOf(url));
    return response;
  },
);

function pagePathOf(url: URL): string {
  const path = url.pathname.replace(/\.data$/, "");
  return path === "/_root" ? "/" : path;
}

async function refresh(path: string): Promise<void> {
  const [name] = await pageCaches();
  if (name) {
    const cached = await (await caches.open(name)).match(path);
    const fetchedAt = Number(cached?.headers.get(FETCHED_HEADER) ?? 0);
    if (Date.now() - fetchedAt < REFRESH_AFTER_MS) return;
  }
  try {
    const response = await fetch(path, { credentials: "same-origin", redirect: "manual" });
    if (response.ok && (response.headers.get("Content-Type") ?? "").startsWith("text/html")) await keep(path, response);
  } catch {
    // No link: the copy stays as it was.
  }
}

// Signing in or out: every saved page goes first.
registerRoute(
  ({ url }) => /^\/(login|logout)(\/|\.data|$)/.test(url.pathname),
  async ({ request }) => {
    await forgetPages();
    return fetch(request);
  },
  "POST",
);
