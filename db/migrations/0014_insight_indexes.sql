DROP INDEX "moc_logs_at_idx";--> statement-breakpoint
DROP INDEX "moc_reminders_day_idx";--> statement-breakpoint
CREATE INDEX "moc_logs_moves_at_idx" ON "moc_logs" USING btree ("at","moc_id","from_status","to_status","action") WHERE "moc_logs"."from_status" is distinct from "moc_logs"."to_status" or "moc_logs"."action" = 'Verified and closed';--> statement-breakpoint
CREATE INDEX "moc_logs_moves_moc_idx" ON "moc_logs" USING btree ("moc_id","at","seq","from_status","to_status") WHERE "moc_logs"."from_status" is distinct from "moc_logs"."to_status" or "moc_logs"."action" = 'Verified and closed';--> statement-breakpoint
CREATE INDEX "moc_reminders_day_idx" ON "moc_reminders" USING btree ("day","moc_id","emails_sent");