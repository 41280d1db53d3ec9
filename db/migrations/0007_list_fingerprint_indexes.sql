DROP INDEX "moc_users_user_idx";--> statement-breakpoint
CREATE INDEX "moc_documents_version_idx" ON "moc_documents" USING btree ("moc_id","refreshed_tx");--> statement-breakpoint
CREATE INDEX "mocs_list_idx" ON "mocs" USING btree ("id","is_deleted","created_at");--> statement-breakpoint
CREATE INDEX "moc_users_user_idx" ON "moc_users" USING btree ("user_id","moc_id");