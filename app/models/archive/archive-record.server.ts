/**
 * The archive's paper records as the cross-cutting modules read them (their registry entries,
 * app/models/kinds/archive.server.ts): a record loaded for their rules and a batch described for a
 * reader (links, references). Everyone reads the archive (`canReadRecords`); its writers keep it.
 */
import type { SqlRow } from "#db/schema/rows";
import { sql } from "drizzle-orm";
import type { Executor } from "~/utils/db.server";
import { canReadRecords, canWriteArchive } from "../authz/authz.server";
import { constantSql, describeWith, type LoadedRecord } from "../record-kind/record-kind";

type PaperKind = "archive-moc" | "archive-pcr";

const PAPER = {
  "archive-moc": { table: "legacy_mocs", label: "Legacy MOC", path: "/archive/mocs/" },
  "archive-pcr": { table: "legacy_pcrs", label: "Legacy PCR", path: "/archive/pcrs/" },
} as const;

/** A paper record as the cross-cutting modules read it; null for an unknown one. */
export const loadPaperRecord =
  (kind: PaperKind) =>
  async (db: Executor, id: string): Promise<LoadedRecord<{ kind: PaperKind }> | null> => {
    const paper = PAPER[kind];
    const [row] = await db.execute<Pick<SqlRow<(typeof paper)["table"]>, "serial_num" | "title" | "status">>(
      sql`select serial_num, title, status from ${sql.raw(paper.table)} where id = ${id}`,
    );
    if (!row) return null;
    return {
      kind,
      id,
      label: `${paper.label} ${row.serial_num}`,
      title: row.title,
      path: `${paper.path}${id}`,
      status: null,
      access: { kind },
    };
  };

/** Paper records of one kind: "Legacy MOC 14/2009"; read as `canReadRecords`. */
export const describePaperRecords = (kind: PaperKind) => {
  const paper = PAPER[kind];
  return describeWith(
    (actor, ids) => sql`select r.id::text as id, ${sql.raw(`'${paper.label} '`)} || r.serial_num as label, r.title,
      ${sql.raw(`'${paper.path}'`)} || r.id as path, ${constantSql(canReadRecords(actor))} as readable,
      ${constantSql(canWriteArchive(actor))} as "worksOn"
    from ${sql.raw(`${paper.table} r`)} where r.id = any(${ids})`,
  );
};
