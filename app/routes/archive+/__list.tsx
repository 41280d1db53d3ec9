/**
 * The legacy archive's list page, one for both kinds (the loaders say which): the tabs between
 * legacy MOCs and PCRs, the list with search, filters and sortable columns, and the small parts
 * the record and import pages beside it (__record.tsx, __import.tsx) use too. Not a route: the
 * `__` prefix keeps remix-flat-routes from reading it (vite.config.ts).
 */
import type { MetaFunction } from "@remix-run/node";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import {
  ARCHIVE,
  ARCHIVE_KINDS,
  ARCHIVE_SORT_LABELS,
  ARCHIVE_SORTS,
  defaultDirection,
  type ArchiveKind,
  type ArchiveSort,
} from "~/models/archive/archive.constants";
import { LegacyStatusBadge } from "~/components/archive";
import { FilterForm, FilterSelect, SearchField } from "~/components/list-filters";
import { formatDate } from "~/components/moc";
import { Pagination } from "~/components/pagination";
import { capitalise } from "~/models/shared/labels";
import type { archiveListLoader } from "./pages.server";

/** A page title from the loader's kind (and record, when there is one). */
export const archiveMeta =
  (title: (label: string, serial: string | null) => string): MetaFunction =>
  ({ data }) => {
    const loaded = data as { kind?: ArchiveKind; doc?: { serial_num: string } | null } | undefined;
    const label = loaded?.kind ? ARCHIVE[loaded.kind].plural : "Archive";
    return [{ title: `${title(capitalise(label), loaded?.doc?.serial_num ?? null)} · Change Management` }];
  };

export const listPath = (kind: ArchiveKind) => `/archive/${ARCHIVE[kind].segment}`;
export const recordPath = (kind: ArchiveKind, id: string) => `${listPath(kind)}/${id}`;

/** Links between the two archives, the current one marked. */
export function ArchiveTabs({ kind }: { kind: ArchiveKind }) {
  return (
    <nav className="archive-tabs no-print" aria-label="Archive">
      <ul>
        {ARCHIVE_KINDS.map((k) => (
          <li key={k}>
            <Link
              to={listPath(k)}
              className={k === kind ? "active" : undefined}
              aria-current={k === kind ? "page" : undefined}
            >
              {capitalise(ARCHIVE[k].plural)}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** A link's readable name: its file name, else its host. */
export function attachmentName(url: string): string {
  try {
    const parsed = new URL(url);
    const last = decodeURIComponent(parsed.pathname.split("/").filter(Boolean).pop() ?? "");
    return last || parsed.hostname;
  } catch {
    return url;
  }
}

export function AttachmentLinks({ urls, compact }: { urls: string[]; compact?: boolean }) {
  if (!urls.length) return <span className="muted">None</span>;
  return (
    <ul className={compact ? "attachment-list attachment-list-compact" : "attachment-list"}>
      {urls.map((url, i) => (
        <li key={`${i}-${url}`}>
          <a href={url} rel="noopener noreferrer" target="_blank">
            {attachmentName(url)}
            <span className="visually-hidden"> (opens in a new tab)</span>
          </a>
        </li>
      ))}
    </ul>
  );
}

/** A sortable column's header: a link that sorts by it, or flips the order when it already does. */
function SortHeader({ column, sort, dir }: { column: ArchiveSort; sort: ArchiveSort; dir: "asc" | "desc" }) {
  const [params] = useSearchParams();
  const active = column === sort;
  const next = new URLSearchParams(params);
  next.set("sort", column);
  next.set("dir", active ? (dir === "asc" ? "desc" : "asc") : defaultDirection(column));
  next.delete("page");
  return (
    <th scope="col" aria-sort={active ? (dir === "asc" ? "ascending" : "descending") : undefined}>
      <Link to={`?${next}`} className="sort-link" preventScrollReset>
        {COLUMN_TITLES[column]}
        {active ? <span aria-hidden="true">{dir === "asc" ? " ▲" : " ▼"}</span> : null}
      </Link>
    </th>
  );
}

const COLUMN_TITLES: Record<ArchiveSort, string> = {
  serial: "Serial",
  title: "Title",
  raised: "Raised",
  closed: "Closed",
};

export function ArchiveListPage() {
  const { kind, filter, rows, total, pages, facets, canWrite } = useLoaderData<typeof archiveListLoader>();
  const info = ARCHIVE[kind];
  const dir = filter.dir ?? defaultDirection(filter.sort);
  const filtered = Boolean(filter.q || filter.status || filter.department || filter.year);
  return (
    <>
      <ArchiveTabs kind={kind} />
      <div className="page-header">
        <div>
          <h1>{capitalise(info.plural)}</h1>
          <p className="muted">
            Paper-era {info.short} records: {total} {total === 1 ? "record" : "records"}
            {filtered ? " match" : ""}
          </p>
        </div>
        {canWrite ? (
          <div className="row">
            <Link to={`${listPath(kind)}/new`} className="button button-primary">
              New {info.label}
            </Link>
            <Link to={`${listPath(kind)}/import`} className="button">
              Import CSV
            </Link>
          </div>
        ) : null}
      </div>
      <FilterForm
        label={`Filter ${info.plural}`}
        resetTo={listPath(kind)}
        exportTo={kind === "moc" ? "/api/oldMoc" : "/api/oldPcr"}
      >
        <SearchField id="archive-q" value={filter.q} placeholder="Serial, title, originator, text" />
        <FilterSelect
          id="archive-status"
          name="status"
          label="Status"
          value={filter.status}
          any="Any status"
          choices={[
            ["open", "Open"],
            ["closed", "Closed"],
          ]}
        />
        {info.hasDepartment ? (
          <FilterSelect
            id="archive-department"
            name="department"
            label="Department"
            value={filter.department}
            any="Any department"
            choices={facets.departments.map((d) => [d, d] as const)}
          />
        ) : null}
        <FilterSelect
          id="archive-year"
          name="year"
          label="Year raised"
          value={filter.year ? String(filter.year) : undefined}
          any="Any year"
          choices={facets.years.map((y) => [String(y), String(y)] as const)}
        />
        <FilterSelect
          id="archive-sort"
          name="sort"
          label="Sort by"
          value={filter.sort}
          choices={ARCHIVE_SORTS.map((s) => [s, ARCHIVE_SORT_LABELS[s]] as const)}
        />
        <FilterSelect
          id="archive-dir"
          name="dir"
          label="Order"
          value={dir}
          choices={[
            ["asc", "Ascending (oldest, A–Z)"],
            ["desc", "Descending (newest, Z–A)"],
          ]}
        />
      </FilterForm>
      <div className="card table-wrap">
        {rows.length === 0 ? (
          <p className="empty">
            {filtered || total > 0
              ? `No ${info.plural} match these filters.`
              : `The archive holds no ${info.plural} yet.${canWrite ? " Add one, or import a CSV file." : ""}`}
          </p>
        ) : (
          <table className="stack-on-phone archive-table">
            <caption className="visually-hidden">
              {capitalise(info.plural)}, sorted by {ARCHIVE_SORT_LABELS[filter.sort].toLowerCase()},{" "}
              {dir === "asc" ? "ascending" : "descending"}
            </caption>
            <thead>
              <tr>
                <SortHeader column="serial" sort={filter.sort} dir={dir} />
                <SortHeader column="title" sort={filter.sort} dir={dir} />
                {info.hasDepartment ? <th scope="col">Department</th> : null}
                <th scope="col">Originator</th>
                <SortHeader column="raised" sort={filter.sort} dir={dir} />
                <SortHeader column="closed" sort={filter.sort} dir={dir} />
                <th scope="col">Status</th>
                <th scope="col">Attachments</th>
                {canWrite ? (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r._id}>
                  <td data-label="Serial">
                    <Link to={recordPath(kind, r._id)} className="moc-link">
                      {r.serial_num}
                    </Link>
                  </td>
                  <td data-label="Title">{r.title}</td>
                  {info.hasDepartment ? (
                    <td data-label="Department">{r.department || <span className="muted">—</span>}</td>
                  ) : null}
                  <td data-label="Originator">{r.originator_name}</td>
                  <td data-label="Raised">{formatDate(r.date_raised)}</td>
                  <td data-label="Closed">{formatDate(r.date_closed)}</td>
                  <td data-label="Status">
                    <LegacyStatusBadge status={r.status} />
                  </td>
                  <td data-label="Attachments">
                    <AttachmentLinks urls={r.attachments} compact />
                  </td>
                  {canWrite ? (
                    <td data-label="Actions" className="archive-actions">
                      <Link to={`${recordPath(kind, r._id)}/edit`} className="button button-small">
                        Edit<span className="visually-hidden"> {r.serial_num}</span>
                      </Link>
                      <Link to={`${recordPath(kind, r._id)}/delete`} className="button button-small button-danger">
                        Delete<span className="visually-hidden"> {r.serial_num}</span>
                      </Link>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      <Pagination page={filter.page} pages={pages} />
    </>
  );
}
