CREATE TABLE "chat_rooms" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "moc_forms" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"moc_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"data" jsonb NOT NULL,
	"submitted_at" timestamp with time zone,
	"submitted_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "moc_forms_kind_check" CHECK ("moc_forms"."kind" in ('originator', 'implementer', 'hseq', 'approver', 'implementation', 'verifier'))
);
--> statement-breakpoint
CREATE TABLE "moc_logs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"moc_id" uuid NOT NULL,
	"user_id" uuid,
	"action" text NOT NULL,
	"from_status" text,
	"to_status" text,
	"comment" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "moc_users" (
	"moc_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "moc_users_moc_id_user_id_pk" PRIMARY KEY("moc_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "mocs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"serial_num" text NOT NULL,
	"serial_year" integer NOT NULL,
	"serial_count" integer NOT NULL,
	"status" text NOT NULL,
	"completed" boolean DEFAULT false NOT NULL,
	"is_deleted" boolean DEFAULT false NOT NULL,
	"cloned" boolean DEFAULT false NOT NULL,
	"previous_moc_id" uuid,
	"originator_id" uuid NOT NULL,
	"implementer_id" uuid,
	"approver_id" uuid,
	"verifier_id" uuid,
	"hseq_id" uuid,
	"target_date" date,
	"decline" jsonb,
	"deviations" jsonb,
	"impact_assessment" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"risk_assessment" text,
	"action" jsonb DEFAULT '{"items":[]}'::jsonb NOT NULL,
	"manual_plan" jsonb DEFAULT '{"items":[]}'::jsonb NOT NULL,
	"chat_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mocs_status_check" CHECK ("mocs"."status" in ('a', 'b', 'c', 'd', 'e', 'f', 'decline'))
);
--> statement-breakpoint
CREATE TABLE "serial_counters" (
	"kind" text NOT NULL,
	"year" integer NOT NULL,
	"last" integer NOT NULL,
	CONSTRAINT "serial_counters_kind_year_pk" PRIMARY KEY("kind","year")
);
--> statement-breakpoint
ALTER TABLE "moc_forms" ADD CONSTRAINT "moc_forms_moc_id_mocs_id_fk" FOREIGN KEY ("moc_id") REFERENCES "public"."mocs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "moc_forms" ADD CONSTRAINT "moc_forms_submitted_by_users_id_fk" FOREIGN KEY ("submitted_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "moc_logs" ADD CONSTRAINT "moc_logs_moc_id_mocs_id_fk" FOREIGN KEY ("moc_id") REFERENCES "public"."mocs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "moc_logs" ADD CONSTRAINT "moc_logs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "moc_users" ADD CONSTRAINT "moc_users_moc_id_mocs_id_fk" FOREIGN KEY ("moc_id") REFERENCES "public"."mocs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "moc_users" ADD CONSTRAINT "moc_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mocs" ADD CONSTRAINT "mocs_previous_moc_id_mocs_id_fk" FOREIGN KEY ("previous_moc_id") REFERENCES "public"."mocs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mocs" ADD CONSTRAINT "mocs_originator_id_users_id_fk" FOREIGN KEY ("originator_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mocs" ADD CONSTRAINT "mocs_implementer_id_users_id_fk" FOREIGN KEY ("implementer_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mocs" ADD CONSTRAINT "mocs_approver_id_users_id_fk" FOREIGN KEY ("approver_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mocs" ADD CONSTRAINT "mocs_verifier_id_users_id_fk" FOREIGN KEY ("verifier_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mocs" ADD CONSTRAINT "mocs_hseq_id_users_id_fk" FOREIGN KEY ("hseq_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mocs" ADD CONSTRAINT "mocs_chat_id_chat_rooms_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."chat_rooms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "moc_forms_moc_kind_key" ON "moc_forms" USING btree ("moc_id","kind");--> statement-breakpoint
CREATE INDEX "moc_logs_moc_idx" ON "moc_logs" USING btree ("moc_id","at");--> statement-breakpoint
CREATE INDEX "moc_users_user_idx" ON "moc_users" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "mocs_serial_key" ON "mocs" USING btree ("serial_num");--> statement-breakpoint
CREATE UNIQUE INDEX "mocs_serial_year_count_key" ON "mocs" USING btree ("serial_year","serial_count");--> statement-breakpoint
CREATE INDEX "mocs_created_idx" ON "mocs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "mocs_status_idx" ON "mocs" USING btree ("status") WHERE not "mocs"."is_deleted";--> statement-breakpoint
CREATE INDEX "mocs_target_date_idx" ON "mocs" USING btree ("target_date") WHERE not "mocs"."is_deleted" and not "mocs"."completed";