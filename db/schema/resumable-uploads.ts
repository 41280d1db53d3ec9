import { bigint, customType, index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

/**
 * An attachment being uploaded with the tus protocol (app/models/records/resumable-uploads.server.ts,
 * docs/decisions/040-replays-apply-once.md): its declared size, the bytes received so far
 * (`offset`), what the file is for (`metadata`: name, record, kind) and whose it is. Once the last
 * byte arrives it becomes an attachment and the row goes; one not finished within its lifetime
 * from `created_at` (RESUMABLE_UPLOAD_HOURS) is removed by the hourly housekeeping. Backups carry
 * neither table's rows (db/backup.ts).
 */
export const resumableUploads = pgTable(
  "resumable_uploads",
  {
    id: text("id").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    size: bigint("size", { mode: "number" }).notNull(),
    offset: bigint("offset", { mode: "number" }).notNull().default(0),
    metadata: jsonb("metadata").$type<Record<string, string | null>>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("resumable_uploads_updated_idx").on(t.updatedAt)],
);

/** The received bytes of an upload, one row per stored piece, by the offset it starts at. */
export const resumableUploadParts = pgTable(
  "resumable_upload_parts",
  {
    uploadId: text("upload_id")
      .notNull()
      .references(() => resumableUploads.id, { onDelete: "cascade" }),
    offset: bigint("offset", { mode: "number" }).notNull(),
    data: bytea("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.uploadId, t.offset] })],
);
