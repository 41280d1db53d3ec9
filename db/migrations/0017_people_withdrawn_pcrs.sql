-- docs/decisions/026-four-eyes-by-record.md: a signed PCR is withdrawn, never deleted
-- (status withdrawn, when in withdrawn_at, why in its audit trail); an admin may name a substitute
-- for a position slot nobody else can sign (substitutes).
ALTER TABLE "pcrs" DROP CONSTRAINT "pcrs_status_check";--> statement-breakpoint
ALTER TABLE "pcrs" ADD COLUMN "withdrawn_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "pcrs" ADD COLUMN "substitutes" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "pcrs" ADD CONSTRAINT "pcrs_status_check" CHECK ("pcrs"."status" in ('pending', 'finished', 'withdrawn'));