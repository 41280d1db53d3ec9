CREATE TABLE "audit_entries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"record_kind" text NOT NULL,
	"record_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"actor_id" uuid,
	"action" text NOT NULL,
	"from_value" text,
	"to_value" text,
	"comment" text,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"prev_hash" text,
	"hash" text NOT NULL,
	CONSTRAINT "audit_entries_kind_check" CHECK ("audit_entries"."record_kind" in ('pcr', 'user', 'archive-moc', 'archive-pcr', 'review'))
);
--> statement-breakpoint
CREATE TABLE "signature_manifestations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"record_kind" text NOT NULL,
	"record_id" uuid NOT NULL,
	"signer_id" uuid NOT NULL,
	"printed_name" text NOT NULL,
	"position" text,
	"role" text NOT NULL,
	"meaning" text NOT NULL,
	"signed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "signature_manifestations_kind_check" CHECK ("signature_manifestations"."record_kind" in ('moc', 'pcr'))
);
--> statement-breakpoint
ALTER TABLE "moc_logs" DROP CONSTRAINT "moc_logs_moc_id_mocs_id_fk";
--> statement-breakpoint
ALTER TABLE "moc_logs" ADD COLUMN "seq" integer;--> statement-breakpoint
ALTER TABLE "moc_logs" ADD COLUMN "prev_hash" text;--> statement-breakpoint
ALTER TABLE "moc_logs" ADD COLUMN "hash" text;--> statement-breakpoint
ALTER TABLE "signature_manifestations" ADD CONSTRAINT "signature_manifestations_signer_id_users_id_fk" FOREIGN KEY ("signer_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_entries_record_seq_key" ON "audit_entries" USING btree ("record_kind","record_id","seq");--> statement-breakpoint
CREATE INDEX "audit_entries_at_idx" ON "audit_entries" USING btree ("at");--> statement-breakpoint
CREATE INDEX "signature_manifestations_record_idx" ON "signature_manifestations" USING btree ("record_kind","record_id","signed_at");--> statement-breakpoint
CREATE UNIQUE INDEX "moc_logs_moc_seq_key" ON "moc_logs" USING btree ("moc_id","seq");--> statement-breakpoint
-- The hash of an audit entry: SHA-256 of its content and the previous entry's hash, as the JSON
-- array text jsonb renders. app/models/audit/audit.server.ts (entryContent) recomputes it in Node.
CREATE FUNCTION "audit_entry_hash"(kind text, record_id uuid, seq integer, actor_id uuid, action text,
  from_value text, to_value text, comment text, at timestamptz, prev_hash text) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT encode(sha256(convert_to(jsonb_build_array(kind, record_id, seq, actor_id, action, from_value, to_value,
    comment, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), prev_hash)::text, 'UTF8')), 'hex')
$$;
--> statement-breakpoint
-- Existing MOC entries become each MOC's chain, in the order they were written. The stored
-- documents' deferred triggers (db/derived.ts) fire per statement here, so no trigger event is
-- pending when the columns become NOT NULL below.
SET CONSTRAINTS ALL IMMEDIATE;
--> statement-breakpoint
DO $$
DECLARE
  r record;
  previous_moc uuid;
  previous_hash text;
  n integer;
BEGIN
  FOR r IN SELECT id, moc_id, user_id, action, from_status, to_status, comment, at FROM moc_logs ORDER BY moc_id, at, id LOOP
    IF previous_moc IS DISTINCT FROM r.moc_id THEN
      previous_moc := r.moc_id;
      previous_hash := NULL;
      n := 0;
    END IF;
    n := n + 1;
    UPDATE moc_logs SET seq = n, prev_hash = previous_hash,
      hash = audit_entry_hash('moc', r.moc_id, n, r.user_id, r.action, r.from_status, r.to_status, r.comment, r.at, previous_hash)
    WHERE id = r.id RETURNING hash INTO previous_hash;
  END LOOP;
END $$;
--> statement-breakpoint
ALTER TABLE "moc_logs" ALTER COLUMN "seq" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "moc_logs" ALTER COLUMN "hash" SET NOT NULL;--> statement-breakpoint
-- Each insert links to the record's last entry; one writer per record at a time (advisory lock
-- 727009 with the record's hash, db/advisory-locks.ts), the unique (record, seq) as the backstop.
CREATE FUNCTION "moc_logs_chain"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last record;
BEGIN
  PERFORM pg_advisory_xact_lock(727009, hashtext('moc:' || NEW.moc_id::text));
  SELECT l.seq, l.hash INTO last FROM moc_logs l WHERE l.moc_id = NEW.moc_id ORDER BY l.seq DESC LIMIT 1;
  NEW.seq := coalesce(last.seq, 0) + 1;
  NEW.prev_hash := last.hash;
  NEW.at := coalesce(NEW.at, now());
  NEW.hash := audit_entry_hash('moc', NEW.moc_id, NEW.seq, NEW.user_id, NEW.action, NEW.from_status, NEW.to_status,
    NEW.comment, NEW.at, NEW.prev_hash);
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE FUNCTION "audit_entries_chain"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last record;
BEGIN
  PERFORM pg_advisory_xact_lock(727009, hashtext(NEW.record_kind || ':' || NEW.record_id::text));
  SELECT e.seq, e.hash INTO last FROM audit_entries e
    WHERE e.record_kind = NEW.record_kind AND e.record_id = NEW.record_id ORDER BY e.seq DESC LIMIT 1;
  NEW.seq := coalesce(last.seq, 0) + 1;
  NEW.prev_hash := last.hash;
  NEW.at := coalesce(NEW.at, now());
  NEW.hash := audit_entry_hash(NEW.record_kind, NEW.record_id, NEW.seq, NEW.actor_id, NEW.action, NEW.from_value,
    NEW.to_value, NEW.comment, NEW.at, NEW.prev_hash);
  RETURN NEW;
END $$;
--> statement-breakpoint
-- Append-only for every role, superusers included: only disabling the trigger (a superuser's or the
-- owner's act, visible in the catalog) lets a row change, and the hash chain then shows it.
CREATE FUNCTION "audit_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
--> statement-breakpoint
CREATE TRIGGER "moc_logs_chain" BEFORE INSERT ON "moc_logs" FOR EACH ROW EXECUTE FUNCTION "moc_logs_chain"();--> statement-breakpoint
CREATE TRIGGER "audit_entries_chain" BEFORE INSERT ON "audit_entries" FOR EACH ROW EXECUTE FUNCTION "audit_entries_chain"();--> statement-breakpoint
CREATE TRIGGER "moc_logs_append_only" BEFORE UPDATE OR DELETE ON "moc_logs" FOR EACH ROW EXECUTE FUNCTION "audit_append_only"();--> statement-breakpoint
CREATE TRIGGER "moc_logs_no_truncate" BEFORE TRUNCATE ON "moc_logs" FOR EACH STATEMENT EXECUTE FUNCTION "audit_append_only"();--> statement-breakpoint
CREATE TRIGGER "audit_entries_append_only" BEFORE UPDATE OR DELETE ON "audit_entries" FOR EACH ROW EXECUTE FUNCTION "audit_append_only"();--> statement-breakpoint
CREATE TRIGGER "audit_entries_no_truncate" BEFORE TRUNCATE ON "audit_entries" FOR EACH STATEMENT EXECUTE FUNCTION "audit_append_only"();--> statement-breakpoint
CREATE TRIGGER "signature_manifestations_append_only" BEFORE UPDATE OR DELETE ON "signature_manifestations" FOR EACH ROW EXECUTE FUNCTION "audit_append_only"();--> statement-breakpoint
CREATE TRIGGER "signature_manifestations_no_truncate" BEFORE TRUNCATE ON "signature_manifestations" FOR EACH STATEMENT EXECUTE FUNCTION "audit_append_only"();
