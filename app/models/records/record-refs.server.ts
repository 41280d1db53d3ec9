/**
 * Records named as "<kind>:<id>" (issue 42, docs/decisions/057-record-links-and-references.md), the
 * kind one of RECORD_REF_KINDS (the record-kind registry's linkable kinds): parsing them (400s that
 * say what is wrong), describing a batch of them for a reader in one statement per kind at most
 * (label, title, page, whether the reader may read it by the kind's own rule), and one record's
 * "may read". Each kind's description and reading rule is its registry entry's `linkable`
 * (app/models/record-kind/record-kind.ts; each kind's own, app/models/moc/moc-record.server.ts and
 * the others); links (record-links.server.ts) and external references read records through here.
 */
import { z } from "zod";
import { getDb, type Executor } from "~/utils/db.server";
import { Invalid } from "~/utils/errors";
import type { Actor } from "../authz/authz.server";
import { recordKind, type DescribedRecord } from "../record-kind/record-kind";
import {
  RECORD_REF_FORMAT,
  RECORD_REF_KINDS,
  readRecordRef,
  recordRefText,
  type RecordRef,
  type RecordRefKind,
} from "./record-refs.constants";

export { RECORD_REF_KINDS, readRecordRef, recordRefText, type RecordRef, type RecordRefKind };

/**
 * "<kind>:<id>" as a reference; Invalid (400) saying whether the form, the kind or the id is wrong,
 * its issue under `path` (the body key the caller read it from).
 */
export function parseRecordRef(text: unknown, path = "record"): RecordRef {
  const read = readRecordRef(text);
  if (!read.ok) throw new Invalid(read.message, [{ path, message: read.message }]);
  return read.ref;
}

/** The zod field of a reference: a string read as `RecordRef`, its messages the same as `parseRecordRef`'s. */
export const recordRefSchema = z
  .string({ error: `Expected a record as ${RECORD_REF_FORMAT}` })
  .transform((text, ctx) => {
    const read = readRecordRef(text);
    if (read.ok) return read.ref;
    ctx.addIssue({ code: "custom", message: read.message });
    return z.NEVER;
  })
  .meta({
    description: `A record: ${RECORD_REF_FORMAT}.`,
    example: "moc:0b6f2f52-8d9c-4c1e-9b8a-3a4f5e6d7c8b",
  });

/**
 * A record that exists, as a reader sees it named: its kind's description (app/models/record-kind/record-kind.ts
 * `DescribedRecord`: label such as "MOC 14-2026", title ("" when none), page, `readable` by the
 * kind's own reading rule, `worksOn` for `canLinkRecords`), with its reference ("moc:<id>") and kind.
 */
export type RecordDescription = DescribedRecord & { ref: string; kind: RecordRefKind };

const describerOf = (kind: RecordRefKind) => {
  const linkable = recordKind(kind).linkable;
  if (!linkable) throw new Error(`record kind ${kind} is not linkable (its registry entry has no linkable)`);
  return linkable.describe;
};

/**
 * The records among `refs` that exist, described for `actor`, keyed by their text ("moc:<id>"):
 * at most one statement per kind, whatever the number of references. A record that does not exist
 * is absent; one the actor may not read is present with `readable: false` (callers decide what
 * to show of it: usually nothing).
 */
export async function describeRecords(
  db: Executor,
  actor: Actor,
  refs: readonly RecordRef[],
): Promise<Map<string, RecordDescription>> {
  const byKind = new Map<RecordRefKind, Set<string>>();
  for (const ref of refs) {
    const ids = byKind.get(ref.kind) ?? new Set<string>();
    ids.add(ref.id.toLowerCase());
    byKind.set(ref.kind, ids);
  }
  const described = await Promise.all(
    [...byKind].map(async ([kind, ids]) =>
      (await describerOf(kind)(db, actor, [...ids])).map((row): RecordDescription => ({
        ref: recordRefText({ kind, id: row.id }),
        kind,
        id: row.id,
        label: row.label,
        title: row.title ?? "",
        path: row.path,
        readable: Boolean(row.readable),
        worksOn: Boolean(row.worksOn),
      })),
    ),
  );
  return new Map(described.flat().map((d) => [d.ref, d]));
}

/** One record, described for `actor`, or null when it does not exist. */
export async function describeRecord(db: Executor, actor: Actor, ref: RecordRef): Promise<RecordDescription | null> {
  return (await describeRecords(db, actor, [ref])).get(recordRefText(ref)) ?? null;
}

/** Whether `actor` may read the record (false when it does not exist). */
export async function mayReadRecord(actor: Actor, ref: RecordRef, db: Executor = getDb()): Promise<boolean> {
  return (await describeRecord(db, actor, ref))?.readable ?? false;
}
