CREATE INDEX "moc_logs_at_idx" ON "moc_logs" USING btree ("at");--> statement-breakpoint
CREATE INDEX "moc_reminders_day_idx" ON "moc_reminders" USING btree ("day");