import { sql, type SQL } from "drizzle-orm";
import { SEARCH_CONFIG } from "#db/search-document";
import { SEARCH_RANK_LIMIT } from "./search.constants";
import { getDb } from "~/utils/db.server";
import type { Actor } from "../authz/authz.server";
import { kindsWith, type SearchDefinition } from "../record-kind/record-kind";

/**
 * Search over the registered kinds that declare a `search` entry (docs/decisions/039-search.md,
 * docs/decisions/060-record-kinds.md): what each record is found by is `search_entries`, kept by
 * triggers from db/search-document.ts; this module asks it in one statement, ranked, grouped by
 * each kind's `search.group`, filtered by each kind's reading rule's SQL twin (its `readSql`, the
 * lists' own authorization). It names no kind: a kind added later is searched through its entry.
 */

/** Results shown per group; the group's `total` counts every match the caller may read. */
export const SEARCH_GROUP_LIMIT = 20;
/** Words of a query past this many are ignored (each adds an index lookup). */
const MAX_WORDS = 8;

/** `search_entries.kind`: a searched kind's `search.entry.kind` ("moc", "legacy_moc", ...). */
export type SearchEntryKind = string;
/** A piece of a result's excerpt; `match` pieces are what the query found. */
export type ExcerptPart = { text: string; match: boolean };
export type SearchHit = {
  kind: SearchEntryKind;
  _id: string;
  serial_num: string;
  title: string;
  /** MOC and PCR status; an archive record's open or closed (the kind's `search.status`). */
  status: string;
  /** A MOC that is completed (its status stays its last step's); false for the other kinds. */
  completed: boolean;
  /** The serial is the one asked for, in any of its usual forms: listed first. */
  exactSerial: boolean;
  excerpt: ExcerptPart[];
  /** The record's page. */
  link: string;
};
/** `ranked`: the results are the best by relevance; false when the group had more than SEARCH_RANK_LIMIT matches and they are the newest. */
export type SearchGroup = { total: number; ranked: boolean; results: SearchHit[] };
export { SEARCH_RANK_LIMIT };
/**
 * The answer: `q`, then one group per `search.group` the searched kinds declare, in the order the
 * kinds are registered. The app's kinds give `mocs`, `pcrs` and `archive` (GET /api/search's
 * contract, app/models/records/search.schema.ts); a kind with a group of its own adds its key.
 */
export type SearchResults = {
  q: string;
  mocs: SearchGroup;
  pcrs: SearchGroup;
  archive: SearchGroup;
  [group: string]: SearchGroup | string;
};

/** A searched kind as this module reads it. */
type SearchedKind = {
  name: string;
  label: string;
  search: SearchDefinition;
  table: { name: string; alias: string };
  page: (id: string) => string;
  readSql: (actor: Actor) => SQL;
};

/** The registered kinds that declare a search entry, in the order registered. */
function searchedKinds(): SearchedKind[] {
  return kindsWith("search").map(({ name, label, search, table, page, readSql }) => {
    // Its hits are joined to its table under its alias, and each links to its page.
    if (!table || !page) throw new Error(`record kind ${name} declares a search entry but no table or page`);
    if (search.group === "q") throw new Error(`record kind ${name}'s search group cannot be named q`);
    return { name, label, search, table, page, readSql: readSql ?? (() => sql`true`) };
  });
}

/** The searched kinds by their group, the groups in the order their first kind is registered. */
function byGroup(kinds: readonly SearchedKind[]): Map<string, SearchedKind[]> {
  const groups = new Map<string, SearchedKind[]>();
  for (const kind of kinds) groups.set(kind.search.group, [...(groups.get(kind.search.group) ?? []), kind]);
  return groups;
}

/** The groups a search answers, in order, each with its kinds' entry kinds and labels (for the page's headings). */
export function searchGroups(): { key: string; kinds: { kind: SearchEntryKind; label: string }[] }[] {
  return [...byGroup(searchedKinds())].map(([key, kinds]) => ({
    key,
    kinds: kinds.map((k) => ({ kind: k.search.entry.kind, label: k.label })),
  }));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A query that is only a serial: "14-2026", "MOC 14-2026", "MOC-14-2026", "14/2026", "pcr 3/2026",
 * led by any searched kind's `serialPrefix`. A leading prefix keeps the exact match to the kinds
 * with that prefix (a MOC and its paper records). `serial`: the serial without its prefix, whose
 * key is compared (the stored serials have none).
 */
function readSerial(kinds: readonly SearchedKind[], q: string): { prefix: string | null; serial: string } | null {
  const prefixes = [...new Set(kinds.flatMap((k) => (k.search.serialPrefix ? [k.search.serialPrefix] : [])))];
  const lead = prefixes.length > 0 ? `(?:(${prefixes.map(escapeRegExp).join("|")})[\\s._#/-]*)?` : "";
  const match = new RegExp(`^${lead}(\\d{1,6}[\\s._#/-]+\\d{2,4})$`, "i").exec(q);
  if (!match) return null;
  return prefixes.length > 0
    ? { prefix: match[1]?.toLowerCase() ?? null, serial: match[2]! }
    : { prefix: null, serial: match[1]! };
}

/** The words of a query as a prefix-matching tsquery ("pump ove" finds "pumps overhauled"); "" when none. */
export function toPrefixQuery(q: string): string {
  const words = (q.normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_WORDS);
  return words.map((w) => `'${w.slice(0, 60).toLowerCase()}':*`).join(" & ");
}

/** How a query is asked, with the text whose serial key is compared (`serial`). */
function readQuery(kinds: readonly SearchedKind[], q: string) {
  const entryKinds = (of: readonly SearchedKind[]) => of.map((k) => k.search.entry.kind);
  const serial = readSerial(kinds, q);
  if (serial) {
    const { prefix } = serial;
    const serialKinds = entryKinds(
      prefix === null ? kinds : kinds.filter((k) => k.search.serialPrefix?.toLowerCase() === prefix),
    );
    return { words: "", serialKinds, serial: serial.serial };
  }
  return { words: toPrefixQuery(q), serialKinds: entryKinds(kinds), serial: q };
}

/** How a query is asked: the words for full-text search, and which kinds an exact serial may be. */
export function parseSearchQuery(q: string): { words: string; serialKinds: SearchEntryKind[] } {
  const { words, serialKinds } = readQuery(searchedKinds(), q);
  return { words, serialKinds };
}

const START = "\u0001";
const STOP = "\u0002";
const HEADLINE_OPTIONS = `StartSel=${START}, StopSel=${STOP}, MaxWords=30, MinWords=12, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "`;

/** ts_headline's marked text as parts. */
export function excerptParts(marked: string): ExcerptPart[] {
  const parts: ExcerptPart[] = [];
  let rest = marked;
  while (rest.length > 0) {
    const start = rest.indexOf(START);
    if (start === -1) {
      parts.push({ text: rest, match: false });
      break;
    }
    if (start > 0) parts.push({ text: rest.slice(0, start), match: false });
    const stop = rest.indexOf(STOP, start + 1);
    const end = stop === -1 ? rest.length : stop;
    parts.push({ text: rest.slice(start + 1, end), match: true });
    rest = stop === -1 ? "" : rest.slice(stop + 1);
  }
  // Neighbouring matches ("pump overhaul") read as one.
  return parts.reduce<ExcerptPart[]>((out, part) => {
    const last = out.at(-1);
    if (last && last.match === part.match) last.text += part.text;
    else if (part.text) out.push({ ...part });
    return out;
  }, []);
}

type Row = {
  grp: string;
  kind: SearchEntryKind;
  record_id: string;
  serial_num: string;
  title: string;
  status: string;
  completed: boolean;
  exact: boolean;
  total: number;
  ranked: boolean;
  headline: string;
};

/** A kind's rows under its alias ("mocs m"), and its id column there. */
const rowsOf = (kind: SearchedKind) => sql.raw(`${kind.table.name} ${kind.table.alias}`);
const idOf = (kind: SearchedKind) => sql.raw(`${kind.table.alias}.id`);

/**
 * One group's twenty: `matched` is its matches under the lists' authorization (exact, record_id,
 * status, completed, newest: the order's date); when it holds SEARCH_RANK_LIMIT or fewer they are
 * ranked (the entry read again for these only), otherwise the newest are taken, and only one of
 * the two branches runs (a one-time filter on the count). rankLimit is a number, never user input.
 */
function top(grp: string, matched: string, rank: SQL, limit: number, rankLimit: number): SQL {
  const m = sql.raw(matched);
  const total = sql.raw(`(select total from ${matched}_count)`);
  return sql`
    select ${grp}::text as grp, t.kind, t.record_id, t.status, t.completed, t.exact, ${total} as total, t.ranked,
      row_number() over (order by t.exact desc, t.rank desc, t.newest desc, t.record_id) as n
    from ((select a.*, ${rank} as rank, true as ranked
           from ${m} a join search_entries e on e.kind = a.kind and e.record_id = a.record_id
           where ${total} <= ${rankLimit}
           order by a.exact desc, rank desc, a.newest desc, a.record_id limit ${limit})
          union all
          (select a.*, 0::real, false
           from ${m} a
           where ${total} > ${rankLimit}
           order by a.exact desc, a.newest desc, a.record_id limit ${limit})) t`;
}

/**
 * Searches what `actor` may read for `q` (trimmed, 1 to SEARCH_MAX_LENGTH characters: the callers
 * validate). One statement, whatever the number of matches. `rankLimit` is SEARCH_RANK_LIMIT but in
 * tests.
 */
export async function search(
  actor: Actor,
  q: string,
  { rankLimit = SEARCH_RANK_LIMIT }: { rankLimit?: number } = {},
): Promise<SearchResults> {
  const kinds = searchedKinds();
  const groups = [...byGroup(kinds)];
  const { words, serialKinds, serial } = readQuery(kinds, q);
  const config = sql.raw(`'${SEARCH_CONFIG}'::regconfig`);
  // The query's tsquery and serial key are worked out once (`asked`), then read as constants: a
  // prepared statement's generic plan (PostgreSQL's choice after five runs) otherwise parsed the
  // tsquery and the serial again for every row it read (docs/performance.md, "Search").
  const tsquery = words ? sql`(select tsq from asked)` : null;
  const exact = sql`(e.serial_key = (select serial_key from asked) and e.kind = any((select kinds from asked)::text[]))`;
  const rank = tsquery ? sql`ts_rank(e.search, ${tsquery})` : sql`0::real`;
  const headline = tsquery
    ? sql`ts_headline(${config}, translate(e.excerpt_text, ${START + STOP}, ''), ${tsquery}, ${HEADLINE_OPTIONS})`
    : sql`left(translate(e.excerpt_text, ${START + STOP}, ''), 240)`;
  const wordHits = tsquery
    ? sql`union all
      select e.kind, e.record_id, false
      from search_entries e
      where e.search @@ ${tsquery} and not ${exact}`
    : sql``;
  const limit = SEARCH_GROUP_LIMIT;
  // Linked records (issue 42, docs/decisions/057-record-links-and-references.md): a serial finds the
  // records linked to the records of that serial the reader may read, by the word their entries
  // carry for each link (db/search-document.ts LINKED: "linked", the kind's name without its dashes).
  const linkedWords = sql.join(
    kinds.map(
      (kind) => sql`select ${`linked${kind.name.replaceAll("-", "")}`}::text as word, x.serial_key
        from search_entries x join ${rowsOf(kind)} on ${idOf(kind)} = x.record_id
        where x.kind = ${kind.search.entry.kind} and x.serial_key = (select serial_key from asked)
          and x.kind = any((select kinds from asked)::text[]) and ${kind.readSql(actor)}`,
    ),
    sql`
        union all `,
  );
  const linkedHits = words
    ? sql``
    : sql`union all
      select e.kind, e.record_id, false
      from search_entries e
      where e.search @@ to_tsquery(${config}, (select coalesce(string_agg(x.word
          || regexp_replace(x.serial_key, '[^[:alnum:]]+', 'n', 'g'), ' | '), '')
        from (${linkedWords}) x))
        and not ${exact}`;
  // Each group's matches: its kinds' hits, each joined to its kind's table under its alias and
  // kept to what the reader may read of it (its `readSql`), with what orders them.
  const matched = (kindsOfGroup: readonly SearchedKind[]) =>
    sql.join(
      kindsOfGroup.map(
        (kind) => sql`select h.kind, h.record_id, ${kind.search.status} as status,
          ${kind.search.completed} as completed, h.exact, ${kind.search.newest} as newest
        from hits h join ${rowsOf(kind)} on ${idOf(kind)} = h.record_id
        where h.kind = ${kind.search.entry.kind} and ${kind.readSql(actor)}`,
      ),
      sql`
      union all
      `,
    );
  const matchedName = (i: number) => `matched_${i}`;
  // The matches carry only what authorizes and orders them: the exact serials, then the word
  // matches that are not (each one index scan, no row's vector read again); each group is counted,
  // then ranked only when small enough (`top`); the text of the few shown is read last.
  const rows = await getDb().execute<Row>(sql`
    with asked as materialized (
      select ${words ? sql`to_tsquery(${config}, ${words})` : sql`null::tsquery`} as tsq,
        search_serial_key(${serial}) as serial_key, string_to_array(${serialKinds.join(",")}, ',') as kinds
    ), hits as materialized (
      select e.kind, e.record_id, true as exact
      from search_entries e
      where ${exact}
      ${wordHits}
      ${linkedHits}
    ), ${sql.join(
      groups.map(
        ([, kindsOfGroup], i) => sql`${sql.raw(matchedName(i))} as materialized (
      ${matched(kindsOfGroup)}
    ), ${sql.raw(`${matchedName(i)}_count`)} as (select count(*)::int as total from ${sql.raw(matchedName(i))}
    )`,
      ),
      sql`, `,
    )}, picked as (
      ${sql.join(
        groups.map(([group], i) => top(group, matchedName(i), rank, limit, rankLimit)),
        sql`
      union all
      `,
      )}
    )
    select h.grp, h.kind, h.record_id, e.serial_num, e.title, h.status, h.completed, h.exact, h.total, h.ranked,
      ${headline} as headline
    from picked h join search_entries e on e.kind = h.kind and e.record_id = h.record_id
    order by h.grp, h.n`);
  const byEntry = new Map(kinds.map((kind) => [kind.search.entry.kind, kind]));
  const answer = new Map(
    groups.map(([group]): [string, SearchGroup] => [group, { total: 0, ranked: true, results: [] }]),
  );
  for (const row of rows) {
    const group = answer.get(row.grp)!;
    group.total = row.total;
    group.ranked = row.ranked;
    group.results.push({
      kind: row.kind,
      _id: row.record_id,
      serial_num: row.serial_num,
      title: row.title,
      status: row.status,
      completed: row.completed,
      exactSerial: row.exact,
      excerpt: excerptParts(row.headline ?? ""),
      link: byEntry.get(row.kind)!.page(row.record_id),
    });
  }
  // The app's kinds declare the groups the type names (GET /api/search's contract).
  return { q, ...Object.fromEntries(answer) } as SearchResults;
}
