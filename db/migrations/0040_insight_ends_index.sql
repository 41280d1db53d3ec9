-- Insight in one pass over the MOCs (issue 43, docs/decisions/017-insights.md): the entries that end a MOC (its
-- decline, or the verification that completed it; ENDS in app/models/insights/insights.server.ts, written
-- exactly as this predicate) are a few thousand of the audit trail's rows. The figures ask, for
-- every MOC, whether it ended before the as-of day and which MOCs ended or were completed in the
-- period; this partial index answers both from a small index-only scan instead of a scan of the trail.
CREATE INDEX "moc_logs_ends_at_idx" ON "moc_logs" USING btree ("at","moc_id","to_status","action") WHERE ("moc_logs"."from_status" is distinct from "moc_logs"."to_status" or "moc_logs"."action" = 'Verified and closed') and ("moc_logs"."action" = 'Verified and closed' or ("moc_logs"."to_status" = 'decline' and "moc_logs"."from_status" is distinct from 'decline'));
