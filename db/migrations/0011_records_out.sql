CREATE TABLE "attachment_chunks" (
	"attachment_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "attachment_chunks_attachment_id_seq_pk" PRIMARY KEY("attachment_id","seq")
);
--> statement-breakpoint
CREATE TABLE "attachments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"moc_id" uuid,
	"pcr_id" uuid,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" bigint NOT NULL,
	"sha256" text NOT NULL,
	"uploaded_by" uuid,
	"uploaded_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_by" uuid,
	"removed_at" timestamp with time zone,
	"legacy_path" text,
	CONSTRAINT "attachments_owner_check" CHECK (("attachments"."moc_id" is null) <> ("attachments"."pcr_id" is null)),
	CONSTRAINT "attachments_kind_check" CHECK ("attachments"."kind" in ('risk_assessment', 'file')),
	CONSTRAINT "attachments_size_check" CHECK ("attachments"."size" >= 0)
);
--> statement-breakpoint
ALTER TABLE "attachment_chunks" ADD CONSTRAINT "attachment_chunks_attachment_id_attachments_id_fk" FOREIGN KEY ("attachment_id") REFERENCES "public"."attachments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_moc_id_mocs_id_fk" FOREIGN KEY ("moc_id") REFERENCES "public"."mocs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_pcr_id_pcrs_id_fk" FOREIGN KEY ("pcr_id") REFERENCES "public"."pcrs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_uploaded_by_users_id_fk" FOREIGN KEY ("uploaded_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "attachments" ADD CONSTRAINT "attachments_removed_by_users_id_fk" FOREIGN KEY ("removed_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "attachments_moc_idx" ON "attachments" USING btree ("moc_id","uploaded_at");--> statement-breakpoint
CREATE INDEX "attachments_pcr_idx" ON "attachments" USING btree ("pcr_id","uploaded_at");--> statement-breakpoint
CREATE UNIQUE INDEX "attachments_legacy_path_key" ON "attachments" USING btree ("legacy_path");