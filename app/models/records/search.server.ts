import { sql, type SQL } from "drizzle-orm";
import { SEARCH_CONFIG } from "#db/search-document";
import { SEARCH_RANK_LIMIT } from "./search.constants";
import { getDb } from "~/utils/db.server";
import { canReadRecords, mocListScope, pcrListScope, type Actor } from "../authz/authz.server";

/**
 * Search over MOCs, PCRs and archive records (docs/decisions/039-search.md): what each record is
 * found by is `search_entries`, kept by triggers from db/search-document.ts; this module asks it in
 * one statement, ranked, grouped by kind, filtered by the lists' own authorization (authz.server.ts
 * `mocListScope.visible`, `pcrListScope`, `canReadRecords`).
 */

/** Results shown per group; the group's `total` counts every match the caller may read. */
export const SEARCH_GROUP_LIMIT = 20;
/** Words of a query past this many are ignored (each adds an index lookup). */
const MAX_WORDS = 8;

export type SearchEntryKind = "moc" | "pcr" | "legacy_moc" | "legacy_pcr";
/** A piece of a result's excerpt; `match` pieces are what the query found. */
export type ExcerptPart = { text: string; match: boolean };
export type SearchHit = {
  kind: SearchEntryKind;
  _id: string;
  serial_num: string;
  title: string;
  /** MOC and PCR status; an archive record's open or closed. */
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
export type SearchResults = { q: string; mocs: SearchGroup; pcrs: SearchGroup; archive: SearchGroup };

/**
 * A query that is only a serial: "14-2026", "MOC 14-2026", "MOC-14-2026", "14/2026", "pcr 3/2026".
 * A leading MOC or PCR keeps the exact match to that kind (and its paper records).
 */
const SERIAL_ONLY = /^(?:(moc|pcr)[\s._#/-]*)?\d{1,6}[\s._#/-]+\d{2,4}$/i;

/** The words of a query as a prefix-matching tsquery ("pump ove" finds "pumps overhauled"); "" when none. */
export function toPrefixQuery(q: string): string {
  const words = (q.normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_WORDS);
  return words.map((w) => `'${w.slice(0, 60).toLowerCase()}':*`).join(" & ");
}

/** How a query is asked: the words for full-text search, and which kinds an exact serial may be. */
export function parseSearchQuery(q: string): { words: string; serialKinds: SearchEntryKind[] } {
  const serial = SERIAL_ONLY.exec(q);
  if (serial) {
    const prefix = serial[1]?.toLowerCase();
    const serialKinds: SearchEntryKind[] =
      prefix === "moc"
        ? ["moc", "legacy_moc"]
        : prefix === "pcr"
          ? ["pcr", "legacy_pcr"]
          : ["moc", "pcr", "legacy_moc", "legacy_pcr"];
    return { words: "", serialKinds };
  }
  return { words: toPrefixQuery(q), serialKinds: ["moc", "pcr", "legacy_moc", "legacy_pcr"] };
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

const LINKS: Record<SearchEntryKind, string> = {
  moc: "/mocs/",
  pcr: "/pcrs/",
  legacy_moc: "/archive/mocs/",
  legacy_pcr: "/archive/pcrs/",
};

type Row = {
  grp: "mocs" | "pcrs" | "archive";
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
  const { words, serialKinds } = parseSearchQuery(q);
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
  const archiveReadable = canReadRecords(actor) ? sql`true` : sql`false`;
  // Linked records (issue 42, docs/decisions/057-record-links-and-references.md): a serial finds the
  // records linked to the records of that serial the reader may read, by the word their entries
  // carry for each link (db/search-document.ts LINKED).
  const linkedHits = words
    ? sql``
    : sql`union all
      select e.kind, e.record_id, false
      from search_entries e
      where e.search @@ to_tsquery(${config}, (select coalesce(string_agg('linked' || case x.kind
          when 'legacy_moc' then 'archivemoc' when 'legacy_pcr' then 'archivepcr' else x.kind end
          || regexp_replace(x.serial_key, '[^[:alnum:]]+', 'n', 'g'), ' | '), '')
        from search_entries x left join mocs m on x.kind = 'moc' and m.id = x.record_id
          left join pcrs p on x.kind = 'pcr' and p.id = x.record_id
        where x.serial_key = (select serial_key from asked) and x.kind = any((select kinds from asked)::text[])
          and ((x.kind = 'moc' and m.id is not null and ${mocListScope.visible(actor)})
            or (x.kind = 'pcr' and p.id is not null and ${pcrListScope(actor)})
            or (x.kind in ('legacy_moc', 'legacy_pcr') and ${archiveReadable}))))
        and not ${exact}`;
  // The matches carry only what authorizes and orders them: the exact serials, then the word
  // matches that are not (each one index scan, no row's vector read again); each group is counted,
  // then ranked only when small enough (`top`); the text of the few shown is read last.
  const rows = await getDb().execute<Row>(sql`
    with asked as materialized (
      select ${words ? sql`to_tsquery(${config}, ${words})` : sql`null::tsquery`} as tsq,
        search_serial_key(${q}) as serial_key, string_to_array(${serialKinds.join(",")}, ',') as kinds
    ), hits as materialized (
      select e.kind, e.record_id, true as exact
      from search_entries e
      where ${exact}
      ${wordHits}
      ${linkedHits}
    ), moc_matched as materialized (
      select h.kind, h.record_id, m.status, m.completed, h.exact, m.created_at as newest
      from hits h join mocs m on m.id = h.record_id
      where h.kind = 'moc' and ${mocListScope.visible(actor)}
    ), moc_matched_count as (select count(*)::int as total from moc_matched
    ), pcr_matched as materialized (
      select h.kind, h.record_id, p.status, false as completed, h.exact, p.created_at as newest
      from hits h join pcrs p on p.id = h.record_id
      where h.kind = 'pcr' and ${pcrListScope(actor)}
    ), pcr_matched_count as (select count(*)::int as total from pcr_matched
    ), archive_matched as materialized (
      select h.kind, h.record_id, coalesce(lm.status, lp.status) as status, false as completed, h.exact,
        coalesce(lm.date_raised, lp.date_raised)::timestamptz as newest
      from hits h
        left join legacy_mocs lm on h.kind = 'legacy_moc' and lm.id = h.record_id
        left join legacy_pcrs lp on h.kind = 'legacy_pcr' and lp.id = h.record_id
      where h.kind in ('legacy_moc', 'legacy_pcr') and ${archiveReadable}
    ), archive_matched_count as (select count(*)::int as total from archive_matched
    ), picked as (
      ${top("mocs", "moc_matched", rank, limit, rankLimit)}
      union all
      ${top("pcrs", "pcr_matched", rank, limit, rankLimit)}
      union all
      ${top("archive", "archive_matched", rank, limit, rankLimit)}
    )
    select h.grp, h.kind, h.record_id, e.serial_num, e.title, h.status, h.completed, h.exact, h.total, h.ranked,
      ${headline} as headline
    from picked h join search_entries e on e.kind = h.kind and e.record_id = h.record_id
    order by h.grp, h.n`);
  const empty = (): SearchGroup => ({ total: 0, ranked: true, results: [] });
  const results: SearchResults = { q, mocs: empty(), pcrs: empty(), archive: empty() };
  for (const row of rows) {
    const group = results[row.grp];
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
      link: `${LINKS[row.kind]}${row.record_id}`,
    });
  }
  return results;
}
