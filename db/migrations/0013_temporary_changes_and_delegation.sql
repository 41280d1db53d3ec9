CREATE TABLE "delegations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"delegate_id" uuid NOT NULL,
	"starts_on" date NOT NULL,
	"ends_on" date NOT NULL,
	"ended_at" timestamp with time zone,
	"created_by" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "delegations_not_self_check" CHECK ("delegations"."user_id" <> "delegations"."delegate_id"),
	CONSTRAINT "delegations_period_check" CHECK ("delegations"."starts_on" <= "delegations"."ends_on")
);
--> statement-breakpoint
CREATE TABLE "temporary_reminders" (
	"moc_id" uuid NOT NULL,
	"day" date NOT NULL,
	"kind" text NOT NULL,
	"days_left" integer NOT NULL,
	"emails_sent" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "temporary_reminders_moc_id_day_pk" PRIMARY KEY("moc_id","day"),
	CONSTRAINT "temporary_reminders_kind_check" CHECK ("temporary_reminders"."kind" in ('ending', 'expired'))
);
--> statement-breakpoint
ALTER TABLE "moc_logs" ADD COLUMN "on_behalf_of" uuid;--> statement-breakpoint
ALTER TABLE "mocs" ADD COLUMN "temporary" jsonb;--> statement-breakpoint
ALTER TABLE "delegations" ADD CONSTRAINT "delegations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delegations" ADD CONSTRAINT "delegations_delegate_id_users_id_fk" FOREIGN KEY ("delegate_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delegations" ADD CONSTRAINT "delegations_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "temporary_reminders" ADD CONSTRAINT "temporary_reminders_moc_id_mocs_id_fk" FOREIGN KEY ("moc_id") REFERENCES "public"."mocs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "delegations_user_idx" ON "delegations" USING btree ("user_id","starts_on");--> statement-breakpoint
CREATE INDEX "delegations_delegate_idx" ON "delegations" USING btree ("delegate_id","starts_on");--> statement-breakpoint
ALTER TABLE "moc_logs" ADD CONSTRAINT "moc_logs_on_behalf_of_users_id_fk" FOREIGN KEY ("on_behalf_of") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mocs_temporary_idx" ON "mocs" USING btree (("temporary"->>'state')) WHERE "mocs"."temporary" is not null and not "mocs"."is_deleted";--> statement-breakpoint
ALTER TABLE "signature_manifestations" ADD COLUMN "on_behalf_of" uuid;--> statement-breakpoint
ALTER TABLE "signature_manifestations" ADD COLUMN "on_behalf_of_name" text;--> statement-breakpoint
ALTER TABLE "signature_manifestations" ADD CONSTRAINT "signature_manifestations_on_behalf_of_users_id_fk" FOREIGN KEY ("on_behalf_of") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "audit_entries" DROP CONSTRAINT "audit_entries_kind_check";--> statement-breakpoint
ALTER TABLE "audit_entries" ADD CONSTRAINT "audit_entries_kind_check" CHECK ("audit_entries"."record_kind" in ('pcr', 'user', 'archive-moc', 'archive-pcr', 'review', 'delegation'));--> statement-breakpoint
-- A MOC entry taken on someone's behalf: its hash covers on_behalf_of too, appended to the content
-- (an entry without it hashes as before, so the chains written since 0010 stay valid).
-- app/models/audit/audit.server.ts (entryContent) recomputes it in Node.
CREATE FUNCTION "moc_log_hash"(record_id uuid, seq integer, actor_id uuid, action text, from_value text,
  to_value text, comment text, at timestamptz, prev_hash text, on_behalf_of uuid) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN on_behalf_of IS NULL
    THEN audit_entry_hash('moc', record_id, seq, actor_id, action, from_value, to_value, comment, at, prev_hash)
    ELSE encode(sha256(convert_to(jsonb_build_array('moc', record_id, seq, actor_id, action, from_value, to_value,
      comment, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), prev_hash, on_behalf_of)::text,
      'UTF8')), 'hex')
  END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "moc_logs_chain"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last record;
BEGIN
  PERFORM pg_advisory_xact_lock(727009, hashtext('moc:' || NEW.moc_id::text));
  SELECT l.seq, l.hash INTO last FROM moc_logs l WHERE l.moc_id = NEW.moc_id ORDER BY l.seq DESC LIMIT 1;
  NEW.seq := coalesce(last.seq, 0) + 1;
  NEW.prev_hash := last.hash;
  NEW.at := coalesce(NEW.at, now());
  NEW.hash := moc_log_hash(NEW.moc_id, NEW.seq, NEW.user_id, NEW.action, NEW.from_status, NEW.to_status,
    NEW.comment, NEW.at, NEW.prev_hash, NEW.on_behalf_of);
  RETURN NEW;
END $$;
