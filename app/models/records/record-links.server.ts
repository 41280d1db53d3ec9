/**
 * Links between records (issue 42, docs/decisions/057-record-links-and-references.md): a MOC, PCR,
 * archive record or year-end review linked to another with a kind (record-links.constants.ts), read
 * both ways, the other end with the inverse words. A link is seen only by whoever may read both of
 * its ends; who may make and remove one is `canLinkRecords` / `canUnlinkRecords` (authz.server.ts).
 *
 * Every write is in the caller's transaction when given one (a follow-up MOC links its source as
 * it is created), else its own: the state check, the row, and an entry in BOTH records' audit
 * chains (a MOC's `moc_logs`, the others' `audit_entries`: the registry's `audit`). Removal is soft.
 * Reads take a constant number of statements: the links, then their ends described by
 * record-refs.server.ts (one statement per kind at most).
 */
import { sql } from "drizzle-orm";
import { getDb, type Executor } from "~/utils/db.server";
import { Conflict, Forbidden, Invalid, NotFound } from "~/utils/errors";
import { inTransaction } from "../audit/audit-chain.server";
import { canLinkRecords, canReadRecords, canUnlinkRecords, type Actor } from "../authz/authz.server";
import { noteInTrail } from "../record-kind/record-kind";
import { capitalise } from "../shared/labels";
import type { PrintSection } from "../records-out/record-print.server";
import { linkWording, type LinkKind } from "./record-links.constants";
import { UUID_PATTERN } from "./record-refs.constants";
import {
  describeRecords,
  recordRefText,
  type RecordDescription,
  type RecordRef,
  type RecordRefKind,
} from "./record-refs.server";

export type { LinkKind };

/** One end of a link as a reader sees it. */
export type LinkEndJson = Pick<RecordDescription, "ref" | "kind" | "id" | "label" | "title" | "path">;

/** A link as it is stored (POST and DELETE /api/links answer it). */
export type LinkJson = {
  _id: string;
  from: string;
  to: string;
  kind: LinkKind;
  createdBy: { _id: string; name: string } | null;
  createdAt: string;
  removedBy: { _id: string; name: string } | null;
  removedAt: string | null;
};

/** A link as seen from one of its ends (GET /api/links, the record pages, print). */
export type LinkView = {
  _id: string;
  kind: LinkKind;
  /** The link's words from the record asked about: "procedure changed by", or "changes the procedure of" from its `to`. */
  seen: string;
  from: LinkEndJson;
  to: LinkEndJson;
  /** The end that is not the record asked about. */
  other: LinkEndJson;
  createdBy: { _id: string; name: string } | null;
  createdAt: string;
  /** The reader may remove it (`canUnlinkRecords`). */
  mayRemove: boolean;
};

/** A record's links as its reader sees them, and whether they may add one from it. */
export type RecordLinks = { record: LinkEndJson; links: LinkView[]; mayAdd: boolean };

type LinkRow = {
  id: string;
  from_kind: RecordRefKind;
  from_id: string;
  to_kind: RecordRefKind;
  to_id: string;
  kind: LinkKind;
  created_by: string;
  created_by_name: string | null;
  created_at: string;
  removed_by: string | null;
  removed_by_name: string | null;
  removed_at: string | null;
};

const iso = (column: string) => sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

const LINK_COLUMNS = sql`l.id, l.from_kind, l.from_id::text as from_id, l.to_kind, l.to_id::text as to_id, l.kind,
  l.created_by, cu.name as created_by_name, ${iso("l.created_at")} as created_at,
  l.removed_by, ru.name as removed_by_name, case when l.removed_at is null then null else ${iso("l.removed_at")} end as removed_at`;
const LINK_JOINS = sql`left join users cu on cu.id = l.created_by left join users ru on ru.id = l.removed_by`;

/** The unordered pair of a link, as its unique index reads it (migration 0046). */
const PAIR_SQL = sql.raw(`least(from_kind || ':' || from_id::text, to_kind || ':' || to_id::text),
  greatest(from_kind || ':' || from_id::text, to_kind || ':' || to_id::text)`);

const fromOf = (row: LinkRow): RecordRef => ({ kind: row.from_kind, id: row.from_id });
const toOf = (row: LinkRow): RecordRef => ({ kind: row.to_kind, id: row.to_id });
const person = (id: string | null, name: string | null) => (id ? { _id: id, name: name ?? "—" } : null);

const linkJson = (row: LinkRow): LinkJson => ({
  _id: row.id,
  from: recordRefText(fromOf(row)),
  to: recordRefText(toOf(row)),
  kind: row.kind,
  createdBy: person(row.created_by, row.created_by_name),
  createdAt: row.created_at,
  removedBy: person(row.removed_by, row.removed_by_name),
  removedAt: row.removed_at,
});

const endJson = ({ ref, kind, id, label, title, path }: RecordDescription): LinkEndJson => ({
  ref,
  kind,
  id,
  label,
  title,
  path,
});

const sameRef = (a: RecordRef, b: RecordRef) => a.kind === b.kind && a.id.toLowerCase() === b.id.toLowerCase();

/** Both ends described for the actor; 404 when one does not exist, 403 when they may not read one. */
async function readableEnds(db: Executor, actor: Actor, from: RecordRef, to: RecordRef) {
  const described = await describeRecords(db, actor, [from, to]);
  const ends = [from, to].map((ref, i) => {
    const end = described.get(recordRefText(ref));
    const field = i === 0 ? "from" : "to";
    if (!end) throw new NotFound(`No such record: ${recordRefText(ref)} (${field})`);
    return end;
  });
  for (const end of ends) {
    if (!end.readable) throw new Forbidden(`You may not read the record ${end.ref}, so you cannot link it`);
  }
  return { fromEnd: ends[0]!, toEnd: ends[1]! };
}

/** The MOC statuses of the MOC ends (their `moc_logs` entries carry it). */
/**
 * The entry each end's chain gets: "Linked" / "Link removed", the link's words from that end and the
 * other record's number, never its title: a record's trail is shown to everyone who reads the
 * record, and a reader of only this end must not learn what the other record is about
 * (docs/decisions/057-record-links-and-references.md). Written in the order of the records' names,
 * so two links between the same records never wait on each other's chain heads.
 */
async function auditBothEnds(
  db: Executor,
  actor: Actor,
  action: string,
  kind: LinkKind,
  fromEnd: RecordDescription,
  toEnd: RecordDescription,
) {
  const entries = [
    { end: fromEnd, other: toEnd, words: linkWording(kind, "from") },
    { end: toEnd, other: fromEnd, words: linkWording(kind, "to") },
  ].sort((a, b) => (a.end.ref < b.end.ref ? -1 : 1));
  for (const { end, other, words } of entries) {
    const comment = `${words} ${other.label}`;
    await noteInTrail(db, end.kind, { id: end.id }, { actorId: actor._id, action, comment });
  }
}

/**
 * Links `from` to `to` with `kind`, in `db`'s transaction when it is one (else its own). 400 for a
 * record linked to itself, 404 for an end that does not exist, 403 when the actor may not read an
 * end or may not link them (`canLinkRecords`), 409 when the two are already linked with this kind
 * the other way round. The same active link made again (a replay, or two at once) is not made
 * twice: the existing one is answered with `created: false`, and nothing is written.
 */
export async function linkRecords(
  db: Executor,
  actor: Actor,
  input: { from: RecordRef; to: RecordRef; kind: LinkKind },
): Promise<{ link: LinkJson; created: boolean }> {
  const { from, to, kind } = input;
  if (sameRef(from, to)) {
    throw new Invalid("A record cannot be linked to itself", [{ path: "to", message: "Choose another record" }]);
  }
  return inTransaction(db, async (tx) => {
    const { fromEnd, toEnd } = await readableEnds(tx, actor, from, to);
    if (!canLinkRecords(actor, fromEnd, toEnd)) {
      throw new Forbidden(
        "Linking records is for admins, the HSEQ department and the people who work on one of the records",
      );
    }
    const [inserted] = await tx.execute<{ id: string }>(sql`
      insert into record_links (from_kind, from_id, to_kind, to_id, kind, created_by)
      values (${fromEnd.kind}, ${fromEnd.id}::uuid, ${toEnd.kind}, ${toEnd.id}::uuid, ${kind}, ${actor._id}::uuid)
      on conflict (${PAIR_SQL}, kind) where removed_at is null do nothing
      returning id::text as id`);
    if (inserted) {
      await auditBothEnds(tx, actor, "Linked", kind, fromEnd, toEnd);
      return { link: (await loadLink(tx, inserted.id))!, created: true };
    }
    const [existing] = await tx.execute<LinkRow>(sql`
      select ${LINK_COLUMNS} from record_links l ${LINK_JOINS}
      where l.removed_at is null and l.kind = ${kind}
        and ((l.from_kind = ${fromEnd.kind} and l.from_id = ${fromEnd.id}::uuid and l.to_kind = ${toEnd.kind} and l.to_id = ${toEnd.id}::uuid)
          or (l.from_kind = ${toEnd.kind} and l.from_id = ${toEnd.id}::uuid and l.to_kind = ${fromEnd.kind} and l.to_id = ${fromEnd.id}::uuid))`);
    if (!existing) throw new Conflict("The link was being changed at the same time; try again");
    if (kind !== "related" && !sameRef(fromOf(existing), fromEnd)) {
      throw new Conflict(
        `Already linked the other way (${toEnd.label} ${kind} ${fromEnd.label}); remove that link first`,
      );
    }
    return { link: linkJson(existing), created: false };
  });
}

async function loadLink(db: Executor, id: string, lock = false): Promise<LinkJson | null> {
  const [row] = await db.execute<LinkRow>(
    sql`select ${LINK_COLUMNS} from record_links l ${LINK_JOINS} where l.id = ${id}::uuid ${lock ? sql`for update of l` : sql``}`,
  );
  return row ? linkJson(row) : null;
}

/**
 * Removes a link (soft: the row stays with who removed it and when), with an entry in both records'
 * chains. 404 for no such link (or one the actor may not read both ends of), 403 when they may not
 * remove it (`canUnlinkRecords`), 409 when it is already removed.
 */
export async function unlinkRecord(db: Executor, actor: Actor, id: string): Promise<LinkJson> {
  if (!UUID_PATTERN.test(id)) throw new NotFound("No such link");
  return inTransaction(db, async (tx) => {
    const [row] = await tx.execute<LinkRow>(
      sql`select ${LINK_COLUMNS} from record_links l ${LINK_JOINS} where l.id = ${id}::uuid for update of l`,
    );
    if (!row) throw new NotFound("No such link");
    const described = await describeRecords(tx, actor, [fromOf(row), toOf(row)]);
    const fromEnd = described.get(recordRefText(fromOf(row)));
    const toEnd = described.get(recordRefText(toOf(row)));
    if (!fromEnd?.readable || !toEnd?.readable) throw new NotFound("No such link");
    if (row.removed_at) throw new Conflict("This link is already removed");
    if (!canUnlinkRecords(actor, { createdBy: row.created_by }, fromEnd, toEnd)) {
      throw new Forbidden(
        "Removing a link is for admins, the HSEQ department, the people who work on one of the records and whoever made it",
      );
    }
    await tx.execute(
      sql`update record_links set removed_at = now(), removed_by = ${actor._id}::uuid where id = ${id}::uuid`,
    );
    await auditBothEnds(tx, actor, "Link removed", row.kind, fromEnd, toEnd);
    return (await loadLink(tx, id))!;
  });
}

/**
 * Views of link rows from `ref`'s side, keeping only those whose both ends the actor may read.
 * `described` holds every end.
 */
function viewsFrom(
  actor: Actor,
  ref: RecordRef,
  rows: readonly LinkRow[],
  described: Map<string, RecordDescription>,
  recordChecked: boolean,
) {
  const readable = (end: RecordDescription | undefined) =>
    end !== undefined && (end.readable || (recordChecked && sameRef(end, ref)));
  const views: LinkView[] = [];
  for (const row of rows) {
    const fromEnd = described.get(recordRefText(fromOf(row)));
    const toEnd = described.get(recordRefText(toOf(row)));
    if (!fromEnd || !toEnd || !readable(fromEnd) || !readable(toEnd)) continue;
    const seenFrom = sameRef(fromOf(row), ref) ? "from" : "to";
    views.push({
      _id: row.id,
      kind: row.kind,
      seen: linkWording(row.kind, seenFrom),
      from: endJson(fromEnd),
      to: endJson(toEnd),
      other: endJson(seenFrom === "from" ? toEnd : fromEnd),
      createdBy: person(row.created_by, row.created_by_name),
      createdAt: row.created_at,
      mayRemove: canUnlinkRecords(actor, { createdBy: row.created_by }, fromEnd, toEnd),
    });
  }
  return views;
}

/**
 * The active links of `ref` that `actor` may see (both ends readable), oldest first, each from
 * `ref`'s side; 404 when the record does not exist, 403 when the actor may not read it. Two to six
 * statements whatever the number of links: the links, then their ends, one statement per kind.
 * `recordChecked`: the caller's page has already let the actor read the record by its own rule,
 * which may be wider than the lists' (a delegate reads the absent person's MOCs and PCRs:
 * `canViewMocAs`, `canViewPcrAs`); the links whose other end they may read are then shown (nothing
 * more: adding and removing still ask `canLinkRecords` on the record's kind rule).
 */
export async function linksOf(
  actor: Actor,
  ref: RecordRef,
  db: Executor = getDb(),
  { recordChecked = false }: { recordChecked?: boolean } = {},
): Promise<RecordLinks> {
  const rows = await db.execute<LinkRow>(sql`
    select ${LINK_COLUMNS} from record_links l ${LINK_JOINS}
    where l.removed_at is null
      and ((l.from_kind = ${ref.kind} and l.from_id = ${ref.id}::uuid) or (l.to_kind = ${ref.kind} and l.to_id = ${ref.id}::uuid))
    order by l.created_at, l.id`);
  const described = await describeRecords(db, actor, [ref, ...rows.flatMap((r) => [fromOf(r), toOf(r)])]);
  const record = described.get(recordRefText(ref));
  if (!record) throw new NotFound(`No such record: ${recordRefText(ref)}`);
  if (!record.readable && !recordChecked) throw new Forbidden(`You may not read the record ${record.ref}`);
  return {
    record: endJson(record),
    links: viewsFrom(actor, ref, rows, described, recordChecked),
    mayAdd: canLinkRecords(actor, record, { readable: true, worksOn: false }),
  };
}

/**
 * The year-end reviews a query names, by year or by words of the title, for the add-a-link page
 * (reviews have no search entries: docs/decisions/039-search.md): at most `limit`, newest year
 * first, none when the actor may not read reviews (`canReadRecords`). One statement.
 */
export async function reviewsMatching(actor: Actor, q: string, limit = 20): Promise<RecordRef[]> {
  if (!canReadRecords(actor)) return [];
  const words = q.trim().split(/\s+/).filter(Boolean).slice(0, 8);
  if (words.length === 0) return [];
  const rows = await getDb().execute<{ id: string }>(sql`select r.id::text as id from year_end_reviews r
    where ${sql.join(
      words.map((w) => sql`(r.year::text = ${w} or r.title ilike ${`%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`})`),
      sql` and `,
    )}
    order by r.year desc, r.created_at desc limit ${limit}`);
  return rows.map((r) => ({ kind: "review" as const, id: r.id }));
}

/**
 * A record's links as printed (the MOC's and PCR's print views and PDFs): "Linked records", each as
 * it reads from the record, with the other record's number and title; only the links
 * `linksOf` shows the reader (both ends readable).
 */
export function linksPrintSection(links: readonly LinkView[]): PrintSection {
  return {
    id: "linked-records",
    title: "Linked records",
    note: null,
    blocks: [
      {
        kind: "table",
        columns: ["Link", "Record", "Title"],
        rows: links.map((l) => [capitalise(l.seen), l.other.label, l.other.title || "—"]),
        empty: "No linked records.",
      },
    ],
  };
}
