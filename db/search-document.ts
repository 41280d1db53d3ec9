/**
 * What search finds a record by (docs/decisions/039-search.md): one definition per kind, a list of
 * fields with their weight (A: serial and title, B: the change itself, C: people, D: the rest),
 * turned into the `search_entries` row the triggers below keep for every MOC, PCR and archive
 * record. Adding a field is one line in its kind's list; the derived objects are then recreated
 * and every entry rebuilt at the next start (db/derived.ts compares the hash of this SQL).
 *
 * Plain strings, no drizzle: written into PL/pgSQL functions by db/derived.ts.
 */

type Weight = "A" | "B" | "C" | "D";
type Field = { weight: Weight; sql: string };

/** An HTML fragment as plain text (tags dropped, the usual entities decoded), for the index and the excerpt. */
const plain = (html: string) =>
  `replace(replace(replace(replace(replace(replace(regexp_replace(coalesce(${html}, ''), '<[^>]*>', ' ', 'g'),` +
  ` '&nbsp;', ' '), '&lt;', '<'), '&gt;', '>'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&')`;

/** A Part A field's `{ value }` in the MOC document `d`. */
const partA = (key: string) => `d->'originator_form'->'${key}'->>'value'`;

/** The people a MOC document names: its roles, `all_users` and the owners of plan items. */
const MOC_PEOPLE = `(select string_agg(distinct x, ', ') from (
    select d->'originator_id'->>'name' union all select d->'implementer_id'->>'name'
    union all select d->'approver_id'->>'name' union all select d->'hseq_id'->>'name'
    union all select d->'verifier_id'->>'name'
    union all select u->>'name' from jsonb_array_elements(coalesce(d->'all_users', '[]'::jsonb)) u
    union all select u->>'name' from jsonb_array_elements(coalesce(d->'plan_owners', '[]'::jsonb)) u) t(x)
  where x is not null)`;

/** The people a PCR `p` names: its originator, its affected parties and who signed or commented. */
const PCR_PEOPLE = `(select string_agg(u.name, ', ' order by u.name) from users u
  where u.id = p.originator_id or u.id = any(p.party_ids)
     or u.id::text in (select s->>'signedBy' from jsonb_array_elements(p.signatures) s
                       union select s->>'commentedBy' from jsonb_array_elements(p.signatures) s))`;

/** A PCR's title (Part A's `form.title`), as a string or as `{ value }`. */
const PCR_TITLE = `case jsonb_typeof(p.form->'title') when 'string' then p.form->>'title'
  when 'object' then p.form->'title'->>'value' end`;

/**
 * The numbers of a record's live external references (issue 42,
 * docs/decisions/057-record-links-and-references.md), as words: "WO-1234" is indexed as "WO 1234"
 * and "WO1234" (the parser reads "-1234" as a signed number, which the query's "1234" would not
 * find). Kept by the trigger on `record_references` below.
 */
const REFERENCES = (
  recordKind: string,
  id: string,
) => `(select string_agg(regexp_replace(rr.ref, '[^[:alnum:]]+', ' ', 'g')
    || ' ' || regexp_replace(rr.ref, '[^[:alnum:]]+', '', 'g'), ' ')
  from record_references rr where rr.record_kind = '${recordKind}' and rr.record_id = ${id} and rr.removed_at is null)`;

/**
 * The records linked to a record (issue 42, docs/decisions/057-record-links-and-references.md), as
 * one word each: "linked", the other record's kind and its serial key with its separators as "n"
 * ("linkedmoc14n2026" for MOC 14-2026, "linkedarchivemoc7n2009"), so a search for that serial finds
 * this record too (app/models/records/search.server.ts asks for it only for the records of that serial
 * the reader may read).
 * Not their titles: a word search would then show a link to someone who may not read its other
 * end. Kept by the trigger on `record_links` below; a year-end review has no serial.
 */
const LINKED = (
  recordKind: string,
  id: string,
) => `(select string_agg('linked' || replace(e.kind, '-', '') || regexp_replace(search_serial_key(o.serial), '[^[:alnum:]]+', 'n', 'g'), ' ')
  from record_links l
  cross join lateral (select case when l.from_kind = '${recordKind}' and l.from_id = ${id} then l.to_kind else l.from_kind end as kind,
      case when l.from_kind = '${recordKind}' and l.from_id = ${id} then l.to_id else l.from_id end as id) e
  cross join lateral (select m.serial_num as serial from mocs m where e.kind = 'moc' and m.id = e.id
      union all select p.serial_num from pcrs p where e.kind = 'pcr' and p.id = e.id
      union all select r.serial_num from legacy_mocs r where e.kind = 'archive-moc' and r.id = e.id
      union all select r.serial_num from legacy_pcrs r where e.kind = 'archive-pcr' and r.id = e.id) o
  where l.removed_at is null
    and ((l.from_kind = '${recordKind}' and l.from_id = ${id}) or (l.to_kind = '${recordKind}' and l.to_id = ${id})))`;

export type SearchEntryDefinition = {
  /** `search_entries.kind`. */
  kind: string;
  /**
   * The record kind its records are named by in references and links ("moc", "archive-moc": their
   * `record_kind`, `from_kind` and `to_kind`, the registry's name), whose changes rewrite its entry.
   */
  recordKind: string;
  /** The rows, with the alias the fields use, and the record's id. */
  from: string;
  id: string;
  serial: string;
  title: string;
  /** The text the result's excerpt is cut from (plain text). */
  excerpt: string;
  /** What the record is found by, besides its serial. One line per field. */
  fields: Field[];
};

/**
 * MOCs: from their stored document `d` (db/moc-document.ts), kept fresh by db/derived.ts. The
 * document is parsed once per row: `offset 0` keeps the planner from pulling the subquery up and
 * writing `md.doc::jsonb` into each of the fields below, which parsed the whole document once per
 * field (some twenty times for one entry, most of a workflow step's time: docs/performance.md).
 */
export const MOC_SEARCH: SearchEntryDefinition = {
  kind: "moc",
  recordKind: "moc",
  from: "moc_documents md cross join lateral (select md.doc::jsonb as d offset 0) doc",
  id: "md.moc_id",
  serial: "d->>'serial_num'",
  title: partA("title"),
  excerpt: `concat_ws(' · ', nullif(btrim(${plain(partA("description-of-change"))}), ''), nullif(${partA("reason-for-change")}, ''), ${MOC_PEOPLE})`,
  fields: [
    { weight: "A", sql: partA("title") },
    // The vessel Part A names, by the name stored with it (renaming a vessel rewrites it: decision 036).
    { weight: "B", sql: "d->'originator_form'->'vessel'->'value'->>'name'" },
    { weight: "B", sql: plain(partA("description-of-change")) },
    { weight: "B", sql: partA("reason-for-change") },
    { weight: "C", sql: MOC_PEOPLE },
    { weight: "D", sql: partA("department-of-change") },
    { weight: "A", sql: REFERENCES("moc", "md.moc_id") },
    { weight: "C", sql: LINKED("moc", "md.moc_id") },
  ],
};

export const PCR_SEARCH: SearchEntryDefinition = {
  kind: "pcr",
  recordKind: "pcr",
  from: "pcrs p",
  id: "p.id",
  serial: "p.serial_num",
  title: PCR_TITLE,
  excerpt: `concat_ws(' · ', nullif(btrim(${plain("p.form->>'suggestion-details'")}), ''), nullif(btrim(${plain("p.form->>'reason-for-change'")}), ''), nullif(btrim(${plain("p.form->>'manual-procedure'")}), ''), ${PCR_PEOPLE})`,
  fields: [
    { weight: "A", sql: PCR_TITLE },
    { weight: "B", sql: plain("p.form->>'suggestion-details'") },
    { weight: "B", sql: plain("p.form->>'reason-for-change'") },
    { weight: "B", sql: plain("p.form->>'manual-procedure'") },
    { weight: "C", sql: PCR_PEOPLE },
    { weight: "A", sql: REFERENCES("pcr", "p.id") },
    { weight: "C", sql: LINKED("pcr", "p.id") },
  ],
};

export const LEGACY_MOC_SEARCH: SearchEntryDefinition = {
  kind: "legacy_moc",
  recordKind: "archive-moc",
  from: "legacy_mocs r",
  id: "r.id",
  serial: "r.serial_num",
  title: "r.title",
  excerpt: `concat_ws(' · ', nullif(r.description, ''), nullif(r.notes, ''), r.originator_name)`,
  fields: [
    { weight: "A", sql: "r.title" },
    { weight: "B", sql: "r.description" },
    { weight: "C", sql: "r.originator_name" },
    { weight: "D", sql: "r.department" },
    { weight: "D", sql: "r.notes" },
    { weight: "A", sql: REFERENCES("archive-moc", "r.id") },
    { weight: "C", sql: LINKED("archive-moc", "r.id") },
  ],
};

export const LEGACY_PCR_SEARCH: SearchEntryDefinition = {
  kind: "legacy_pcr",
  recordKind: "archive-pcr",
  from: "legacy_pcrs r",
  id: "r.id",
  serial: "r.serial_num",
  title: "r.title",
  excerpt: `concat_ws(' · ', nullif(r.procedure, ''), nullif(r.notes, ''), r.originator_name)`,
  fields: [
    { weight: "A", sql: "r.title" },
    { weight: "B", sql: "r.procedure" },
    { weight: "C", sql: "r.originator_name" },
    { weight: "D", sql: "r.notes" },
    { weight: "A", sql: REFERENCES("archive-pcr", "r.id") },
    { weight: "C", sql: LINKED("archive-pcr", "r.id") },
  ],
};

/**
 * The app's searched kinds, whose entries the derived objects keep (`SEARCH_SQL`, run by
 * db/derived.ts): the same definitions their record kinds declare (app/models/kinds/). db/ is the
 * bottom layer and cannot read the registry, so the list is written here; a kind added later
 * installs its own entries with `searchEntryTriggerSql` instead (docs/decisions/039-search.md).
 */
export const SEARCH_KINDS = [MOC_SEARCH, PCR_SEARCH, LEGACY_MOC_SEARCH, LEGACY_PCR_SEARCH] as const;

/** The text search configuration of every field and query (app/models/records/search.server.ts). */
export const SEARCH_CONFIG = "english";

/** The indexed vector of one kind: the serial in the `simple` configuration, each field weighted. */
const vector = (k: SearchEntryDefinition) =>
  [
    `setweight(to_tsvector('simple', coalesce(${k.serial}, '')), 'A')`,
    ...k.fields.map((f) => `setweight(to_tsvector('${SEARCH_CONFIG}', coalesce(${f.sql}, '')), '${f.weight}')`),
  ].join("\n    || ");

/**
 * The entry rows of one kind, for the rows `where` picks. An entry that would not change is left as
 * it is: most changes to a record (a workflow step: its status, forms and trail) leave its entry
 * alike, and rewriting it then only adds a dead row and its WAL.
 */
const entries = (k: SearchEntryDefinition, where: string) => `
  insert into search_entries (kind, record_id, serial_num, serial_key, title, excerpt_text, search)
  select '${k.kind}', ${k.id}, coalesce(${k.serial}, ''), search_serial_key(${k.serial}), coalesce(${k.title}, ''),
    left(coalesce(${k.excerpt}, ''), 20000),
    ${vector(k)}
  from ${k.from}
  where ${where}
  on conflict (kind, record_id) do update set serial_num = excluded.serial_num, serial_key = excluded.serial_key,
    title = excluded.title, excerpt_text = excluded.excerpt_text, search = excluded.search
  where (search_entries.serial_num, search_entries.serial_key, search_entries.title, search_entries.excerpt_text,
      search_entries.search)
    is distinct from (excluded.serial_num, excluded.serial_key, excluded.title, excluded.excerpt_text, excluded.search)`;

/**
 * PL/pgSQL: the entry of the record named by a record kind ("moc", "archive-pcr": `kind`, an
 * expression) and an id (`id`), for the searched kinds in `kinds` (a review has none).
 */
const entryOfRecord = (kinds: readonly SearchEntryDefinition[], kind: string, id: string) =>
  `${kinds
    .map(
      (k, i) => `  ${i === 0 ? "if" : "elsif"} ${kind} = '${k.recordKind}' then
    ${entries(k, `${k.id} = ${id}`)};`,
    )
    .join("\n")}
  end if;`;

/** The table a kind's entries are read from, whose rows' changes rewrite them (`moc_documents` for MOCs). */
const table = (k: SearchEntryDefinition) => k.from.split(" ")[0]!;
/** That table's column holding the record's id: the column of `id` ("md.moc_id": `moc_id`). */
const key = (k: SearchEntryDefinition) => k.id.split(".").at(-1)!;

/**
 * The function and trigger keeping one kind's entries as its rows are written (its entry removed
 * with its row). The app's kinds' are part of `SEARCH_SQL`; a kind added later runs this for its
 * own definition once its table exists (its entry kind in `search_entries_kind_check`), and its
 * records are searched with no change here.
 */
export const searchEntryTriggerSql = (k: SearchEntryDefinition) => `
create or replace function search_entry_${k.kind}() returns trigger language plpgsql as $fn$
begin
  if tg_op = 'DELETE' then
    delete from search_entries where kind = '${k.kind}' and record_id = old.${key(k)};
    return null;
  end if;
  ${entries(k, `${k.id} = new.${key(k)}`)};
  return null;
end
$fn$;
drop trigger if exists search_entries_${k.kind} on ${table(k)};
create trigger search_entries_${k.kind} after insert or update or delete on ${table(k)}
  for each row execute function search_entry_${k.kind}();`;

/** Every entry of one kind written from its rows as they are (for a kind whose table already has rows). */
export const searchEntriesRebuildSql = (k: SearchEntryDefinition) => `${entries(k, "true")};`;

/**
 * The functions and triggers keeping the entries of `kinds`, then every entry rebuilt: `SEARCH_SQL`
 * for the app's kinds. MOCs' entries are rebuilt by their trigger as db/derived.ts rebuilds every
 * stored document; the person trigger is the PCRs' (a MOC's stored document follows a rename).
 */
export const searchSql = (kinds: readonly SearchEntryDefinition[]) => `
-- A serial as search compares it: "MOC 14-2026", "moc-14/2026", "14-2026" and "014/2026" all read
-- "14-2026" (a leading MOC or PCR dropped, separators made one dash, leading zeros dropped).
create or replace function search_serial_key(s text) returns text language sql immutable as $fn$
  select regexp_replace(regexp_replace(regexp_replace(lower(btrim(coalesce(s, ''))),
    '^(moc|pcr)[[:space:]._#/-]*', ''), '[[:space:]._#/-]+', '-', 'g'), '(^|-)0+([0-9])', '\\1\\2', 'g')
$fn$;
${kinds.map(searchEntryTriggerSql).join("\n")}

-- A renamed person: the PCRs naming them (a MOC's stored document, and so its entry, follows by itself).
create or replace function search_entries_person() returns trigger language plpgsql as $fn$
begin
  ${entries(
    PCR_SEARCH,
    `p.id in (select p2.id from pcrs p2 where p2.originator_id = new.id or new.id = any(p2.party_ids)
      or p2.signatures @> jsonb_build_array(jsonb_build_object('signedBy', new.id::text))
      or p2.signatures @> jsonb_build_array(jsonb_build_object('commentedBy', new.id::text)))`,
  )};
  return null;
end
$fn$;
drop trigger if exists search_entries_person on users;
create trigger search_entries_person after update of name on users
  for each row when (old.name is distinct from new.name) execute function search_entries_person();

-- A reference added to or removed from a record (issue 42): that record's entry.
create or replace function search_entries_reference() returns trigger language plpgsql as $fn$
declare
  changed record_references;
begin
  changed := case when tg_op = 'DELETE' then old else new end;
${entryOfRecord(kinds, "changed.record_kind", "changed.record_id")}
  return null;
end
$fn$;
drop trigger if exists search_entries_reference on record_references;
create trigger search_entries_reference after insert or update or delete on record_references
  for each row execute function search_entries_reference();

-- A link made or removed (issue 42): the entries of both its records.
create or replace function search_entries_link() returns trigger language plpgsql as $fn$
declare
  changed record_links;
begin
  changed := case when tg_op = 'DELETE' then old else new end;
${entryOfRecord(kinds, "changed.from_kind", "changed.from_id")}
${entryOfRecord(kinds, "changed.to_kind", "changed.to_id")}
  return null;
end
$fn$;
drop trigger if exists search_entries_link on record_links;
create trigger search_entries_link after insert or update or delete on record_links
  for each row execute function search_entries_link();

-- Every entry rebuilt from this definition; MOCs' by the trigger above as db/derived.ts then
-- rebuilds every stored document.
delete from search_entries;
${kinds
  .filter((k) => k !== MOC_SEARCH)
  .map(searchEntriesRebuildSql)
  .join("\n")}
`;

/** The functions and triggers keeping `search_entries` for the app's kinds, then every entry rebuilt (run by db/derived.ts). */
export const SEARCH_SQL = searchSql(SEARCH_KINDS);
