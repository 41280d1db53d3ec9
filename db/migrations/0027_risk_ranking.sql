CREATE TABLE "risk_settings" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"low_max" integer DEFAULT 4 NOT NULL,
	"medium_max" integer DEFAULT 9 NOT NULL,
	"high_max" integer DEFAULT 14 NOT NULL,
	"high_position" text DEFAULT 'Director HSEQ' NOT NULL,
	"extreme_position" text DEFAULT 'President' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" uuid,
	CONSTRAINT "risk_settings_one_row" CHECK ("risk_settings"."id" = 1),
	CONSTRAINT "risk_settings_thresholds_check" CHECK (1 <= "risk_settings"."low_max" and "risk_settings"."low_max" < "risk_settings"."medium_max" and "risk_settings"."medium_max" < "risk_settings"."high_max" and "risk_settings"."high_max" < 25)
);
--> statement-breakpoint
ALTER TABLE "audit_entries" DROP CONSTRAINT "audit_entries_kind_check";--> statement-breakpoint
ALTER TABLE "mocs" ADD COLUMN "risk_level" text;--> statement-breakpoint
ALTER TABLE "risk_settings" ADD CONSTRAINT "risk_settings_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mocs" ADD CONSTRAINT "mocs_risk_level_check" CHECK ("mocs"."risk_level" in ('low', 'medium', 'high', 'extreme'));--> statement-breakpoint
ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_kind_check" CHECK ("audit_entries"."record_kind" in ('pcr', 'user', 'archive-moc', 'archive-pcr', 'review', 'delegation', 'settings', 'vessel'));--> statement-breakpoint
INSERT INTO "risk_settings" ("id") VALUES (1);
