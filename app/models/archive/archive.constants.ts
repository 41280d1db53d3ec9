/**
 * The legacy archive's kinds, fields, labels and limits without the schemas
 * (docs/decisions/010-legacy-archive.md): the archive pages read them without loading zod
 * (docs/decisions/032-pages-at-sea.md); app/models/archive/archive.schema.ts re-exports them.
 */
import { LEGACY_STATUSES, type LegacyStatus } from "#db/schema/enums";

export { LEGACY_STATUSES, type LegacyStatus };

export const ARCHIVE_KINDS = ["moc", "pcr"] as const;
export type ArchiveKind = (typeof ARCHIVE_KINDS)[number];

/** Every field a legacy record can have; the database columns carry the same names. */
export type ArchiveField =
  | "serial_num"
  | "title"
  | "description"
  | "department"
  | "procedure"
  | "originator_name"
  | "date_raised"
  | "date_closed"
  | "status"
  | "attachments"
  | "notes";

export type ArchiveKindInfo = {
  kind: ArchiveKind;
  /** The pages' URL segment: /archive/mocs, /archive/pcrs. */
  segment: "mocs" | "pcrs";
  api: "/api/oldMoc" | "/api/oldPcr";
  table: "legacy_mocs" | "legacy_pcrs";
  /** "MOC" or "PCR". */
  short: string;
  /** "legacy MOC" */
  label: string;
  /** "legacy MOCs" */
  plural: string;
  /** The kind's own long text: the change's description (MOC) or the procedure concerned (PCR). */
  textField: "description" | "procedure";
  textLabel: string;
  hasDepartment: boolean;
  /** The document's fields in the contract's order (docs/api-contract.md; also the CSV columns). */
  fields: readonly ArchiveField[];
};

export const ARCHIVE: Record<ArchiveKind, ArchiveKindInfo> = {
  moc: {
    kind: "moc",
    segment: "mocs",
    api: "/api/oldMoc",
    table: "legacy_mocs",
    short: "MOC",
    label: "legacy MOC",
    plural: "legacy MOCs",
    textField: "description",
    textLabel: "Description",
    hasDepartment: true,
    fields: [
      "serial_num",
      "title",
      "description",
      "department",
      "originator_name",
      "date_raised",
      "date_closed",
      "status",
      "attachments",
      "notes",
    ],
  },
  pcr: {
    kind: "pcr",
    segment: "pcrs",
    api: "/api/oldPcr",
    table: "legacy_pcrs",
    short: "PCR",
    label: "legacy PCR",
    plural: "legacy PCRs",
    textField: "procedure",
    textLabel: "Procedure",
    hasDepartment: false,
    fields: [
      "serial_num",
      "title",
      "procedure",
      "originator_name",
      "date_raised",
      "date_closed",
      "status",
      "attachments",
      "notes",
    ],
  },
};

export const kindBySegment = (segment: string | undefined): ArchiveKindInfo | null =>
  Object.values(ARCHIVE).find((k) => k.segment === segment) ?? null;

/** A record as the model writes it (status derived, defaults filled). */
export type ArchiveInput = {
  serial_num: string;
  title: string;
  originator_name: string;
  date_raised: string;
  date_closed: string | null;
  status: LegacyStatus;
  attachments: string[];
  notes: string;
  description?: string;
  department?: string;
  procedure?: string;
};
/** A PATCH body: any fields, each valid on its own; the merged record is checked as a whole. */
export type ArchivePatch = Partial<ArchiveInput>;

export const ARCHIVE_LIMITS = {
  serial: 50,
  title: 200,
  name: 120,
  department: 100,
  text: 10_000,
  attachments: 20,
  url: 2_000,
  earliest: "1900-01-01",
} as const;

const REQUIRED: readonly ArchiveField[] = ["serial_num", "title", "originator_name", "date_raised"];
export const isRequiredField = (field: ArchiveField) => REQUIRED.includes(field);

export const ARCHIVE_SORTS = ["serial", "raised", "closed", "title"] as const;
export type ArchiveSort = (typeof ARCHIVE_SORTS)[number];
export const ARCHIVE_SORT_LABELS: Record<ArchiveSort, string> = {
  serial: "Serial number",
  raised: "Date raised",
  closed: "Date closed",
  title: "Title",
};
/** The direction a column starts in when first chosen: dates newest first, text A to Z. */
export const defaultDirection = (sort: ArchiveSort): "asc" | "desc" =>
  sort === "raised" || sort === "closed" ? "desc" : "asc";

export const CSV_LIMITS = { bytes: 1024 * 1024, rows: 5_000 } as const;

/** What each CSV column holds, for the import page. */
export const COLUMN_HELP: Record<ArchiveField, string> = {
  serial_num: "The paper record's number, unique in the archive (e.g. 12-2014)",
  title: "One line, up to 200 characters",
  description: "What changed (plain text)",
  department: "The department concerned",
  procedure: "The procedure or manual concerned (plain text)",
  originator_name: "Who raised it",
  date_raised: "YYYY-MM-DD",
  date_closed: "YYYY-MM-DD, or empty while open",
  status: "open or closed; empty means closed when date_closed is given, open otherwise",
  attachments: "Links (http:// or https://) separated by ; or |",
  notes: "Plain text",
};
