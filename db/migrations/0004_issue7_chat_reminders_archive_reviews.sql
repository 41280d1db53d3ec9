CREATE TABLE "chat_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"seq" bigint GENERATED ALWAYS AS IDENTITY (sequence name "chat_messages_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"chat_id" uuid NOT NULL,
	"sender_id" uuid NOT NULL,
	"message" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_messages_length_check" CHECK (char_length("chat_messages"."message") between 1 and 5000)
);
--> statement-breakpoint
CREATE TABLE "moc_reminders" (
	"moc_id" uuid NOT NULL,
	"day" date NOT NULL,
	"urgency" text NOT NULL,
	"days_left" integer NOT NULL,
	"emails_sent" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "moc_reminders_moc_id_day_pk" PRIMARY KEY("moc_id","day"),
	CONSTRAINT "moc_reminders_urgency_check" CHECK ("moc_reminders"."urgency" in ('CRITICAL', 'URGENT', 'HIGH', 'MEDIUM', 'LOW'))
);
--> statement-breakpoint
CREATE TABLE "legacy_mocs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"serial_num" text NOT NULL,
	"title" text NOT NULL,
	"originator_name" text NOT NULL,
	"date_raised" date NOT NULL,
	"date_closed" date,
	"status" text DEFAULT 'open' NOT NULL,
	"attachments" text[] DEFAULT '{}'::text[] NOT NULL,
	"notes" text DEFAULT '' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"department" text DEFAULT '' NOT NULL,
	"created_by" uuid,
	"updated_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "legacy_mocs_status_check" CHECK ("legacy_mocs"."status" in ('open', 'closed')),
	CONSTRAINT "legacy_mocs_dates_check" CHECK ("legacy_mocs"."date_closed" is null or "legacy_mocs"."date_closed" >= "legacy_mocs"."date_raised")
);
--> statement-breakpoint
CREATE TABLE "legacy_pcrs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"serial_num" text NOT NULL,
	"title" text NOT NULL,
	"originator_name" text NOT NULL,
	"date_raised" date NOT NULL,
	"date_closed" date,
	"status" text DEFAULT 'open' NOT NULL,
	"attachments" text[] DEFAULT '{}'::text[] NOT NULL,
	"notes" text DEFAULT '' NOT NULL,
	"procedure" text DEFAULT '' NOT NULL,
	"created_by" uuid,
	"updated_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "legacy_pcrs_status_check" CHECK ("legacy_pcrs"."status" in ('open', 'closed')),
	CONSTRAINT "legacy_pcrs_dates_check" CHECK ("legacy_pcrs"."date_closed" is null or "legacy_pcrs"."date_closed" >= "legacy_pcrs"."date_raised")
);
--> statement-breakpoint
CREATE TABLE "year_end_reviews" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"year" integer NOT NULL,
	"title" text NOT NULL,
	"sections" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"participants" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"moc_summary" jsonb NOT NULL,
	"effectiveness" text DEFAULT '' NOT NULL,
	"improvements" text DEFAULT '' NOT NULL,
	"issues" text DEFAULT '' NOT NULL,
	"actions" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_by" uuid,
	"updated_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "year_end_reviews_year_check" CHECK ("year_end_reviews"."year" between 1900 and 2200)
);
--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_chat_id_chat_rooms_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."chat_rooms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_sender_id_users_id_fk" FOREIGN KEY ("sender_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "moc_reminders" ADD CONSTRAINT "moc_reminders_moc_id_mocs_id_fk" FOREIGN KEY ("moc_id") REFERENCES "public"."mocs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "legacy_mocs" ADD CONSTRAINT "legacy_mocs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "legacy_mocs" ADD CONSTRAINT "legacy_mocs_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "legacy_pcrs" ADD CONSTRAINT "legacy_pcrs_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "legacy_pcrs" ADD CONSTRAINT "legacy_pcrs_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "year_end_reviews" ADD CONSTRAINT "year_end_reviews_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "year_end_reviews" ADD CONSTRAINT "year_end_reviews_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_messages_room_seq_idx" ON "chat_messages" USING btree ("chat_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "legacy_mocs_serial_key" ON "legacy_mocs" USING btree ("serial_num");--> statement-breakpoint
CREATE INDEX "legacy_mocs_raised_idx" ON "legacy_mocs" USING btree ("date_raised");--> statement-breakpoint
CREATE UNIQUE INDEX "legacy_pcrs_serial_key" ON "legacy_pcrs" USING btree ("serial_num");--> statement-breakpoint
CREATE INDEX "legacy_pcrs_raised_idx" ON "legacy_pcrs" USING btree ("date_raised");--> statement-breakpoint
CREATE INDEX "year_end_reviews_year_idx" ON "year_end_reviews" USING btree ("year");