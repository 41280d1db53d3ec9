CREATE TABLE "search_entries" (
	"kind" text NOT NULL,
	"record_id" uuid NOT NULL,
	"serial_num" text NOT NULL,
	"serial_key" text NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"excerpt_text" text DEFAULT '' NOT NULL,
	"search" "tsvector" NOT NULL,
	CONSTRAINT "search_entries_kind_record_id_pk" PRIMARY KEY("kind","record_id"),
	CONSTRAINT "search_entries_kind_check" CHECK ("search_entries"."kind" in ('moc', 'pcr', 'legacy_moc', 'legacy_pcr'))
);
--> statement-breakpoint
CREATE INDEX "search_entries_search_idx" ON "search_entries" USING gin ("search");--> statement-breakpoint
CREATE INDEX "search_entries_serial_key_idx" ON "search_entries" USING btree ("serial_key");
