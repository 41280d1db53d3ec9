/**
 * The app's one stylesheet (app/styles/all.css): a file under /assets named by its content's hash,
 * cached as immutable, linked from every page (docs/decisions/032-pages-at-sea.md, "The stylesheet
 * linked, inlined on a first visit"). A browser that has not named this sheet yet (its first page,
 * or the first after a deploy: app/utils/stylesheet.server.ts) gets its text in the page instead, so a cold load over a ship's link still needs no second round trip before the page can
 * be drawn; the file reaches the browser's cache afterwards, for the next page.
 *
 * Hydration renders the same: on the server the choice comes from the context the document request
 * fills (app/entry.server.tsx), in the browser from the element the server wrote.
 */
import { createContext, useContext, useState } from "react";
import href from "~/styles/all.css?url";

export const stylesheetHref = href;
export const STYLESHEET_ELEMENT_ID = "app-styles";

/** The sheet's text when this page carries it inline, null when it links the file. */
const InlineStylesheetContext = createContext<string | null>(null);
export const InlineStylesheetProvider = InlineStylesheetContext.Provider;

export function AppStylesheet() {
  const fromServer = useContext(InlineStylesheetContext);
  const [text] = useState(
    () =>
      fromServer ??
      (typeof document === "undefined" ? null : (document.getElementById(STYLESHEET_ELEMENT_ID)?.textContent ?? null)),
  );
  if (text === null) return <link rel="stylesheet" href={href} />;
  // Without JavaScript the file is fetched for the next page once the browser is idle; with it, the
  // service worker's precache brings it (app/offline/service-worker.ts), not competing with the page's code.
  return (
    <>
      <style id={STYLESHEET_ELEMENT_ID} data-href={href} dangerouslySetInnerHTML={{ __html: text }} />
      <noscript>
        <link rel="prefetch" href={href} as="style" />
      </noscript>
    </>
  );
}
