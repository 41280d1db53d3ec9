CREATE TABLE "action_reminders" (
	"moc_id" uuid NOT NULL,
	"item_id" text NOT NULL,
	"day" date NOT NULL,
	"owner_id" uuid NOT NULL,
	"days_left" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "action_reminders_moc_id_item_id_day_pk" PRIMARY KEY("moc_id","item_id","day")
);
--> statement-breakpoint
ALTER TABLE "action_reminders" ADD CONSTRAINT "action_reminders_moc_id_mocs_id_fk" FOREIGN KEY ("moc_id") REFERENCES "public"."mocs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mocs_action_owner_idx" ON "mocs" USING gin (("action"->'items') jsonb_path_ops) WHERE not "mocs"."is_deleted" and not "mocs"."completed";--> statement-breakpoint
CREATE INDEX "mocs_manual_plan_owner_idx" ON "mocs" USING gin (("manual_plan"->'items') jsonb_path_ops) WHERE not "mocs"."is_deleted" and not "mocs"."completed";