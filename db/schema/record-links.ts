import { sql } from "drizzle-orm";
import { check, index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "./users";

/**
 * Links between records (issue 42, migration 0046, docs/decisions/057-record-links-and-references.md):
 * `from` is `kind` of `to` ("procedure changed by", "follow-up of", "replaces", "related"), each end a
 * record named by its registry kind and id (app/models/records/record-refs.server.ts); no foreign key, the
 * ends live in five tables. Removal is soft: `removed_at`/`removed_by` set, the row kept. One active
 * link per unordered pair and kind; never a record to itself.
 */
export const recordLinks = pgTable(
  "record_links",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    fromKind: text("from_kind").notNull(),
    fromId: uuid("from_id").notNull(),
    toKind: text("to_kind").notNull(),
    toId: uuid("to_id").notNull(),
    kind: text("kind").notNull(),
    createdBy: uuid("created_by")
      .notNull()
      .references(() => users.id),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    removedBy: uuid("removed_by").references(() => users.id),
    removedAt: timestamp("removed_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("record_links_active_pair_key")
      .using(
        "btree",
        sql`least(${t.fromKind} || ':' || ${t.fromId}::text, ${t.toKind} || ':' || ${t.toId}::text)`,
        sql`greatest(${t.fromKind} || ':' || ${t.fromId}::text, ${t.toKind} || ':' || ${t.toId}::text)`,
        t.kind,
      )
      .where(sql`${t.removedAt} is null`),
    index("record_links_from_idx").on(t.fromKind, t.fromId),
    index("record_links_to_idx").on(t.toKind, t.toId),
    check("record_links_from_kind_check", sql`${t.fromKind} in ('moc', 'pcr', 'archive-moc', 'archive-pcr', 'review')`),
    check("record_links_to_kind_check", sql`${t.toKind} in ('moc', 'pcr', 'archive-moc', 'archive-pcr', 'review')`),
    check("record_links_kind_check", sql`${t.kind} in ('procedure changed by', 'follow-up of', 'replaces', 'related')`),
    check("record_links_not_self_check", sql`not (${t.fromKind} = ${t.toKind} and ${t.fromId} = ${t.toId})`),
    check("record_links_removed_check", sql`(${t.removedAt} is null) = (${t.removedBy} is null)`),
  ],
);
