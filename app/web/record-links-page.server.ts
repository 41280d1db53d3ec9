/**
 * Links between records on the pages (issue 42, docs/decisions/057-record-links-and-references.md):
 * the record pages' "Linked records" section data (`linksPanel`, one call, a constant number of
 * statements), and the add-a-link page's search (`linkCandidates`): the records matching a query
 * that the reader may read (the search model's own authorization), each named as a reference.
 */
import type { LinksPanel } from "~/components/record-links";
import type { Actor } from "~/models/authz/authz.server";
import { linksOf, reviewsMatching } from "~/models/records/record-links.server";
import { describeRecords, recordRefText, type RecordRef } from "~/models/records/record-refs.server";
import { getDb } from "~/utils/db.server";
import { search, type SearchEntryKind } from "~/models/records/search.server";

/**
 * The section's data for a record page whose loader has already let the reader read the record (by
 * the page's rule, a delegate's too: `linksOf`'s `recordChecked`).
 */
export async function linksPanel(actor: Actor, ref: RecordRef): Promise<LinksPanel> {
  const { links, mayAdd } = await linksOf(actor, ref, getDb(), { recordChecked: true });
  return {
    ref: recordRefText(ref),
    links: links.map(({ _id, seen, other, mayRemove }) => ({ _id, seen, other, mayRemove })),
    mayAdd,
  };
}

/** A search entry's kind as a record reference's (the kinds a reference may name). */
const REF_KIND: Partial<Record<SearchEntryKind, RecordRef["kind"]>> = {
  moc: "moc",
  pcr: "pcr",
  legacy_moc: "archive-moc",
  legacy_pcr: "archive-pcr",
};

export type LinkCandidate = { ref: string; label: string; title: string; path: string };

/**
 * The records matching `q` that `actor` may read (MOCs, PCRs, archive records, then year-end reviews), best first, but
 * `except`; named as the links name them (`describeRecords`, one statement per kind).
 */
export async function linkCandidates(actor: Actor, q: string, except: RecordRef): Promise<LinkCandidate[]> {
  const [found, reviews] = await Promise.all([search(actor, q), reviewsMatching(actor, q)]);
  const refs = [
    ...[...found.mocs.results, ...found.pcrs.results, ...found.archive.results].flatMap((hit): RecordRef[] => {
      const kind = REF_KIND[hit.kind];
      return kind ? [{ kind, id: hit._id }] : [];
    }),
    ...reviews,
  ].filter((ref) => recordRefText(ref) !== recordRefText(except));
  const described = await describeRecords(getDb(), actor, refs);
  return refs.flatMap((ref) => {
    const d = described.get(recordRefText(ref));
    return d?.readable ? [{ ref: d.ref, label: d.label, title: d.title, path: d.path }] : [];
  });
}
