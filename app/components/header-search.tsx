import { Form, useLocation } from "@remix-run/react";
import { CONTROL_CHARACTERS, SEARCH_MAX_LENGTH } from "~/models/records/search.constants";

/**
 * The search box of every page's header: a GET form to /search (docs/decisions/039-search.md), so it
 * works without JavaScript; on /search it shows the search being read (without control characters,
 * which the search refuses: a NUL cannot be an attribute's value).
 */
export function HeaderSearch() {
  const { pathname, search } = useLocation();
  const q = pathname === "/search" ? (new URLSearchParams(search).get("q") ?? "").replace(CONTROL_CHARACTERS, " ") : "";
  return (
    <Form method="get" action="/search" role="search" className="header-search" key={q}>
      <label htmlFor="header-search-q" className="visually-hidden">
        Search MOCs, PCRs and archive records
      </label>
      <input
        id="header-search-q"
        name="q"
        type="search"
        placeholder="Search: MOC 14-2026, a name, words"
        defaultValue={q}
        maxLength={SEARCH_MAX_LENGTH}
        required
      />
      <button type="submit" className="button button-quiet">
        Search
      </button>
    </Form>
  );
}
