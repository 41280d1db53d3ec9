// /search: one box over the MOCs, PCRs and archive records the reader may read, results grouped by
// kind (docs/decisions/039-search.md). A GET form: the address is the search, with or without JavaScript.
// A group a kind added later declares is shown after these, headed by its kind's label
// (docs/decisions/060-record-kinds.md).
import { data, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { LegacyStatusBadge } from "~/components/archive";
import { StatusBadge } from "~/components/moc";
import { PcrStatusBadge } from "~/components/pcr";
import { CONTROL_CHARACTERS, SEARCH_MAX_LENGTH } from "~/models/records/search.constants";
import { searchQuerySchema } from "~/models/records/search.schema";
import {
  search,
  searchGroups,
  type SearchGroup,
  type SearchHit,
  type SearchResults,
} from "~/models/records/search.server";
import { requirePageUser } from "~/web/auth.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data?.q ? `“${data.q}” · Search · Change Management` : "Search · Change Management" },
];

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requirePageUser(request);
  const raw = new URL(request.url).searchParams.get("q") ?? "";
  if (raw.trim() === "") return { q: "", error: null, results: null };
  const parsed = searchQuerySchema.safeParse({ q: raw });
  // The form again with the message, as a 400 (the API's answer to the same q). The text shown
  // back loses its control characters: a NUL cannot be an attribute's value.
  if (!parsed.success) {
    const shown = raw.replace(CONTROL_CHARACTERS, " ").slice(0, SEARCH_MAX_LENGTH);
    return data({ q: shown, error: parsed.error.issues[0]!.message, results: null }, { status: 400 });
  }
  // The groups past the page's own, headed by their kinds' labels.
  const others = searchGroups().filter((g) => !GROUPS.some((own) => own.key === g.key));
  return { q: parsed.data.q, error: null, results: await search(user, parsed.data.q), others };
}

type GroupShown = { key: string; heading: string; one: string; many: string };

const GROUPS: (GroupShown & { key: "mocs" | "pcrs" | "archive" })[] = [
  { key: "mocs", heading: "MOCs", one: "MOC", many: "MOCs" },
  { key: "pcrs", heading: "PCRs", one: "PCR", many: "PCRs" },
  { key: "archive", heading: "Archive records", one: "archive record", many: "archive records" },
];

const KIND_LABELS: Record<string, string> = {
  moc: "MOC",
  pcr: "PCR",
  legacy_moc: "Paper MOC",
  legacy_pcr: "Paper PCR",
};

const ARCHIVE_KINDS = new Set(["legacy_moc", "legacy_pcr"]);

function Badge({ hit }: { hit: SearchHit }) {
  if (hit.kind === "moc") return <StatusBadge status={hit.status} completed={hit.completed} />;
  if (hit.kind === "pcr") return <PcrStatusBadge status={hit.status} />;
  if (ARCHIVE_KINDS.has(hit.kind)) return <LegacyStatusBadge status={hit.status} />;
  return <span className="badge">{hit.status}</span>;
}

function Result({ hit, label }: { hit: SearchHit; label: string }) {
  return (
    <li className="search-result">
      <div className="search-result-head">
        <Link to={hit.link} className="search-result-link">
          {label} {hit.serial_num}
          {hit.title ? ` — ${hit.title}` : ""}
        </Link>
        <Badge hit={hit} />
        {hit.exactSerial ? <span className="badge badge-info">Serial</span> : null}
      </div>
      {hit.excerpt.length > 0 ? (
        <p className="search-excerpt">
          {hit.excerpt.map((part, i) =>
            part.match ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>,
          )}
        </p>
      ) : null}
    </li>
  );
}

function Group({
  group,
  heading,
  one,
  many,
  id,
  labels,
}: {
  group: SearchGroup;
  heading: string;
  one: string;
  many: string;
  id: string;
  labels: Record<string, string>;
}) {
  return (
    <section className="card search-group" aria-labelledby={id}>
      <h2 id={id}>
        {heading} <span className="muted search-count">({group.total})</span>
      </h2>
      {group.results.length === 0 ? (
        <p className="empty">No {many} found.</p>
      ) : (
        <>
          <ol className="search-results">
            {group.results.map((hit) => (
              <Result key={`${hit.kind}-${hit._id}`} hit={hit} label={labels[hit.kind] ?? hit.kind} />
            ))}
          </ol>
          {group.total > group.results.length ? (
            <p className="muted">
              {group.ranked ? "The best" : "The newest"} {group.results.length} of {group.total}{" "}
              {group.total === 1 ? one : many}
              {group.ranked ? "" : " (too many to rank by relevance)"}: add a word to narrow the search.
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}

/** A group of the answer by its key (the answer's other key is `q`). */
const groupOf = (results: SearchResults, key: string): SearchGroup => {
  const group = results[key];
  return typeof group === "object" ? group : { total: 0, ranked: true, results: [] };
};

export default function SearchPage() {
  const loaded = useLoaderData<typeof loader>();
  const { q, error, results } = loaded;
  const others = ("others" in loaded ? loaded.others : undefined) ?? [];
  // The page's own three groups as they always read; another kind's group by its kind's label.
  const shown: GroupShown[] = [
    ...GROUPS,
    ...others.map((g) => {
      const label = g.kinds[0]?.label ?? g.key;
      return { key: g.key, heading: label, one: `${label} record`, many: `${label} records` };
    }),
  ];
  const labels: Record<string, string> = {
    ...Object.fromEntries(others.flatMap((g) => g.kinds.map((k) => [k.kind, k.label]))),
    ...KIND_LABELS,
  };
  const total = results ? shown.reduce((sum, g) => sum + groupOf(results, g.key).total, 0) : 0;
  return (
    <>
      <div className="page-header">
        <div>
          <h1>Search</h1>
          <p className="muted">
            MOCs, PCRs and archive records: a serial (“14-2026”, “MOC 14-2026”, “14/2026”), words of a title or
            description, or a person’s name.
          </p>
        </div>
      </div>
      <Form method="get" action="/search" role="search" className="search-page-form" key={q}>
        <label htmlFor="search-page-q">Search for</label>
        <div className="row">
          <input
            id="search-page-q"
            name="q"
            type="search"
            defaultValue={q}
            maxLength={SEARCH_MAX_LENGTH}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "search-page-error" : undefined}
          />
          <button type="submit" className="button">
            Search
          </button>
        </div>
        {error ? (
          <p id="search-page-error" className="search-error" role="alert">
            {error}
          </p>
        ) : null}
      </Form>
      {results ? (
        <>
          <p className="search-summary" role="status">
            {total === 0
              ? `Nothing found for “${results.q}”.`
              : `${total} found for “${results.q}”: ${shown.map((g) => `${groupOf(results, g.key).total} ${groupOf(results, g.key).total === 1 ? g.one : g.many}`).join(", ")}.`}
          </p>
          {shown.map((g) => (
            <Group
              key={g.key}
              id={`search-${g.key}`}
              group={groupOf(results, g.key)}
              heading={g.heading}
              one={g.one}
              many={g.many}
              labels={labels}
            />
          ))}
        </>
      ) : null}
    </>
  );
}
