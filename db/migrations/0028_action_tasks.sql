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
CREATE INDEX "mocs_manual_plan_owner_idx" ON "mocs" USING gin (("manual_plan"->'items') jsonb_path_ops) WHERE not "mocs"."is_deleted" and not "mocs"."completed";--> statement-breakpoint
-- Owners named before this migration join their MOCs' people, as naming one does from now on
-- (docs/decisions/038-actions-as-tasks.md), so they can open the MOC their item belongs to.
INSERT INTO "moc_users" ("moc_id", "user_id")
SELECT DISTINCT m."id", u."id"
FROM "mocs" m
CROSS JOIN LATERAL jsonb_array_elements(coalesce(m."action"->'items', '[]'::jsonb) || coalesce(m."manual_plan"->'items', '[]'::jsonb)) e(item)
JOIN "users" u ON u."id"::text = e.item->>'owner'
ON CONFLICT DO NOTHING;
