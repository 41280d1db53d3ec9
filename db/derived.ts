/**
 * Database objects derived from code: the function that builds a MOC's stored document from the
 * one definition in db/moc-document.ts, and the deferred triggers that keep `moc_documents` equal
 * to what that definition gives for the committed data (docs/decisions/012-stored-moc-documents.md).
 *
 * They are recreated by `syncDerivedObjects` after the migrations, under the migration lock, only
 * when the hash of their SQL changed; every stored document is then rebuilt in the same
 * transaction, so a changed document shape never meets stale copies.
 */
import { createHash } from "node:crypto";
import type { Sql } from "postgres";
import { ADVISORY_LOCKS } from "./advisory-locks";
import { MOC_JSON } from "./moc-document";
import { SEARCH_SQL } from "./search-document";

/** Public user fields a document shows (USER_JSON): a change to any of them refreshes documents. */
const USER_FIELDS = ["name", "email", "role", "department", "access", "position", "active"];

/** The MOCs a user appears in: a role, `all_users` or an audit entry. */
const MOCS_OF_USER = (user: string) => `
  select m.id from mocs m where ${user} in (m.originator_id, m.implementer_id, m.approver_id, m.verifier_id, m.hseq_id)
  union select mu.moc_id from moc_users mu where mu.user_id = ${user}
  union select l.moc_id from moc_logs l where l.user_id = ${user}`;

/** Serialises the transactions that change public user fields (see lock_moc_documents_of_user). */
export const USER_DOCUMENTS_LOCK = ADVISORY_LOCKS.userDocuments;

export const DERIVED_SQL = `
-- The document built from the tables (PL/pgSQL caches its plan: callers do not plan MOC_JSON).
create or replace function build_moc_document(p_id uuid) returns text language plpgsql stable as $fn$
begin
  return (select (${MOC_JSON})::text from mocs m where m.id = p_id);
end
$fn$;

create or replace function refresh_moc_document(p_id uuid) returns void language plpgsql as $fn$
begin
  if exists (select 1 from moc_documents where moc_id = p_id and refreshed_tx = txid_current()) then
    return;
  end if;
  -- Wait for any other transaction changing this MOC or a user it names; each statement below then
  -- reads with a fresh snapshot (READ COMMITTED), so the document includes whatever they committed.
  perform 1 from mocs where id = p_id for no key update;
  if not found then
    return;
  end if;
  perform 1 from users u where u.id in (
      select unnest(array[m.originator_id, m.implementer_id, m.approver_id, m.verifier_id, m.hseq_id])
        from mocs m where m.id = p_id
      union select mu.user_id from moc_users mu where mu.moc_id = p_id
      union select l.user_id from moc_logs l where l.moc_id = p_id)
    order by u.id for share;
  insert into moc_documents (moc_id, doc, refreshed_tx)
    values (p_id, build_moc_document(p_id), txid_current())
    on conflict (moc_id) do update set doc = excluded.doc, refreshed_tx = excluded.refreshed_tx;
end
$fn$;

-- The stored document refreshed now rather than at commit, and its text: a workflow step's answer
-- (app/models/moc/moc-workflow.server.ts). The refresh queued for the commit then finds it done.
create or replace function moc_document_now(p_id uuid) returns text language plpgsql as $fn$
begin
  perform refresh_moc_document(p_id);
  return (select doc from moc_documents where moc_id = p_id);
end
$fn$;

-- A change made after the document was refreshed in this transaction (a second step on the same
-- MOC in one transaction: the demo seed, scripts/seed.ts) marks it stale, so the next refresh, now
-- or at commit, builds it again instead of keeping the copy made before the change.
create or replace function moc_document_stale_moc() returns trigger language plpgsql as $fn$
begin
  update moc_documents set refreshed_tx = 0 where moc_id = new.id and refreshed_tx = txid_current();
  return null;
end
$fn$;

create or replace function moc_document_stale_part() returns trigger language plpgsql as $fn$
begin
  update moc_documents set refreshed_tx = 0
    where moc_id = (case when tg_op = 'DELETE' then old.moc_id else new.moc_id end) and refreshed_tx = txid_current();
  return null;
end
$fn$;

create or replace function moc_document_touch_moc() returns trigger language plpgsql as $fn$
begin
  perform refresh_moc_document(new.id);
  return null;
end
$fn$;

create or replace function moc_document_touch_part() returns trigger language plpgsql as $fn$
begin
  if tg_op = 'DELETE' then
    perform refresh_moc_document(old.moc_id);
  else
    perform refresh_moc_document(new.moc_id);
  end if;
  return null;
end
$fn$;

create or replace function moc_document_touch_user() returns trigger language plpgsql as $fn$
declare
  target uuid;
begin
  for target in ${MOCS_OF_USER("new.id")} order by 1 loop
    perform refresh_moc_document(target);
  end loop;
  return null;
end
$fn$;

-- Called before a user's public fields change (app/models/people/user.server.ts): one such change at a
-- time, and the MOCs showing the user locked in id order before the user row is, so the refresh at
-- commit never waits on a transaction that waits on this one.
create or replace function lock_moc_documents_of_user(p_user uuid) returns void language plpgsql as $fn$
begin
  perform pg_advisory_xact_lock(${USER_DOCUMENTS_LOCK});
  perform 1 from mocs where id in (${MOCS_OF_USER("p_user")}) order by id for no key update;
end
$fn$;

drop trigger if exists moc_documents_mocs on mocs;
create constraint trigger moc_documents_mocs after insert or update on mocs
  deferrable initially deferred for each row execute function moc_document_touch_moc();
drop trigger if exists moc_documents_forms on moc_forms;
create constraint trigger moc_documents_forms after insert or update or delete on moc_forms
  deferrable initially deferred for each row execute function moc_document_touch_part();
drop trigger if exists moc_documents_users on moc_users;
create constraint trigger moc_documents_users after insert or update or delete on moc_users
  deferrable initially deferred for each row execute function moc_document_touch_part();
drop trigger if exists moc_documents_logs on moc_logs;
create constraint trigger moc_documents_logs after insert or update or delete on moc_logs
  deferrable initially deferred for each row execute function moc_document_touch_part();
drop trigger if exists moc_documents_stale_mocs on mocs;
create trigger moc_documents_stale_mocs after update on mocs
  for each row execute function moc_document_stale_moc();
drop trigger if exists moc_documents_stale_forms on moc_forms;
create trigger moc_documents_stale_forms after insert or update or delete on moc_forms
  for each row execute function moc_document_stale_part();
drop trigger if exists moc_documents_stale_users on moc_users;
create trigger moc_documents_stale_users after insert or update or delete on moc_users
  for each row execute function moc_document_stale_part();
drop trigger if exists moc_documents_stale_logs on moc_logs;
create trigger moc_documents_stale_logs after insert or update or delete on moc_logs
  for each row execute function moc_document_stale_part();
-- The effectiveness review (issue 42): what the document shows of it, not the daily run's claims.
drop trigger if exists moc_documents_effectiveness on effectiveness_reviews;
create constraint trigger moc_documents_effectiveness
  after insert or delete or update of due_on, set_by, set_at, result, comment, reviewed_by, reviewed_at
  on effectiveness_reviews
  deferrable initially deferred for each row execute function moc_document_touch_part();
drop trigger if exists moc_documents_stale_effectiveness on effectiveness_reviews;
create trigger moc_documents_stale_effectiveness
  after insert or delete or update of due_on, set_by, set_at, result, comment, reviewed_by, reviewed_at
  on effectiveness_reviews
  for each row execute function moc_document_stale_part();
drop trigger if exists moc_documents_people on users;
create constraint trigger moc_documents_people after update on users
  deferrable initially deferred for each row
  when ((${USER_FIELDS.map((f) => `old.${f}`).join(", ")}) is distinct from (${USER_FIELDS.map((f) => `new.${f}`).join(", ")}))
  execute function moc_document_touch_user();
${SEARCH_SQL}
`;

const REBUILD_ALL = `
insert into moc_documents (moc_id, doc, refreshed_tx)
  select m.id, (${MOC_JSON})::text, txid_current() from mocs m
  on conflict (moc_id) do update set doc = excluded.doc, refreshed_tx = excluded.refreshed_tx`;

export const DERIVED_HASH = createHash("sha256").update(DERIVED_SQL).digest("hex");

/** Recreates the derived objects and rebuilds every stored document when their definition changed. */
export async function syncDerivedObjects(sql: Sql): Promise<boolean> {
  const [current] = await sql<{ hash: string }[]>`select hash from derived_objects where name = 'moc_documents'`;
  if (current?.hash === DERIVED_HASH) return false;
  await sql.begin(async (tx) => {
    await tx.unsafe(DERIVED_SQL);
    await tx.unsafe(REBUILD_ALL);
    await tx`insert into derived_objects (name, hash) values ('moc_documents', ${DERIVED_HASH})
      on conflict (name) do update set hash = excluded.hash, applied_at = now()`;
  });
  return true;
}
