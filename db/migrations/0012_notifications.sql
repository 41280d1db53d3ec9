ALTER TABLE "email_messages" ADD COLUMN "link" text;--> statement-breakpoint
ALTER TABLE "email_messages" ADD COLUMN "read_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "email_messages_user_idx" ON "email_messages" USING btree ("to_user_id","created_at");