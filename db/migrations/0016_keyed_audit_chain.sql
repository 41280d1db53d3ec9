-- The audit chains keyed with a secret the database does not hold (docs/decisions/025-keyed-audit-chain.md).
-- From here on the application computes each entry's `hash` as HMAC-SHA256 with AUDIT_KEY
-- (app/models/audit/audit-chain.server.ts) and writes it with its `seq`, `prev_hash`, `at` and `key_id`;
-- the insert triggers only check that the entry follows the record's last one. Entries written
-- before (no key_id) keep their SHA-256 and stay checkable; the first start with the key stores
-- every existing chain's head, keyed.
ALTER TABLE "moc_logs" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "audit_entries" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "signature_manifestations" ADD COLUMN "seq" integer;--> statement-breakpoint
ALTER TABLE "signature_manifestations" ADD COLUMN "prev_hash" text;--> statement-breakpoint
ALTER TABLE "signature_manifestations" ADD COLUMN "hash" text;--> statement-breakpoint
ALTER TABLE "signature_manifestations" ADD COLUMN "key_id" text;--> statement-breakpoint
CREATE TABLE "audit_heads" (
	"chain" text NOT NULL,
	"record_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"hash" text NOT NULL,
	"key_id" text NOT NULL,
	"mac" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "audit_heads_chain_record_id_pk" PRIMARY KEY("chain","record_id")
);
--> statement-breakpoint
-- A signature manifestation's hash: SHA-256 of its content and the previous one's hash, as the JSON
-- array text jsonb renders (app/models/audit/audit.server.ts, signatureContent). Only for manifestations
-- written before this migration and for rows inserted without the key (which verify reports).
CREATE FUNCTION "signature_hash"(kind text, record_id uuid, seq integer, signer_id uuid, printed_name text,
  "position" text, role text, meaning text, signed_at timestamptz, on_behalf_of uuid, on_behalf_of_name text,
  prev_hash text) RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT encode(sha256(convert_to(jsonb_build_array(kind || '-signature', record_id, seq, signer_id, printed_name,
    "position", role, meaning, to_char(signed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), on_behalf_of,
    on_behalf_of_name, prev_hash)::text, 'UTF8')), 'hex')
$$;
--> statement-breakpoint
-- The manifestations written so far become each record's signature chain, in the order they were
-- signed (inside this migration's transaction, with the append-only trigger off for it alone).
ALTER TABLE "signature_manifestations" DISABLE TRIGGER "signature_manifestations_append_only";--> statement-breakpoint
DO $$
DECLARE
  r record;
  previous_key text;
  previous_hash text;
  n integer;
BEGIN
  FOR r IN SELECT * FROM signature_manifestations ORDER BY record_kind, record_id, signed_at, id LOOP
    IF previous_key IS DISTINCT FROM r.record_kind || ':' || r.record_id THEN
      previous_key := r.record_kind || ':' || r.record_id;
      previous_hash := NULL;
      n := 0;
    END IF;
    n := n + 1;
    UPDATE signature_manifestations SET seq = n, prev_hash = previous_hash,
      hash = signature_hash(r.record_kind, r.record_id, n, r.signer_id, r.printed_name, r.position, r.role, r.meaning,
        r.signed_at, r.on_behalf_of, r.on_behalf_of_name, previous_hash)
    WHERE id = r.id RETURNING hash INTO previous_hash;
  END LOOP;
END $$;
--> statement-breakpoint
ALTER TABLE "signature_manifestations" ALTER COLUMN "seq" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "signature_manifestations" ALTER COLUMN "hash" SET NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "signature_manifestations_record_seq_key" ON "signature_manifestations" USING btree ("record_kind","record_id","seq");--> statement-breakpoint
-- Inserts: an entry with a key_id was keyed by the application and must follow the record's last
-- entry (its seq next, its prev_hash that entry's hash); one without is hashed here as before
-- (SHA-256, which anyone can recompute: verify reports such an entry after the keyed ones).
CREATE OR REPLACE FUNCTION "moc_logs_chain"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last record;
BEGIN
  PERFORM pg_advisory_xact_lock(727009, hashtext('moc:' || NEW.moc_id::text));
  SELECT l.seq, l.hash INTO last FROM moc_logs l WHERE l.moc_id = NEW.moc_id ORDER BY l.seq DESC LIMIT 1;
  IF NEW.key_id IS NOT NULL THEN
    IF NEW.seq IS DISTINCT FROM coalesce(last.seq, 0) + 1 OR NEW.prev_hash IS DISTINCT FROM last.hash THEN
      RAISE EXCEPTION 'audit chain of moc %: entry % does not follow entry %', NEW.moc_id, NEW.seq, coalesce(last.seq, 0)
        USING ERRCODE = 'serialization_failure';
    END IF;
    RETURN NEW;
  END IF;
  NEW.seq := coalesce(last.seq, 0) + 1;
  NEW.prev_hash := last.hash;
  NEW.at := coalesce(NEW.at, now());
  NEW.hash := moc_log_hash(NEW.moc_id, NEW.seq, NEW.user_id, NEW.action, NEW.from_status, NEW.to_status,
    NEW.comment, NEW.at, NEW.prev_hash, NEW.on_behalf_of);
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "audit_entries_chain"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last record;
BEGIN
  PERFORM pg_advisory_xact_lock(727009, hashtext(NEW.record_kind || ':' || NEW.record_id::text));
  SELECT e.seq, e.hash INTO last FROM audit_entries e
    WHERE e.record_kind = NEW.record_kind AND e.record_id = NEW.record_id ORDER BY e.seq DESC LIMIT 1;
  IF NEW.key_id IS NOT NULL THEN
    IF NEW.seq IS DISTINCT FROM coalesce(last.seq, 0) + 1 OR NEW.prev_hash IS DISTINCT FROM last.hash THEN
      RAISE EXCEPTION 'audit chain of % %: entry % does not follow entry %', NEW.record_kind, NEW.record_id, NEW.seq,
        coalesce(last.seq, 0) USING ERRCODE = 'serialization_failure';
    END IF;
    RETURN NEW;
  END IF;
  NEW.seq := coalesce(last.seq, 0) + 1;
  NEW.prev_hash := last.hash;
  NEW.at := coalesce(NEW.at, now());
  NEW.hash := audit_entry_hash(NEW.record_kind, NEW.record_id, NEW.seq, NEW.actor_id, NEW.action, NEW.from_value,
    NEW.to_value, NEW.comment, NEW.at, NEW.prev_hash);
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE FUNCTION "signature_manifestations_chain"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  last record;
BEGIN
  PERFORM pg_advisory_xact_lock(727009, hashtext(NEW.record_kind || '-signature:' || NEW.record_id::text));
  SELECT s.seq, s.hash INTO last FROM signature_manifestations s
    WHERE s.record_kind = NEW.record_kind AND s.record_id = NEW.record_id ORDER BY s.seq DESC LIMIT 1;
  IF NEW.key_id IS NOT NULL THEN
    IF NEW.seq IS DISTINCT FROM coalesce(last.seq, 0) + 1 OR NEW.prev_hash IS DISTINCT FROM last.hash THEN
      RAISE EXCEPTION 'signature chain of % %: manifestation % does not follow %', NEW.record_kind, NEW.record_id,
        NEW.seq, coalesce(last.seq, 0) USING ERRCODE = 'serialization_failure';
    END IF;
    RETURN NEW;
  END IF;
  NEW.seq := coalesce(last.seq, 0) + 1;
  NEW.prev_hash := last.hash;
  NEW.signed_at := coalesce(NEW.signed_at, now());
  NEW.hash := signature_hash(NEW.record_kind, NEW.record_id, NEW.seq, NEW.signer_id, NEW.printed_name, NEW.position,
    NEW.role, NEW.meaning, NEW.signed_at, NEW.on_behalf_of, NEW.on_behalf_of_name, NEW.prev_hash);
  RETURN NEW;
END $$;
--> statement-breakpoint
-- A chain's head only moves forward: no delete, no truncate, no update to an earlier entry.
CREATE FUNCTION "audit_heads_forward_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.chain = OLD.chain AND NEW.record_id = OLD.record_id AND NEW.seq > OLD.seq THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_heads only moves forward: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
--> statement-breakpoint
CREATE TRIGGER "signature_manifestations_chain" BEFORE INSERT ON "signature_manifestations" FOR EACH ROW EXECUTE FUNCTION "signature_manifestations_chain"();--> statement-breakpoint
CREATE TRIGGER "audit_heads_forward_only" BEFORE UPDATE OR DELETE ON "audit_heads" FOR EACH ROW EXECUTE FUNCTION "audit_heads_forward_only"();--> statement-breakpoint
CREATE TRIGGER "audit_heads_no_truncate" BEFORE TRUNCATE ON "audit_heads" FOR EACH STATEMENT EXECUTE FUNCTION "audit_heads_forward_only"();--> statement-breakpoint
-- Every trigger of the trail fires in replica mode too (`session_replication_role = replica` skips
-- triggers that are merely ENABLEd, while the catalog still shows them on).
ALTER TABLE "moc_logs" ENABLE ALWAYS TRIGGER "moc_logs_chain";--> statement-breakpoint
ALTER TABLE "moc_logs" ENABLE ALWAYS TRIGGER "moc_logs_append_only";--> statement-breakpoint
ALTER TABLE "moc_logs" ENABLE ALWAYS TRIGGER "moc_logs_no_truncate";--> statement-breakpoint
ALTER TABLE "audit_entries" ENABLE ALWAYS TRIGGER "audit_entries_chain";--> statement-breakpoint
ALTER TABLE "audit_entries" ENABLE ALWAYS TRIGGER "audit_entries_append_only";--> statement-breakpoint
ALTER TABLE "audit_entries" ENABLE ALWAYS TRIGGER "audit_entries_no_truncate";--> statement-breakpoint
ALTER TABLE "signature_manifestations" ENABLE ALWAYS TRIGGER "signature_manifestations_chain";--> statement-breakpoint
ALTER TABLE "signature_manifestations" ENABLE ALWAYS TRIGGER "signature_manifestations_append_only";--> statement-breakpoint
ALTER TABLE "signature_manifestations" ENABLE ALWAYS TRIGGER "signature_manifestations_no_truncate";--> statement-breakpoint
ALTER TABLE "audit_heads" ENABLE ALWAYS TRIGGER "audit_heads_forward_only";--> statement-breakpoint
ALTER TABLE "audit_heads" ENABLE ALWAYS TRIGGER "audit_heads_no_truncate";
