CREATE TABLE "mail_api_budget" (
	"key" text PRIMARY KEY NOT NULL,
	"next_slot" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "reminder_preference" text DEFAULT 'per_moc' NOT NULL;--> statement-breakpoint
ALTER TABLE "email_messages" ADD COLUMN "batch_key" text;--> statement-breakpoint
ALTER TABLE "email_messages" ADD COLUMN "batch_size" integer;--> statement-breakpoint
ALTER TABLE "email_messages" ADD COLUMN "batch_open" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "email_messages" ADD COLUMN "batched_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "email_messages_batch_idx" ON "email_messages" USING btree ("batch_key") WHERE "email_messages"."batch_key" is not null;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_reminder_preference_check" CHECK ("users"."reminder_preference" in ('per_moc', 'digest'));