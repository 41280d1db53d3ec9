-- Training plan items (issue 41, docs/decisions/056-training.md): an action-plan item may be a
-- training (its `training` key in the mocs.action jsonb names who must attend); each attendance
-- record is a row here, added and never changed (a correction is a new row). Declared in
-- db/schema/training.ts.
CREATE TABLE "training_attendance" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"moc_id" uuid NOT NULL REFERENCES "mocs"("id"),
	"item_id" text NOT NULL,
	"user_id" uuid NOT NULL REFERENCES "users"("id"),
	"user_name" text NOT NULL,
	"attended" boolean DEFAULT true NOT NULL,
	"attended_on" date NOT NULL,
	"note" text,
	"recorded_by" uuid NOT NULL REFERENCES "users"("id"),
	"recorded_by_name" text NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "training_attendance_item_idx" ON "training_attendance" USING btree ("moc_id", "item_id", "recorded_at");--> statement-breakpoint
CREATE TRIGGER "training_attendance_append_only" BEFORE UPDATE OR DELETE ON "training_attendance" FOR EACH ROW EXECUTE FUNCTION "audit_append_only"();--> statement-breakpoint
CREATE TRIGGER "training_attendance_no_truncate" BEFORE TRUNCATE ON "training_attendance" FOR EACH STATEMENT EXECUTE FUNCTION "audit_append_only"();--> statement-breakpoint
ALTER TABLE "training_attendance" ENABLE ALWAYS TRIGGER "training_attendance_append_only";--> statement-breakpoint
ALTER TABLE "training_attendance" ENABLE ALWAYS TRIGGER "training_attendance_no_truncate";
