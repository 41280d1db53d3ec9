CREATE TABLE "delegation_events" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"delegation_id" uuid NOT NULL,
	"actor_id" uuid,
	"action" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "delegations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"delegate_id" uuid NOT NULL,
	"starts_on" date NOT NULL,
	"ends_on" date NOT NULL,
	"ended_at" timestamp with time zone,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "delegations_not_self_check" CHECK ("delegations"."user_id" <> "delegations"."delegate_id"),
	CONSTRAINT "delegations_period_check" CHECK ("delegations"."starts_on" <= "delegations"."ends_on")
);
--> statement-breakpoint
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
ALTER TABLE "moc_logs" ADD COLUMN "on_behalf_of" uuid;--> statement-breakpoint
ALTER TABLE "mocs" ADD COLUMN "temporary" jsonb;--> statement-breakpoint
ALTER TABLE "delegation_events" ADD CONSTRAINT "delegation_events_delegation_id_delegations_id_fk" FOREIGN KEY ("delegation_id") REFERENCES "public"."delegations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delegation_events" ADD CONSTRAINT "delegation_events_actor_id_users_id_fk" FOREIGN KEY ("actor_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delegations" ADD CONSTRAINT "delegations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delegations" ADD CONSTRAINT "delegations_delegate_id_users_id_fk" FOREIGN KEY ("delegate_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delegations" ADD CONSTRAINT "delegations_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "temporary_reminders" ADD CONSTRAINT "temporary_reminders_moc_id_mocs_id_fk" FOREIGN KEY ("moc_id") REFERENCES "public"."mocs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "delegation_events_delegation_idx" ON "delegation_events" USING btree ("delegation_id","at");--> statement-breakpoint
CREATE INDEX "delegations_user_idx" ON "delegations" USING btree ("user_id","starts_on");--> statement-breakpoint
CREATE INDEX "delegations_delegate_idx" ON "delegations" USING btree ("delegate_id","starts_on");--> statement-breakpoint
ALTER TABLE "moc_logs" ADD CONSTRAINT "moc_logs_on_behalf_of_users_id_fk" FOREIGN KEY ("on_behalf_of") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mocs_temporary_idx" ON "mocs" USING btree (("temporary"->>'state')) WHERE "mocs"."temporary" is not null and not "mocs"."is_deleted";