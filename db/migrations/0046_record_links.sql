-- Links between records (issue 42, docs/decisions/057-record-links-and-references.md): a MOC, PCR,
-- archive record or year-end review linked to another with a kind, read both ways (the other record
-- shows the inverse wording). Removal is soft (removed_at/removed_by) so the history stays; one
-- active link per pair and kind whichever way it was made (the unique index over the unordered
-- pair), never a record to itself. Each create and removal is an entry in both records' audit chains
-- (app/models/records/record-links.server.ts). Declared in db/schema/record-links.ts.
CREATE TABLE "record_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"from_kind" text NOT NULL,
	"from_id" uuid NOT NULL,
	"to_kind" text NOT NULL,
	"to_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"created_by" uuid NOT NULL REFERENCES "users"("id"),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"removed_by" uuid REFERENCES "users"("id"),
	"removed_at" timestamp with time zone,
	CONSTRAINT "record_links_from_kind_check" CHECK ("from_kind" in ('moc', 'pcr', 'archive-moc', 'archive-pcr', 'review')),
	CONSTRAINT "record_links_to_kind_check" CHECK ("to_kind" in ('moc', 'pcr', 'archive-moc', 'archive-pcr', 'review')),
	CONSTRAINT "record_links_kind_check" CHECK ("kind" in ('procedure changed by', 'follow-up of', 'replaces', 'related')),
	CONSTRAINT "record_links_not_self_check" CHECK (not ("from_kind" = "to_kind" and "from_id" = "to_id")),
	CONSTRAINT "record_links_removed_check" CHECK (("removed_at" is null) = ("removed_by" is null))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "record_links_active_pair_key" ON "record_links" USING btree (
	least("from_kind" || ':' || "from_id"::text, "to_kind" || ':' || "to_id"::text),
	greatest("from_kind" || ':' || "from_id"::text, "to_kind" || ':' || "to_id"::text),
	"kind"
) WHERE "removed_at" is null;
--> statement-breakpoint
CREATE INDEX "record_links_from_idx" ON "record_links" USING btree ("from_kind", "from_id");
--> statement-breakpoint
CREATE INDEX "record_links_to_idx" ON "record_links" USING btree ("to_kind", "to_id");
