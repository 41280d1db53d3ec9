import { Link, useSearchParams } from "@remix-run/react";

/** Previous/next links for a paged list; they keep the list's other query parameters. */
export function Pagination({
  page,
  pages,
  previous = "← Previous",
  next = "Next →",
}: {
  page: number;
  pages: number;
  previous?: string;
  next?: string;
}) {
  const [params] = useSearchParams();
  if (pages <= 1) return null;
  const link = (target: number) => {
    const query = new URLSearchParams(params);
    query.set("page", String(target));
    return `?${query}`;
  };
  return (
    <nav className="pagination" aria-label="Pages">
      {page > 1 ? <Link to={link(page - 1)}>{previous}</Link> : null}
      <span>
        Page {page} of {pages}
      </span>
      {page < pages ? <Link to={link(page + 1)}>{next}</Link> : null}
    </nav>
  );
}
