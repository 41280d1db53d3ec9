CREATE TABLE "temporary_reminders" (
	"moc_id" uuid NOT NULL,
	"day" date NOT NULL,
	"kind" text NOT NULL,
	"days_left" integer NOT NULL,
	"emails_sent" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "temporary_reminders_moc_id_day_pk" PRIMARY KEY("moc_id","day"),
	CONSTRAINT "temporary_reminders_kind_check" CHECK ("temporary_reminders"."kind" in ('ending', 'expired'))
);
--> statement-breakpoint
ALTER TABLE "mocs" ADD COLUMN "temporary" jsonb;--> statement-breakpoint
ALTER TABLE "temporary_reminders" ADD CONSTRAINT "temporary_reminders_moc_id_mocs_id_fk" FOREIGN KEY ("moc_id") REFERENCES "public"."mocs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mocs_temporary_idx" ON "mocs" USING btree (("temporary"->>'state')) WHERE "mocs"."temporary" is not null and not "mocs"."is_deleted";