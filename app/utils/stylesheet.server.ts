/**
 * Whether a page carries the stylesheet's text or links the file (app/utils/stylesheet.tsx;
 * docs/decisions/032-pages-at-sea.md, "The stylesheet linked, inlined on a first visit").
 *
 * The file is linked when the browser says it has it: its `sheet` cookie names this build's sheet.
 * Otherwise (a browser's first page, or a cookie naming the sheet of an earlier build) the text goes
 * in the page, so a cold load draws without a second round trip, and the answer sets the cookie
 * (the page fetches the file once it has loaded). Being signed in says nothing of the browser's
 * cache (a session from before a deploy, a browser whose cache was emptied), so it is not asked.
 * The cookie lasts a year, with the session's path and flags; it only chooses between two ways of
 * sending the same styles, so it is not signed.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { stylesheetHref } from "~/utils/stylesheet";
import { secureCookies } from "~/utils/cookies.server";

export const STYLESHEET_COOKIE = "sheet";
const YEAR_SECONDS = 365 * 86_400;

let cached: string | null | undefined;

/**
 * The built stylesheet's text, read once from the client build beside the server build
 * (build/client next to build/server); null under the Vite dev server, where the sheet is linked.
 */
export function inlineStylesheet(): string | null {
  if (cached !== undefined) return cached;
  cached = null;
  if (process.env.NODE_ENV === "production" && stylesheetHref.startsWith("/assets/")) {
    try {
      const file = fileURLToPath(new URL(`../client${stylesheetHref}`, import.meta.url));
      const text = readFileSync(file, "utf8");
      // Never end the <style> element early (a build that somehow held the sequence is linked instead).
      cached = /<\/style/i.test(text) ? null : text;
    } catch {
      cached = null;
    }
  }
  return cached;
}

/** This build's sheet as the cookie names it: its file name (content hash included). */
const sheetName = () => stylesheetHref.slice(stylesheetHref.lastIndexOf("/") + 1);

const NAMED_SHEET = new RegExp(`(?:^|;\\s*)${STYLESHEET_COOKIE}=([^;]*)`);

function namedSheet(request: Request): string | null {
  return NAMED_SHEET.exec(request.headers.get("Cookie") ?? "")?.[1] ?? null;
}

/**
 * For a page answered to `request`: the sheet's text when the page is to carry it (null: link the
 * file), and the cookie that names this sheet when the browser did not name it.
 */
export function stylesheetFor(request: Request): { inline: string | null; setCookie: string | null } {
  const text = inlineStylesheet();
  if (text === null) return { inline: null, setCookie: null };
  const current = sheetName();
  if (namedSheet(request) === current) return { inline: null, setCookie: null };
  const secure = secureCookies() ? "; Secure" : "";
  return {
    inline: text,
    setCookie: `${STYLESHEET_COOKIE}=${current}; Max-Age=${YEAR_SECONDS}; Path=/; HttpOnly; SameSite=Lax${secure}`,
  };
}
