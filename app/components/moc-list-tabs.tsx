import { Link } from "@remix-run/react";

/** The MOC list and, for admins, its "Deleted" list (docs/decisions/034-approved-content-and-deleting.md). */
export function MocListTabs({ current }: { current: "all" | "deleted" }) {
  const tabs = [
    ["all", "/mocs", "MOCs"],
    ["deleted", "/mocs/deleted", "Deleted"],
  ] as const;
  return (
    <nav className="list-tabs no-print" aria-label="MOC lists">
      <ul>
        {tabs.map(([key, to, label]) => (
          <li key={key}>
            <Link to={to} aria-current={key === current ? "page" : undefined}>
              {label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
