CREATE TABLE "vessels" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"imo" text NOT NULL,
	"ship_type" text DEFAULT '' NOT NULL,
	"flag" text DEFAULT '' NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "vessels_imo_check" CHECK ("vessels"."imo" ~ '^[0-9]{7}$')
);
--> statement-breakpoint
CREATE TABLE "vessel_assignments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"vessel_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"from_date" date NOT NULL,
	"to_date" date,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "vessel_assignments_period_check" CHECK ("vessel_assignments"."to_date" is null or "vessel_assignments"."to_date" >= "vessel_assignments"."from_date")
);
--> statement-breakpoint
ALTER TABLE "vessel_assignments" ADD CONSTRAINT "vessel_assignments_vessel_id_vessels_id_fk" FOREIGN KEY ("vessel_id") REFERENCES "public"."vessels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vessel_assignments" ADD CONSTRAINT "vessel_assignments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vessel_assignments" ADD CONSTRAINT "vessel_assignments_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "vessels_imo_key" ON "vessels" USING btree ("imo");--> statement-breakpoint
CREATE INDEX "vessel_assignments_vessel_idx" ON "vessel_assignments" USING btree ("vessel_id","from_date");--> statement-breakpoint
CREATE INDEX "vessel_assignments_user_idx" ON "vessel_assignments" USING btree ("user_id","from_date");--> statement-breakpoint
-- The MOCs of a vessel (lists' filter, the vessel page, crew access): Part A's vessel id.
CREATE INDEX "moc_forms_vessel_idx" ON "moc_forms" USING btree (((data -> 'vessel' -> 'value') ->> '_id')) WHERE "kind" = 'originator';--> statement-breakpoint
ALTER TABLE "audit_entries" DROP CONSTRAINT "audit_entries_kind_check";--> statement-breakpoint
ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_kind_check" CHECK ("audit_entries"."record_kind" in ('pcr', 'user', 'archive-moc', 'archive-pcr', 'review', 'delegation', 'vessel'));
