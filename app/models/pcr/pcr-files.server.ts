/**
 * A PCR's rules for its files (its registry entry's `attachments`, app/models/kinds/pcr.server.ts;
 * the files themselves are app/models/records/attachments.server.ts, docs/decisions/022-records-out.md):
 * who may attach and remove them and until when, and who reads them. The PCR row keeps nothing of
 * its files.
 */
import { eq } from "drizzle-orm";
import { pcrs } from "#db/schema";
import type { Executor } from "~/utils/db.server";
import { Conflict, Forbidden, NotFound } from "~/utils/errors";
import { canAttachToPcr, canViewPcr, type Actor } from "../authz/authz.server";
import type { NotedRecord } from "../record-kind/record-kind";
import { isPcrRecipient, isPcrSigned } from "./pcr.server";

/** Why a PCR's files no longer change once its first chain slot is signed (docs/security.md, "Attachments"). */
export const SIGNED_PCR_FILES_FROZEN =
  "This PCR is signed: its files, like its form, can no longer be attached or removed; clone it to propose a change";

/**
 * PCR files: its originator, the holders of its signature slots and its affected parties, while
 * pending and until its first chain signature: files are signed content, frozen with the form
 * (`isPcrSigned`, docs/decisions/021-records-people-can-trust.md). The PCR row is locked for the
 * caller's transaction.
 */
export async function mayChangePcrFiles(tx: Executor, actor: Actor, pcrId: string): Promise<NotedRecord> {
  const [row] = await tx
    .select({
      originatorId: pcrs.originatorId,
      status: pcrs.status,
      partyIds: pcrs.partyIds,
      signatures: pcrs.signatures,
    })
    .from(pcrs)
    .where(eq(pcrs.id, pcrId))
    .for("update");
  if (!row) throw new NotFound("No PCR with this id");
  if (!canAttachToPcr(actor, { ...row, status: "pending" })) {
    throw new Forbidden("Only the originator and the signers of this PCR can attach or remove files");
  }
  if (row.status !== "pending") throw new Conflict("This PCR is finished and can no longer change");
  if (isPcrSigned(row)) throw new Conflict(SIGNED_PCR_FILES_FROZEN);
  return { id: pcrId, status: row.status };
}

/**
 * A PCR's files are read by whoever reads the PCR (`canViewPcr`), a recipient of one of its
 * circulations too (issue 41), asked only of those with no other right.
 */
export async function mayReadPcrFiles(db: Executor, actor: Actor, pcrId: string): Promise<boolean> {
  const [row] = await db
    .select({ originatorId: pcrs.originatorId, status: pcrs.status, partyIds: pcrs.partyIds })
    .from(pcrs)
    .where(eq(pcrs.id, pcrId));
  if (!row) return false;
  if (canViewPcr(actor, row)) return true;
  return canViewPcr(actor, {
    ...row,
    circulatedTo: (await isPcrRecipient(db, pcrId, actor._id)) ? [actor._id] : [],
  });
}
