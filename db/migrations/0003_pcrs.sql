CREATE TABLE "pcrs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"serial_num" text NOT NULL,
	"serial_year" integer NOT NULL,
	"serial_count" integer NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"cloned" boolean DEFAULT false NOT NULL,
	"previous_serial_num" text,
	"originator_id" uuid NOT NULL,
	"form" jsonb NOT NULL,
	"signatures" jsonb NOT NULL,
	"affected_parties" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"party_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"chat_id" uuid NOT NULL,
	"finished_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pcrs_status_check" CHECK ("pcrs"."status" in ('pending', 'finished'))
);
--> statement-breakpoint
ALTER TABLE "pcrs" ADD CONSTRAINT "pcrs_originator_id_users_id_fk" FOREIGN KEY ("originator_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pcrs" ADD CONSTRAINT "pcrs_chat_id_chat_rooms_id_fk" FOREIGN KEY ("chat_id") REFERENCES "public"."chat_rooms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "pcrs_serial_key" ON "pcrs" USING btree ("serial_num");--> statement-breakpoint
CREATE UNIQUE INDEX "pcrs_serial_year_count_key" ON "pcrs" USING btree ("serial_year","serial_count");--> statement-breakpoint
CREATE INDEX "pcrs_created_idx" ON "pcrs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "pcrs_originator_idx" ON "pcrs" USING btree ("originator_id");--> statement-breakpoint
CREATE INDEX "pcrs_party_ids_idx" ON "pcrs" USING gin ("party_ids");