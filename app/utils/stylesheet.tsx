/**
 * The app's one stylesheet (app/styles/all.css), written into the page itself when the server has
 * its text (the production build), otherwise linked (the Vite dev server). Over a ship's link a
 * cold load then needs no second round trip before the page can be drawn, and a revalidated page
 * (304) brings its styles with it (docs/decisions/032-pages-at-sea.md).
 *
 * Hydration renders the same text: on the server it comes from the context the document request
 * fills (app/entry.server.tsx), in the browser from the element the server wrote.
 */
import { createContext, useContext, useState } from "react";
import href from "~/styles/all.css?url";

export const stylesheetHref = href;
const ELEMENT_ID = "app-styles";

const InlineStylesheetContext = createContext<string | null>(null);
export const InlineStylesheetProvider = InlineStylesheetContext.Provider;

export function AppStylesheet() {
  const fromServer = useContext(InlineStylesheetContext);
  const [text] = useState(
    () =>
      fromServer ??
      (typeof document === "undefined" ? null : (document.getElementById(ELEMENT_ID)?.textContent ?? null)),
  );
  if (text === null) return <link rel="stylesheet" href={href} />;
  return <style id={ELEMENT_ID} data-href={href} dangerouslySetInnerHTML={{ __html: text }} />;
}
