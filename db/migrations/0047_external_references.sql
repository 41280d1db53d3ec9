-- External references (issue 42, docs/decisions/057-record-links-and-references.md): the reference
-- types admins keep (/admin/references), each with an optional URL template containing `{ref}`,
-- and the typed references a MOC, PCR, archive record or year-end review carries ("PMS work order
-- WO-1234"). A reference is removed softly (removed_at/removed_by): the list reads the live ones, the
-- record's audit chain keeps the history. One live reference per record, type and number (the
-- number compared without case): a second is refused (409).
-- Declared in db/schema/references.ts.
CREATE TABLE "reference_types" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"url_template" text,
	"active" boolean DEFAULT true NOT NULL,
	"sort" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reference_types_name_check" CHECK (length("reference_types"."name") between 1 and 60 and "reference_types"."name" = btrim("reference_types"."name")),
	CONSTRAINT "reference_types_url_template_check" CHECK ("reference_types"."url_template" is null or (length("reference_types"."url_template") <= 500 and "reference_types"."url_template" ~ '^https?://' and position('{ref}' in "reference_types"."url_template") > 0))
);--> statement-breakpoint
CREATE UNIQUE INDEX "reference_types_name_key" ON "reference_types" USING btree (lower("name"));--> statement-breakpoint
INSERT INTO "reference_types" ("name", "sort") VALUES
	('Incident', 10),
	('Near-miss', 20),
	('PMS work order', 30),
	('Purchase requisition', 40),
	('Class or flag correspondence', 50);--> statement-breakpoint
CREATE TABLE "record_references" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"record_kind" text NOT NULL,
	"record_id" uuid NOT NULL,
	"type_id" uuid NOT NULL REFERENCES "reference_types"("id"),
	"ref" text NOT NULL,
	"added_by" uuid NOT NULL REFERENCES "users"("id"),
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_at" timestamp with time zone,
	"removed_by" uuid REFERENCES "users"("id"),
	CONSTRAINT "record_references_kind_check" CHECK ("record_references"."record_kind" in ('moc', 'pcr', 'archive-moc', 'archive-pcr', 'review')),
	CONSTRAINT "record_references_ref_check" CHECK (length("record_references"."ref") between 1 and 100 and "record_references"."ref" = btrim("record_references"."ref") and "record_references"."ref" !~ '[[:cntrl:]]'),
	CONSTRAINT "record_references_removed_check" CHECK (("record_references"."removed_at" is null) = ("record_references"."removed_by" is null))
);--> statement-breakpoint
CREATE INDEX "record_references_record_idx" ON "record_references" USING btree ("record_kind", "record_id") WHERE "removed_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "record_references_live_key" ON "record_references" USING btree ("record_kind", "record_id", "type_id", lower("ref")) WHERE "removed_at" IS NULL;--> statement-breakpoint
CREATE INDEX "record_references_type_idx" ON "record_references" USING btree ("type_id");
