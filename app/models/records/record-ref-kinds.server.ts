/**
 * How each kind of record that can be named "<kind>:<id>" is described and read (issue 42,
 * docs/decisions/057-record-links-and-references.md): one statement per kind for a batch of ids,
 * answering for each record that exists its label, title and page, and whether the reader may
 * read it by the kind's own reading rule (the lists' SQL twins in authz.server.ts:
 * `mocListScope.visible` for `canReadMoc`, `pcrListScope` for `canViewPcr`, `canReadRecords` for
 * the archive and the year-end reviews). The record-kind registry points at these
 * (record-kinds.server.ts `linkable`); record-refs.server.ts reads them from there.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "~/utils/db.server";
import {
  canReadRecords,
  canWriteArchive,
  canWriteReviews,
  mocListScope,
  pcrListScope,
  type Actor,
} from "../authz/authz.server";
import { TITLE_SQL } from "../moc/moc-scope.server";

/**
 * One record of a batch, as its kind describes it. `worksOn`: the reader works on the record (a
 * MOC's people, `isInvolved`; a PCR's originator; the archive's and the reviews' writers,
 * `canWriteArchive`, `canWriteReviews`), which `canLinkRecords` (authz.server.ts) reads.
 */
export type DescribedRecord = {
  id: string;
  label: string;
  title: string;
  path: string;
  readable: boolean;
  worksOn: boolean;
};

/** Describes the records of one kind with these ids (those that exist), in one statement. */
export type RecordDescriber = (db: Executor, actor: Actor, ids: readonly string[]) => Promise<DescribedRecord[]>;

/** A list of ids as one uuid[] parameter, whatever its length. */
const uuidArray = (ids: readonly string[]) =>
  sql`array(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)`;

const describeWith =
  (query: (actor: Actor, ids: SQL) => SQL): RecordDescriber =>
  async (db, actor, ids) =>
    ids.length === 0 ? [] : [...(await db.execute<DescribedRecord>(query(actor, uuidArray(ids))))];

/** MOCs: "MOC 14-2026", Part A's title; read as `canReadMoc` (its list twin, `mocListScope.visible`). */
export const describeMocs = describeWith(
  (actor, ids) => sql`select m.id::text as id, 'MOC ' || m.serial_num as label,
      coalesce((select ${TITLE_SQL} from moc_forms f where f.moc_id = m.id and f.kind = 'originator'), '') as title,
      '/mocs/' || m.id as path, coalesce(${mocListScope.visible(actor)}, false) as readable,
      (m.originator_id = ${actor._id}::uuid or exists (select 1 from moc_users mu where mu.moc_id = m.id and mu.user_id = ${actor._id}::uuid)) as "worksOn"
    from mocs m where m.id = any(${ids})`,
);

/** PCRs: "PCR 3-2026", its title; read as `canViewPcr` (its list twin, `pcrListScope`). */
export const describePcrs = describeWith(
  (actor, ids) => sql`select p.id::text as id, 'PCR ' || p.serial_num as label, coalesce(p.form->>'title', '') as title,
      '/pcrs/' || p.id as path, coalesce(${pcrListScope(actor)}, false) as readable,
      p.originator_id = ${actor._id}::uuid as "worksOn"
    from pcrs p where p.id = any(${ids})`,
);

/** A predicate's answer (it depends on the reader only) as an SQL constant. */
const constant = (value: boolean) => (value ? sql`true` : sql`false`);

/** Paper MOCs of the archive: "Legacy MOC 14/2009"; read as `canReadRecords`. */
export const describeArchiveMocs = describeWith(
  (actor, ids) => sql`select r.id::text as id, 'Legacy MOC ' || r.serial_num as label, r.title,
      '/archive/mocs/' || r.id as path, ${constant(canReadRecords(actor))} as readable,
      ${constant(canWriteArchive(actor))} as "worksOn"
    from legacy_mocs r where r.id = any(${ids})`,
);

/** Paper PCRs of the archive: "Legacy PCR 7/2011"; read as `canReadRecords`. */
export const describeArchivePcrs = describeWith(
  (actor, ids) => sql`select r.id::text as id, 'Legacy PCR ' || r.serial_num as label, r.title,
      '/archive/pcrs/' || r.id as path, ${constant(canReadRecords(actor))} as readable,
      ${constant(canWriteArchive(actor))} as "worksOn"
    from legacy_pcrs r where r.id = any(${ids})`,
);

/** Year-end reviews: "Year-end review 2025", its title; read as `canReadRecords` (the review pages' rule). */
export const describeReviews = describeWith(
  (actor, ids) => sql`select r.id::text as id, 'Year-end review ' || r.year as label, r.title,
      '/reviews/' || r.id as path, ${constant(canReadRecords(actor))} as readable,
      ${constant(canWriteReviews(actor))} as "worksOn"
    from year_end_reviews r where r.id = any(${ids})`,
);
