/**
 * A MOC as the cross-cutting modules read it (its registry entry, app/models/kinds/moc.server.ts):
 * the record loaded for their rules, its chat room, a batch described for a reader (links,
 * references), a note in its `moc_logs` chain that moves nothing (a link, a reference, a file, a
 * circulation: its status stays, the detail is the comment), and what the audit verification
 * checks of every MOC's state against its trail.
 */
import { sql } from "drizzle-orm";
import type { Executor } from "~/utils/db.server";
import { mocListScope } from "../authz/authz.server";
import {
  describeWith,
  type LoadedRecord,
  type NotedRecord,
  type StateProblem,
  type TrailNote,
} from "../record-kind/record-kind";
import type { ChatRoom } from "../records/chat.server";
import { loadMocAccess } from "./moc-query.server";
import { TITLE_SQL } from "./moc-scope.server";
import { MOC_CLOSED_ACTION } from "./moc-steps.server";
import { appendLog, mocLabel } from "./moc-store.server";

/** What a loaded MOC carries for authz (`{ kind: "moc", moc }`, the shape its predicates read). */
export type MocRecordAccess = { kind: "moc"; moc: NonNullable<Awaited<ReturnType<typeof loadMocAccess>>> };

/** The MOC as the cross-cutting modules read it; null for an unknown or deleted one. */
export async function loadMocRecord(
  db: Executor,
  id: string,
  options: { lock?: boolean } = {},
): Promise<LoadedRecord<MocRecordAccess> | null> {
  const access = await loadMocAccess(id, db, options);
  if (!access || access.isDeleted) return null;
  const [row] = await db.execute<{ title: string | null }>(
    sql`select ${TITLE_SQL} as title from moc_forms f where f.moc_id = ${id} and f.kind = 'originator'`,
  );
  return {
    kind: "moc",
    id,
    label: mocLabel(access.serialNum),
    title: row?.title ?? "",
    path: `/mocs/${id}`,
    status: access.status,
    access: { kind: "moc", moc: access },
  };
}

/** The room of a MOC whose access row the caller already loaded (the MOC pages). */
export const roomOfMoc = (moc: MocRecordAccess["moc"]): ChatRoom => ({
  kind: "moc",
  chatId: moc.chatId,
  recordId: moc.id,
  serial: moc.serialNum,
  access: moc,
});

/**
 * The room of the MOC `id` (chat.server.ts): null for an unknown or deleted one. Its access row
 * alone, as `loadMocRecord` reads it first: a room needs no title, and the panel's poll reads the
 * room every 1.5 s (tests/integration/chat-api.test.ts counts its statements).
 */
export async function mocRoom(db: Executor, id: string): Promise<ChatRoom | null> {
  const access = await loadMocAccess(id, db);
  return access && !access.isDeleted ? roomOfMoc(access) : null;
}

/**
 * A note in the MOC's chain: from and to its status (it moves nothing; read here when the caller
 * did not load it), the detail as the comment.
 */
export async function noteOnMoc(tx: Executor, record: NotedRecord, note: TrailNote): Promise<void> {
  const status =
    record.status !== undefined
      ? record.status
      : ((await tx.execute<{ status: string }>(sql`select status from mocs where id = ${record.id}`))[0]?.status ??
        null);
  await appendLog(tx, {
    mocId: record.id,
    userId: note.actorId,
    action: note.action,
    from: status,
    to: status,
    comment: note.comment ?? note.from ?? note.to ?? null,
  });
}

/**
 * MOCs whose state the trail does not account for: one without an entry, a completed one without
 * its closing entry, one whose status is not the one its last move named.
 */
export async function mocStateProblems(db: Executor): Promise<StateProblem[]> {
  const rows = await db.execute<{
    id: string;
    status: string;
    completed: boolean;
    last_to: string | null;
    entries: number;
    closed: boolean;
  }>(sql`
    select m.id, m.status, m.completed,
      (select l.to_status from moc_logs l where l.moc_id = m.id and l.to_status is not null order by l.seq desc limit 1)
        as last_to,
      (select count(*)::int from moc_logs l where l.moc_id = m.id) as entries,
      exists (select 1 from moc_logs l where l.moc_id = m.id and l.action = ${MOC_CLOSED_ACTION}) as closed
    from mocs m`);
  const problems: StateProblem[] = [];
  for (const moc of rows) {
    const at = { recordId: moc.id, seq: moc.entries, entryId: "" };
    if (moc.entries === 0) problems.push({ ...at, seq: 0, reason: "the MOC has no audit entry at all" });
    else if (moc.completed && !moc.closed) {
      problems.push({ ...at, reason: `the MOC is completed but no entry records it (no "${MOC_CLOSED_ACTION}")` });
    } else if (moc.last_to !== null && moc.last_to !== moc.status) {
      problems.push({
        ...at,
        reason: `the MOC is at status ${moc.status} but its last entry moved it to ${moc.last_to}`,
      });
    }
  }
  return problems;
}

/** MOCs: "MOC 14-2026", Part A's title; read as `canReadMoc` (its list twin, `mocListScope.visible`). */
export const describeMocs = describeWith(
  (actor, ids) => sql`select m.id::text as id, 'MOC ' || m.serial_num as label,
      coalesce((select ${TITLE_SQL} from moc_forms f where f.moc_id = m.id and f.kind = 'originator'), '') as title,
      '/mocs/' || m.id as path, coalesce(${mocListScope.visible(actor)}, false) as readable,
      (m.originator_id = ${actor._id}::uuid or exists (select 1 from moc_users mu where mu.moc_id = m.id and mu.user_id = ${actor._id}::uuid)) as "worksOn"
    from mocs m where m.id = any(${ids})`,
);
