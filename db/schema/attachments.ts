import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  customType,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { mocs } from "./mocs";
import { pcrs } from "./pcrs";
import { users } from "./users";

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

/** What a file is to its record: the MOC's risk assessment, or any other file. */
export const ATTACHMENT_KINDS = ["risk_assessment", "file"] as const;
export type AttachmentKind = (typeof ATTACHMENT_KINDS)[number];

/**
 * A file kept with a MOC or a PCR (docs/decisions/022-records-out.md). Rows are never updated
 * except to mark them removed: a new upload is a new row; removing one hides it and logs it.
 * The transaction that writes the last chunk also writes the size and hash, so a half-written
 * upload is never listed or served.
 */
export const attachments = pgTable(
  "attachments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    mocId: uuid("moc_id").references(() => mocs.id),
    /** A PCR is deleted outright (its originator or an admin), and its files with it. */
    pcrId: uuid("pcr_id").references(() => pcrs.id, { onDelete: "cascade" }),
    kind: text("kind").$type<AttachmentKind>().notNull(),
    name: text("name").notNull(),
    contentType: text("content_type").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    sha256: text("sha256").notNull(),
    uploadedBy: uuid("uploaded_by").references(() => users.id),
    uploadedAt: timestamp("uploaded_at", { withTimezone: true }).notNull().defaultNow(),
    removedBy: uuid("removed_by").references(() => users.id),
    removedAt: timestamp("removed_at", { withTimezone: true }),
    /** `<moc id>/<stored name>` for a file moved in from DATA_DIR/uploads: its old URL keeps working. */
    legacyPath: text("legacy_path"),
  },
  (t) => [
    index("attachments_moc_idx").on(t.mocId, t.uploadedAt),
    index("attachments_pcr_idx").on(t.pcrId, t.uploadedAt),
    uniqueIndex("attachments_legacy_path_key").on(t.legacyPath),
    check("attachments_owner_check", sql`(${t.mocId} is null) <> (${t.pcrId} is null)`),
    check("attachments_kind_check", sql`${t.kind} in ('risk_assessment', 'file')`),
    check("attachments_size_check", sql`${t.size} >= 0`),
  ],
);

/** A file's bytes in order, in chunks of at most 256 KiB. */
export const attachmentChunks = pgTable(
  "attachment_chunks",
  {
    attachmentId: uuid("attachment_id")
      .notNull()
      .references(() => attachments.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    data: bytea("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.attachmentId, t.seq] })],
);
