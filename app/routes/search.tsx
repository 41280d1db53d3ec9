// /search: one box over the MOCs, PCRs and archive records the reader may read, results grouped by
// kind (docs/decisions/039-search.md). A GET form: the address is the search, with or without JavaScript.
import { data, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { LegacyStatusBadge } from "~/components/archive";
import { StatusBadge } from "~/components/moc";
import { PcrStatusBadge } from "~/components/pcr";
import { CONTROL_CHARACTERS, SEARCH_MAX_LENGTH } from "~/models/records/search.constants";
import { searchQuerySchema } from "~/models/records/search.schema";
import { search, type SearchGroup, type SearchHit, type SearchResults } from "~/models/records/search.server";
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
  return { q: parsed.data.q, error: null, results: await search(user, parsed.data.q) };
}

const GROUPS: { key: "mocs" | "pcrs" | "archive"; heading: string; one: string; many: string }[] = [
  { key: "mocs", heading: "MOCs", one: "MOC", many: "MOCs" },
  { key: "pcrs", heading: "PCRs", one: "PCR", many: "PCRs" },
  { key: "archive", heading: "Archive records", one: "archive record", many: "archive records" },
];

const KIND_LABELS: Record<SearchHit["kind"], string> = {
  moc: "MOC",
  pcr: "PCR",
  legacy_moc: "Paper MOC",
  legacy_pcr: "Paper PCR",
};

function Badge({ hit }: { hit: SearchHit }) {
  if (hit.kind === "moc") return <StatusBadge status={hit.status} completed={hit.completed} />;
  if (hit.kind === "pcr") return <PcrStatusBadge status={hit.status} />;
  return <LegacyStatusBadge status={hit.status} />;
}

function Result({ hit }: { hit: SearchHit }) {
  return (
    <li className="search-result">
      <div className="search-result-head">
        <Link to={hit.link} className="search-result-link">
          {KIND_LABELS[hit.kind]} {hit.serial_num}
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
}: {
  group: SearchGroup;
  heading: string;
  one: string;
  many: string;
  id: string;
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
              <Result key={`${hit.kind}-${hit._id}`} hit={hit} />
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

function total(results: SearchResults) {
  return results.mocs.total + results.pcrs.total + results.archive.total;
}

export default function SearchPage() {
  const { q, error, results } = useLoaderData<typeof loader>();
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
            {total(results) === 0
              ? `Nothing found for “${results.q}”.`
              : `${total(results)} found for “${results.q}”: ${GROUPS.map((g) => `${results[g.key].total} ${results[g.key].total === 1 ? g.one : g.many}`).join(", ")}.`}
          </p>
          {GROUPS.map((g) => (
            <Group
              key={g.key}
              id={`search-${g.key}`}
              group={results[g.key]}
              heading={g.heading}
              one={g.one}
              many={g.many}
            />
          ))}
        </>
      ) : null}
    </>
  );
}
