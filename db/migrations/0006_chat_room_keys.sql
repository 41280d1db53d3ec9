CREATE UNIQUE INDEX "mocs_chat_key" ON "mocs" USING btree ("chat_id");--> statement-breakpoint
CREATE UNIQUE INDEX "pcrs_chat_key" ON "pcrs" USING btree ("chat_id");