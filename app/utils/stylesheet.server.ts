/**
 * The built stylesheet's text, for the page to carry inline (app/utils/stylesheet.tsx). Read once
 * from the client build beside the server build (build/client next to build/server); null under
 * the Vite dev server, where the sheet is linked instead.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { stylesheetHref } from "~/utils/stylesheet";

let cached: string | null | undefined;

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
