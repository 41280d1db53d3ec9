import { sql } from "drizzle-orm";
import { check, customType, index, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

/**
 * One row per MOC, PCR and archive record: what search finds it by (docs/decisions/039-search.md).
 * Kept by triggers from the one definition in db/search-document.ts; never written by the app.
 */
export const searchEntries = pgTable(
  "search_entries",
  {
    kind: text("kind").$type<"moc" | "pcr" | "legacy_moc" | "legacy_pcr">().notNull(),
    recordId: uuid("record_id").notNull(),
    serialNum: text("serial_num").notNull(),
    /** The serial as search compares it (`search_serial_key`): "MOC 014/2026" reads "14-2026". */
    serialKey: text("serial_key").notNull(),
    title: text("title").notNull().default(""),
    /** Plain text the result's highlighted excerpt is cut from. */
    excerptText: text("excerpt_text").notNull().default(""),
    search: tsvector("search").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.kind, t.recordId] }),
    index("search_entries_search_idx").using("gin", t.search),
    index("search_entries_serial_key_idx").on(t.serialKey),
    check("search_entries_kind_check", sql`${t.kind} in ('moc', 'pcr', 'legacy_moc', 'legacy_pcr')`),
  ],
);
