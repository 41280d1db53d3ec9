/**
 * The archive's paper MOCs and PCRs as record kinds (docs/decisions/060-record-kinds.md,
 * docs/decisions/010-legacy-archive.md): their entries in the registry.
 */
import { sql } from "drizzle-orm";
import { LEGACY_MOC_SEARCH, LEGACY_PCR_SEARCH } from "#db/search-document";
import { describePaperRecords, loadPaperRecord } from "../archive/archive-record.server";
import { sharedTrail } from "../audit/audit.server";
import { canReadRecords, type Actor } from "../authz/authz.server";
import { constantSql, defineRecordKind } from "../record-kind/record-kind";
import { archiveCsv } from "../archive/archive.server";

/** Who reads the archive's records: `canReadRecords`, a rule of the reader alone. */
const paperReadSql = (actor: Actor) => constantSql(canReadRecords(actor));

/** Over the paper record `r`: its status (open or closed), never completed, newest by the date raised. */
const paperSearch = {
  group: "archive",
  serialPrefix: null,
  status: sql`r.status`,
  completed: sql`false`,
  newest: sql`r.date_raised::timestamptz`,
};

export const ARCHIVE_MOC_KIND = defineRecordKind({
  name: "archive-moc",
  label: "Legacy MOC",
  page: (id) => `/archive/mocs/${id}`,
  table: { name: "legacy_mocs", alias: "r" },
  readSql: paperReadSql,
  load: loadPaperRecord("archive-moc"),
  audit: sharedTrail("archive-moc"),
  search: { entry: LEGACY_MOC_SEARCH, ...paperSearch, serialPrefix: "moc" },
  export: archiveCsv,
  linkable: { describe: describePaperRecords("archive-moc") },
});

export const ARCHIVE_PCR_KIND = defineRecordKind({
  name: "archive-pcr",
  label: "Legacy PCR",
  page: (id) => `/archive/pcrs/${id}`,
  table: { name: "legacy_pcrs", alias: "r" },
  readSql: paperReadSql,
  load: loadPaperRecord("archive-pcr"),
  audit: sharedTrail("archive-pcr"),
  search: { entry: LEGACY_PCR_SEARCH, ...paperSearch, serialPrefix: "pcr" },
  export: archiveCsv,
  linkable: { describe: describePaperRecords("archive-pcr") },
});
