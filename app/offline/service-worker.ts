/**
 * The service worker (docs/decisions/045-offline-shell-and-drafts.md), built by
 * scripts/service-worker-build.ts into build/client/sw.js with Workbox's injectManifest.
 *
 * - The browser build's assets are precached (Workbox precaching), so a saved page draws offline.
 * - The dashboard and the last 50 MOC and PCR record pages the signed-in person opened are kept
 *   in one cache named after the session they were answered under (`offline-pages-<session>`, the
 *   name on <html data-offline-session>: a digest, never the token), with the time each copy was
 *   fetched, the session's end, and the page's security headers. Without a link a saved page is
 *   served read-only (its scripts removed: no form on it can be sent, and nothing hydrates) under
 *   the banner "Offline — as of 14:05 UTC", with the page's CSP forbidding any script.
 * - The session ends for the saved pages at the first answer that says so: a page of another
 *   session or of nobody, a redirect to sign in, a 401, a page's data naming no session. They all
 *   go then, and none is served after the session's end.
 * - Signing in or out (a POST to /login or /logout) empties every saved page first. A sign-out
 *   without a link is answered here (the signed-out page) and sent to the server before anything
 *   else once the link is back: the session cookie is the browser's, it goes with that post.
 * Pages work without it: nothing here is needed to use the app.
 */
import { cleanupOutdatedCaches, matchPrecache, precacheAndRoute } from "workbox-precaching";
import { registerRoute } from "workbox-routing";
import {
  KEEP_RECORDS,
  KEPT_HEADERS,
  linkedStylesheet,
  OFFLINE_PAGE_POLICY,
  offlineCopy,
  offlinePolicy,
  PAGES_CACHE_PREFIX,
  recordPath,
  sessionOfPage,
  signedOutPage,
  withStylesheetInline,
} from "./pages";

type ManifestEntry = { url: string; revision: string | null };
type Clients = { claim(): Promise<void> };
type Extendable = { waitUntil(p: Promise<unknown>): void };
type WorkerScope = {
  __WB_MANIFEST: ManifestEntry[];
  clients: Clients;
  registration: { sync?: { register(tag: string): Promise<void> } };
  skipWaiting(): Promise<void>;
  addEventListener(type: "activate", listener: (event: Extendable) => void): void;
  addEventListener(type: "install", listener: () => void): void;
  addEventListener(type: "sync", listener: (event: Extendable & { tag: string }) => void): void;
  addEventListener(type: "message", listener: (event: Extendable & { data: unknown }) => void): void;
};
declare const self: WorkerScope;

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
self.addEventListener("install", () => void self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

const FETCHED_HEADER = "X-Offline-Fetched";
const EXPIRES_HEADER = "X-Offline-Expires";
/** A background copy of a record opened through a client-side navigation is fetched at most this often. */
const REFRESH_AFTER_MS = 5 * 60_000;
/** Where a sign-out made without a link waits (an empty marker: the cookie stays the browser's). */
const SIGN_OUT_CACHE = "offline-sign-out";
const SIGN_OUT_KEY = "/logout";

async function pageCaches(): Promise<string[]> {
  return (await caches.keys()).filter((name) => name.startsWith(PAGES_CACHE_PREFIX));
}

export async function forgetPages(): Promise<void> {
  await Promise.all((await pageCaches()).map((name) => caches.delete(name)));
}

/** An answer named the session in use now (null: none): pages saved under any other go. */
async function sessionIs(session: string | null): Promise<void> {
  const keep = session === null ? null : PAGES_CACHE_PREFIX + session;
  await Promise.all((await pageCaches()).filter((name) => name !== keep).map((name) => caches.delete(name)));
}

const toSignIn = (response: Response) => response.redirected && new URL(response.url).pathname === "/login";
const isPage = (response: Response) => (response.headers.get("Content-Type") ?? "").startsWith("text/html");

/** Keeps a copy of a signed-in page under its session's cache (and drops every other session's). */
async function keep(path: string, response: Response): Promise<void> {
  const html = await withOwnStylesheet(await response.text());
  const session = sessionOfPage(html);
  await sessionIs(session?.id ?? null);
  if (!session || session.expires <= Date.now()) return;
  const cache = await caches.open(PAGES_CACHE_PREFIX + session.id);
  const headers = new Headers({
    "Content-Type": "text/html; charset=utf-8",
    [FETCHED_HEADER]: String(Date.now()),
    [EXPIRES_HEADER]: String(session.expires),
  });
  for (const name of KEPT_HEADERS) {
    const value = response.headers.get(name);
    if (value) headers.set(name, value);
  }
  // Deleted first, so the order of the keys is the order of last use.
  await cache.delete(path);
  await cache.put(path, new Response(html, { headers }));
  const records = (await cache.keys()).filter((request) => new URL(request.url).pathname !== "/");
  await Promise.all(records.slice(0, Math.max(0, records.length - KEEP_RECORDS)).map((r) => cache.delete(r)));
}

/** The page with the stylesheet it links written in, from the precache (or the network); as it is when neither has it. */
async function withOwnStylesheet(html: string): Promise<string> {
  const href = linkedStylesheet(html);
  if (!href) return html;
  try {
    const sheet = (await matchPrecache(href)) ?? (await fetch(href));
    return sheet.ok ? withStylesheetInline(html, await sheet.text()) : html;
  } catch {
    return html;
  }
}

/** What a page's answer says of the session: kept when it is a saved page, the others dropped. */
async function observe(path: string, response: Response): Promise<void> {
  if (response.status === 401 || toSignIn(response)) return forgetPages();
  if (!isPage(response) || response.status >= 500) return;
  if (recordPath(path) && response.ok && !response.redirected) return keep(path, response);
  await sessionIs(sessionOfPage(await response.text())?.id ?? null);
}

async function savedCopy(path: string): Promise<Response | undefined> {
  const [name] = await pageCaches();
  if (!name) return undefined;
  const cached = await (await caches.open(name)).match(path);
  if (!cached) return undefined;
  // Past the session's end nothing of it is shown, and nothing of it is kept.
  if (!(Number(cached.headers.get(EXPIRES_HEADER)) > Date.now())) {
    await forgetPages();
    return undefined;
  }
  const fetchedAt = Number(cached.headers.get(FETCHED_HEADER) ?? Date.now());
  const headers = new Headers({ "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" });
  for (const name of KEPT_HEADERS) {
    const value = cached.headers.get(name);
    if (value) headers.set(name, value);
  }
  headers.set("Content-Security-Policy", offlinePolicy(cached.headers.get("Content-Security-Policy")));
  return new Response(offlineCopy(await cached.text(), new Date(fetchedAt), new Date()), { headers });
}

const written = (html: string, status: number) =>
  new Response(html, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Security-Policy": OFFLINE_PAGE_POLICY,
      "X-Content-Type-Options": "nosniff",
      "X-Frame-Options": "DENY",
    },
  });

/** The answer to a page without a link: the sign-in address says signed out, a saved page its copy. */
async function withoutLink(path: string): Promise<Response> {
  if (path === "/login") return written(signedOutPage(await signOutWaiting()), 200);
  return (await savedCopy(path)) ?? written(offlineCopy(null, null, new Date()), 503);
}

// ---- a sign-out without a link ---------------------------------------------------------------

const signOutWaiting = async () => !!(await caches.match(SIGN_OUT_KEY, { cacheName: SIGN_OUT_CACHE }));

async function queueSignOut(): Promise<void> {
  await (await caches.open(SIGN_OUT_CACHE)).put(SIGN_OUT_KEY, new Response(""));
  // Where the browser offers it, it wakes the worker when the link returns, with no page open.
  await self.registration.sync?.register("sign-out").catch(() => undefined);
}

let sending: Promise<void> | null = null;

/**
 * Sends a waiting sign-out: the post a "Sign out" button makes, with the browser's session cookie;
 * the server revokes the session and clears the cookie. Kept when there is still no link (or the
 * server failed), dropped once the server has answered.
 */
function sendSignOut(): Promise<void> {
  sending ??= (async () => {
    if (!(await signOutWaiting())) return;
    try {
      const response = await fetch("/logout", {
        method: "POST",
        credentials: "same-origin",
        redirect: "manual",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "",
      });
      if (response.status < 500) await caches.delete(SIGN_OUT_CACHE);
    } catch {
      // Still no link.
    }
  })().finally(() => (sending = null));
  return sending;
}

self.addEventListener("sync", (event) => {
  if (event.tag === "sign-out") event.waitUntil(sendSignOut());
});

self.addEventListener("message", (event) => {
  const message = event.data as { type?: string; id?: unknown } | null;
  if (message?.type === "online") event.waitUntil(sendSignOut());
  else if (message?.type === "session") event.waitUntil(sessionIs(typeof message.id === "string" ? message.id : null));
});

// ---- routes ----------------------------------------------------------------------------------

// Pages: from the network, a copy kept of the dashboard and the records; without a link, the copy.
registerRoute(
  ({ request }) => request.mode === "navigate" && request.method === "GET",
  async ({ request, event }) => {
    const path = new URL(request.url).pathname;
    // A sign-out made without a link goes first; while it cannot, no page goes with the old cookie.
    await sendSignOut();
    if (await signOutWaiting()) return withoutLink(path);
    try {
      const response = await fetch(request);
      // Read beside the page, which streams to the browser meanwhile.
      (event as Extendable).waitUntil(observe(path, response.clone()));
      return response;
    } catch (error) {
      if (!navigator.onLine || error instanceof TypeError) return withoutLink(path);
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
    await sendSignOut();
    if (await signOutWaiting()) return Response.error();
    const response = await fetch(request);
    if (response.status === 401) await forgetPages();
    else if (response.ok) void refresh(pagePathOf(url));
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
    const response = await fetch(path, { credentials: "same-origin" });
    await observe(path, response);
  } catch {
    // No link: the copy stays as it was.
  }
}

// Signing in or out: every saved page goes first. A sign-out without a link is answered here:
// the browser goes to the sign-in address (the signed-out page), and the server is told later.
registerRoute(
  ({ url }) => /^\/(login|logout)(\/|\.data|$)/.test(url.pathname),
  async ({ request, url }) => {
    await forgetPages();
    const signingOut = url.pathname.startsWith("/logout");
    if (!signingOut) await sendSignOut();
    try {
      const response = await fetch(request);
      if (signingOut) await caches.delete(SIGN_OUT_CACHE);
      return response;
    } catch (error) {
      if (!signingOut || request.mode !== "navigate" || !(error instanceof TypeError)) throw error;
      await queueSignOut();
      return Response.redirect(new URL("/login", url).href, 303);
    }
  },
  "POST",
);
