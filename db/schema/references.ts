import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";

/**
 * Reference types (issue 42, migration 0047, docs/decisions/057-record-links-and-references.md):
 * the list admins keep (/admin/references) in `sort` order. `url_template` (optional) is an http(s)
 * address containing `{ref}`, where a reference's number goes, URL-encoded. A deactivated type stays
 * on the references that carry it but is no longer offered.
 */
export const referenceTypes = pgTable(
  "reference_types",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    urlTemplate: text("url_template"),
    active: boolean("active").notNull().default(true),
    sort: integer("sort").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("reference_types_name_key").using("btree", sql`lower(${t.name})`),
    check("reference_types_name_check", sql`length(${t.name}) between 1 and 60 and ${t.name} = btrim(${t.name})`),
    check(
      "reference_types_url_template_check",
      sql`${t.urlTemplate} is null or (length(${t.urlTemplate}) <= 500 and ${t.urlTemplate} ~ '^https?://' and position('{ref}' in ${t.urlTemplate}) > 0)`,
    ),
  ],
);

/** The reference types the migration seeds, in order (the list is admins' to change afterwards). */
export const SEEDED_REFERENCE_TYPES = [
  "Incident",
  "Near-miss",
  "PMS work order",
  "Purchase requisition",
  "Class or flag correspondence",
] as const;

/**
 * A typed reference a record carries ("PMS work order WO-1234"): a MOC, PCR, archive record or
 * year-end review, named by its audit kind and id (no foreign key: the kinds live in five tables).
 * Removed softly; one live reference per record, type and number (without case).
 */
export const recordReferences = pgTable(
  "record_references",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    recordKind: text("record_kind").notNull(),
    recordId: uuid("record_id").notNull(),
    typeId: uuid("type_id")
      .notNull()
      .references(() => referenceTypes.id),
    ref: text("ref").notNull(),
    addedBy: uuid("added_by")
      .notNull()
      .references(() => users.id),
    addedAt: timestamp("added_at", { withTimezone: true }).notNull().defaultNow(),
    removedAt: timestamp("removed_at", { withTimezone: true }),
    removedBy: uuid("removed_by").references(() => users.id),
  },
  (t) => [
    index("record_references_record_idx")
      .on(t.recordKind, t.recordId)
      .where(sql`${t.removedAt} is null`),
    uniqueIndex("record_references_live_key")
      .using("btree", t.recordKind, t.recordId, t.typeId, sql`lower(${t.ref})`)
      .where(sql`${t.removedAt} is null`),
    index("record_references_type_idx").on(t.typeId),
    check(
      "record_references_kind_check",
      sql`${t.recordKind} in ('moc', 'pcr', 'archive-moc', 'archive-pcr', 'review')`,
    ),
    check(
      "record_references_ref_check",
      sql`length(${t.ref}) between 1 and 100 and ${t.ref} = btrim(${t.ref}) and ${t.ref} !~ '[[:cntrl:]]'`,
    ),
    check("record_references_removed_check", sql`(${t.removedAt} is null) = (${t.removedBy} is null)`),
  ],
);
