CREATE TABLE "moc_form_revisions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"moc_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"data" jsonb NOT NULL,
	"submitted_at" timestamp with time zone NOT NULL,
	"submitted_by" uuid,
	"replaced_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "moc_form_revisions" ADD CONSTRAINT "moc_form_revisions_moc_id_mocs_id_fk" FOREIGN KEY ("moc_id") REFERENCES "public"."mocs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "moc_form_revisions" ADD CONSTRAINT "moc_form_revisions_submitted_by_users_id_fk" FOREIGN KEY ("submitted_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "moc_form_revisions_moc_idx" ON "moc_form_revisions" USING btree ("moc_id","kind","replaced_at");