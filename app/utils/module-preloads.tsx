/**
 * The page's scripts named at the top of its `<head>` (docs/decisions/032-pages-at-sea.md, "Round
 * trips"). Remix names them with `modulepreload` links in `<Scripts>`, at the end of the body: over
 * a ship's link the browser then asks for them only once the whole page has arrived (a 17 KB record
 * page is half a second at 256 kbit/s). Named first in the head, they are asked for with the
 * page's first bytes. The same list as Remix's (the entry, then each matched route's imports and
 * module); the browser fetches a module once however often it is named.
 */
import { UNSAFE_RemixContext, useMatches } from "@remix-run/react";
import { useContext, useState } from "react";

export function ModulePreloads() {
  const remix = useContext(UNSAFE_RemixContext);
  const matches = useMatches();
  // Computed once: the links serve the first load; later pages are fetched by the router.
  const [urls] = useState(() => {
    if (!remix) return [];
    const { manifest } = remix;
    const routes = matches.flatMap((match) => {
      const route = manifest.routes[match.id];
      return route ? [...(route.imports ?? []), route.module] : [];
    });
    return [...new Set([manifest.entry.module, ...manifest.entry.imports, ...routes])];
  });
  return (
    <>
      {urls.map((url) => (
        <link key={url} rel="modulepreload" href={url} />
      ))}
    </>
  );
}
