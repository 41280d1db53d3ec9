-- The outbox's recipient filter is a substring match (ilike '%...%'), which this btree never served;
-- it only cost every message insert and every status update.
DROP INDEX "email_messages_to_idx";--> statement-breakpoint
-- A MOC's stored document (a few KB of JSON) stays whole in its row up to a page instead of being
-- compressed into the TOAST table: every step rewrites it and every list reads it, and both are
-- cheaper uncompressed in place (docs/performance.md, "The pipeline step"). Documents already
-- stored move in place at their next rebuild.
ALTER TABLE "moc_documents" SET (toast_tuple_target = 8160);
