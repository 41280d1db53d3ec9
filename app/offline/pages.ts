/**
 * What the service worker keeps of pages, and the read-only copy it serves without a link
 * (docs/decisions/045-offline-shell-and-drafts.md). Plain functions: the worker and the tests use them.
 */
export const PAGES_CACHE_PREFIX = "offline-pages-";
/** Record pages kept per person, besides the dashboard. */
export const KEEP_RECORDS = 50;
/** The attribute of <html> naming the signed-in person (app/root.tsx). */
export const USER_ATTRIBUTE = "data-offline-user";
/**
 * The attributes of <html> naming the session the page was made for (a one-way digest of the
 * session's id, never its token: app/offline/session.server.ts) and when it ends (ms since 1970).
 */
export const SESSION_ATTRIBUTE = "data-offline-session";
export const EXPIRES_ATTRIBUTE = "data-offline-expires";

/**
 * The dashboard, MOC and PCR record pages and their print views, the list of what waits to be
 * acknowledged and each circulation's page (read and acknowledged on board: docs/decisions/055-circulations.md)
 * are kept; everything else is not.
 */
export function recordPath(path: string): boolean {
  if (path === "/" || path === "/acknowledgements") return true;
  const match = /^\/(mocs|pcrs|circulations)\/([^/]+)(\/print)?$/.exec(path);
  if (!match || ["new", "deleted"].includes(match[2]!)) return false;
  return match[1] !== "circulations" || !match[3];
}

export function userOfPage(html: string): string | null {
  return new RegExp(`<html[^>]*\\s${USER_ATTRIBUTE}="([\\w-]+)"`).exec(html)?.[1] ?? null;
}

export type PageSession = { id: string; expires: number };

/** The session a page was made for, from its <html>; null on a page of nobody signed in. */
export function sessionOfPage(html: string): PageSession | null {
  const tag = /<html\b[^>]*>/i.exec(html)?.[0];
  if (!tag) return null;
  const id = new RegExp(`\\s${SESSION_ATTRIBUTE}="([\\w-]+)"`).exec(tag)?.[1];
  const expires = Number(new RegExp(`\\s${EXPIRES_ATTRIBUTE}="(\\d+)"`).exec(tag)?.[1]);
  return id && Number.isSafeInteger(expires) ? { id, expires } : null;
}

/** The page's security headers a saved copy is served with (the CSP tightened by offlinePolicy). */
export const KEPT_HEADERS = [
  "Content-Security-Policy",
  "X-Content-Type-Options",
  "X-Frame-Options",
  "Referrer-Policy",
  "Permissions-Policy",
  "Cross-Origin-Opener-Policy",
];

/** The policy of the pages the worker writes itself: no script, nothing loaded but inline styles. */
export const OFFLINE_PAGE_POLICY =
  "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The Content-Security-Policy a saved copy is served with: the page's own, every directive as the
 * server sent it, except that scripts are forbidden outright (`script-src 'none'`). The copy has
 * its scripts removed; its nonce was sent once and is now stored, so it must not allow a script
 * again (a nonce is only worth anything unguessable and used once).
 */
export function offlinePolicy(stored: string | null): string {
  if (!stored) return OFFLINE_PAGE_POLICY;
  const directives = stored
    .split(";")
    .map((directive) => directive.trim())
    .filter((directive) => directive && !/^script-src(-elem|-attr)?(\s|$)/i.test(directive));
  return [...directives, "script-src 'none'"].join("; ");
}

const pad = (n: number) => String(n).padStart(2, "0");
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "14:05 UTC", with the day in front when the copy is not from today (UTC). */
export function asOf(fetchedAt: Date, now: Date): string {
  const time = `${pad(fetchedAt.getUTCHours())}:${pad(fetchedAt.getUTCMinutes())} UTC`;
  const sameDay = fetchedAt.toISOString().slice(0, 10) === now.toISOString().slice(0, 10);
  return sameDay ? time : `${fetchedAt.getUTCDate()} ${MONTHS[fetchedAt.getUTCMonth()]} ${time}`;
}

const BANNER_STYLE =
  "margin:0;padding:.6rem 1rem;background:#7a4b00;color:#fff;font-weight:600;text-align:center;position:sticky;top:0;z-index:50";

/**
 * The saved page as served offline: its scripts and module links removed (a read-only copy that
 * nothing hydrates: its forms post nowhere without the link) and the banner first in the body.
 * Without a saved page (`html` null): a short page saying so.
 */
export function offlineCopy(html: string | null, fetchedAt: Date | null, now: Date): string {
  if (html === null || fetchedAt === null) {
    return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Offline</title></head><body style="font-family:system-ui,sans-serif;margin:0"><p class="offline-banner" role="status" style="${BANNER_STYLE}">Offline</p><main style="padding:1rem"><h1>This page was not saved for reading offline</h1><p>The dashboard and the last ${KEEP_RECORDS} MOC and PCR records you opened can be read without a link. <a href="/">Open the dashboard</a>.</p></main></body></html>`;
  }
  const banner = `<p class="offline-banner" role="status" style="${BANNER_STYLE}">Offline — as of ${asOf(fetchedAt, now)}. A saved copy: forms on it cannot be sent until the link is back.</p>`;
  return html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, "")
    .replace(/<link\b[^>]*rel="modulepreload"[^>]*>/gi, "")
    .replace(/<body([^>]*)>/i, (body) => body + banner);
}

/** The page's linked stylesheet (app/utils/stylesheet.tsx): a file of the build under /assets. */
const STYLESHEET_LINK = /<link rel="stylesheet" href="(\/assets\/[^"<>]+\.css)"\/?>/;

/** The address of the stylesheet `html` links, null when it links none (or carries it inline). */
export function linkedStylesheet(html: string): string | null {
  return STYLESHEET_LINK.exec(html)?.[1] ?? null;
}

/**
 * The page to keep with its linked stylesheet written in: the next deploy's worker no longer holds
 * that file (its precache keeps the new build's), and a copy read offline after it must still draw
 * as it did (docs/decisions/045-offline-shell-and-drafts.md). Unchanged when the sheet's text could
 * end the element early.
 */
export function withStylesheetInline(html: string, css: string): string {
  if (/<\/style/i.test(css)) return html;
  return html.replace(STYLESHEET_LINK, (link, href: string) => `<style data-href="${href}">${css}</style>`);
}

/**
 * The sign-in address without a link, or after a sign-out made without one: nothing of the person
 * is kept any more. `queued`: the server is told when the link returns.
 */
export function signedOutPage(queued: boolean): string {
  const told = queued ? "<p>The server is told that you signed out as soon as the link is back.</p>" : "";
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Signed out</title></head><body style="font-family:system-ui,sans-serif;margin:0"><p class="offline-banner" role="status" style="${BANNER_STYLE}">Offline</p><main style="padding:1rem"><h1>You are signed out</h1><p>Nothing of yours is kept on this device for reading offline.</p>${told}<p>Signing in needs the link. <a href="/login">Sign in</a> when it is back.</p></main></body></html>`;
}
