CREATE TABLE "derived_objects" (
	"name" text PRIMARY KEY NOT NULL,
	"hash" text NOT NULL,
	"applied_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "moc_documents" (
	"moc_id" uuid PRIMARY KEY NOT NULL,
	"doc" text NOT NULL,
	"refreshed_tx" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "moc_documents" ADD CONSTRAINT "moc_documents_moc_id_mocs_id_fk" FOREIGN KEY ("moc_id") REFERENCES "public"."mocs"("id") ON DELETE cascade ON UPDATE no action;