/**
 * A PCR as the cross-cutting modules read it (its registry entry, app/models/kinds/pcr.server.ts):
 * the record loaded for their rules, its chat room and a batch described for a reader (links,
 * references).
 */
import { eq, sql } from "drizzle-orm";
import { pcrs } from "#db/schema";
import type { Executor } from "~/utils/db.server";
import { pcrListScope, type Actor, type PcrAccess } from "../authz/authz.server";
import { describeWith, type LoadedRecord, type NamedState } from "../record-kind/record-kind";
import type { ChatRoom } from "../records/chat.server";

export type PcrRecordAccess = { kind: "pcr"; pcr: PcrAccess };

/** A PCR's named states over `p`: open while its signatures are collected, finished once the last is in. */
export const PCR_STATES: Record<string, NamedState<LoadedRecord<PcrRecordAccess>>> = {
  open: {
    meaning: "collecting its signatures",
    is: (r) => r.access.pcr.status === "pending",
    sql: () => sql`(p.status = 'pending')`,
  },
  approved: {
    meaning: "finished: every signature is in",
    is: (r) => r.access.pcr.status === "finished",
    sql: () => sql`(p.status = 'finished')`,
  },
};

/**
 * The PCR as the cross-cutting modules read it; null for an unknown one. With a reader, whether
 * they are a recipient of one of its circulations (`circulatedTo`, which lets them read it).
 */
export async function loadPcrRecord(
  db: Executor,
  id: string,
  options: { lock?: boolean; reader?: Actor } = {},
): Promise<LoadedRecord<PcrRecordAccess> | null> {
  const [row] = await db.execute<{
    serial_num: string;
    title: string | null;
    status: string;
    originator_id: string;
    party_ids: string[];
    substitutes: { role: string; userId: string }[];
    recipient: boolean;
  }>(sql`select p.serial_num, nullif(p.form->>'title', '') as title, p.status, p.originator_id, p.party_ids,
      p.substitutes, exists (select 1 from circulation_recipients cr join circulations c on c.id = cr.circulation_id
        where c.pcr_id = p.id and cr.user_id = ${options.reader?._id ?? null}::uuid) as recipient
    from pcrs p where p.id = ${id} ${options.lock ? sql`for update of p` : sql``}`);
  if (!row) return null;
  return {
    kind: "pcr",
    id,
    label: `PCR ${row.serial_num}`,
    title: row.title ?? "",
    path: `/pcrs/${id}`,
    status: row.status,
    access: {
      kind: "pcr",
      pcr: {
        originatorId: row.originator_id,
        status: row.status,
        partyIds: row.party_ids ?? [],
        substitutes: row.substitutes ?? [],
        circulatedTo: row.recipient && options.reader ? [options.reader._id] : [],
      },
    },
  };
}

/**
 * The room of the PCR `id` (chat.server.ts), null for an unknown one: who may use it is read from
 * its originator, status and affected parties.
 */
export async function pcrRoom(db: Executor, id: string): Promise<ChatRoom | null> {
  const [row] = await db
    .select({
      id: pcrs.id,
      chatId: pcrs.chatId,
      serialNum: pcrs.serialNum,
      originatorId: pcrs.originatorId,
      status: pcrs.status,
      partyIds: pcrs.partyIds,
    })
    .from(pcrs)
    .where(eq(pcrs.id, id));
  if (!row) return null;
  return {
    kind: "pcr",
    chatId: row.chatId,
    recordId: row.id,
    serial: row.serialNum,
    access: { originatorId: row.originatorId, status: row.status, partyIds: row.partyIds },
  };
}

/** PCRs: "PCR 3-2026", its title; read as `canViewPcr` (its list twin, `pcrListScope`). */
export const describePcrs = describeWith(
  (actor, ids) => sql`select p.id::text as id, 'PCR ' || p.serial_num as label, coalesce(p.form->>'title', '') as title,
      '/pcrs/' || p.id as path, coalesce(${pcrListScope(actor)}, false) as readable,
      p.originator_id = ${actor._id}::uuid as "worksOn"
    from pcrs p where p.id = any(${ids})`,
);
