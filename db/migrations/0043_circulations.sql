-- Circulations for "read and understood" (issue 41, docs/decisions/055-circulations.md): a completed
-- MOC or a finished PCR sent to the crews of vessels (optionally given ranks) and/or office
-- departments; who it concerns, kept as they are added (a crew change adds joiners to the open
-- circulations of their vessel); one acknowledgement per person per circulation. Declared in
-- db/schema/circulations.ts.
CREATE TABLE "circulations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"moc_id" uuid REFERENCES "mocs"("id"),
	"pcr_id" uuid REFERENCES "pcrs"("id") ON DELETE cascade,
	"vessel_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"ranks" text[] DEFAULT '{}'::text[] NOT NULL,
	"departments" text[] DEFAULT '{}'::text[] NOT NULL,
	"due" date NOT NULL,
	"note" text NOT NULL,
	"created_by" uuid NOT NULL REFERENCES "users"("id"),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp with time zone,
	"closed_by" uuid REFERENCES "users"("id"),
	CONSTRAINT "circulations_record_check" CHECK (("circulations"."moc_id" is null) <> ("circulations"."pcr_id" is null)),
	CONSTRAINT "circulations_audience_check" CHECK (cardinality("circulations"."vessel_ids") > 0 or cardinality("circulations"."departments") > 0),
	CONSTRAINT "circulations_closed_check" CHECK (("circulations"."closed_at" is null) = ("circulations"."closed_by" is null))
);--> statement-breakpoint
CREATE INDEX "circulations_moc_idx" ON "circulations" USING btree ("moc_id");--> statement-breakpoint
CREATE INDEX "circulations_pcr_idx" ON "circulations" USING btree ("pcr_id");--> statement-breakpoint
CREATE INDEX "circulations_vessels_idx" ON "circulations" USING gin ("vessel_ids");--> statement-breakpoint
CREATE TABLE "circulation_recipients" (
	"circulation_id" uuid NOT NULL REFERENCES "circulations"("id") ON DELETE cascade,
	"user_id" uuid NOT NULL REFERENCES "users"("id"),
	"vessel_id" uuid REFERENCES "vessels"("id"),
	"due" date NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "circulation_recipients_pkey" PRIMARY KEY ("circulation_id", "user_id")
);--> statement-breakpoint
CREATE INDEX "circulation_recipients_user_idx" ON "circulation_recipients" USING btree ("user_id");--> statement-breakpoint
CREATE TABLE "acknowledgements" (
	"circulation_id" uuid NOT NULL REFERENCES "circulations"("id") ON DELETE cascade,
	"user_id" uuid NOT NULL REFERENCES "users"("id"),
	"name_at" text NOT NULL,
	"rank_at" text,
	"vessel_id_at" uuid REFERENCES "vessels"("id"),
	"vessel_name_at" text,
	"comment" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "acknowledgements_pkey" PRIMARY KEY ("circulation_id", "user_id")
);--> statement-breakpoint
CREATE INDEX "acknowledgements_user_idx" ON "acknowledgements" USING btree ("user_id");
