/**
 * A MOC's rules for its files (its registry entry's `attachments`, app/models/kinds/moc.server.ts;
 * the files themselves are app/models/records/attachments.server.ts, docs/decisions/022-records-out.md):
 * who may attach and remove them and when, who reads them, and the risk assessment the MOC row
 * itself names.
 */
import { eq, sql } from "drizzle-orm";
import { mocs, type AttachmentKind } from "#db/schema";
import type { Executor } from "~/utils/db.server";
import { Conflict, Forbidden, NotFound } from "~/utils/errors";
import {
  approvedContentFrozen,
  canAttachToMoc,
  canReadMoc,
  isMocOpen,
  isMocPlanEditor,
  type Actor,
} from "../authz/authz.server";
import type { FileChange, NotedRecord } from "../record-kind/record-kind";
import { loadMocAccess } from "./moc-query.server";

/**
 * MOC files: anyone involved (or an admin) while it is open; the risk assessment: its plan editors,
 * until approval freezes it. The MOC row is locked for the caller's transaction.
 */
export async function mayChangeMocFiles(
  tx: Executor,
  actor: Actor,
  mocId: string,
  kind: AttachmentKind,
): Promise<NotedRecord> {
  const moc = await loadMocAccess(mocId, tx, { lock: true });
  if (!moc || moc.isDeleted) throw new NotFound("No MOC with this id");
  if (
    kind === "risk_assessment"
      ? !isMocPlanEditor(actor, moc)
      : !canAttachToMoc(actor, { ...moc, completed: false, status: "a" })
  ) {
    throw new Forbidden(
      kind === "risk_assessment"
        ? "Only the originator, implementer, assigned HSEQ user or an admin can change the risk assessment"
        : "Only the people involved in this MOC can attach or remove files",
    );
  }
  if (!isMocOpen(moc)) {
    throw new Conflict(`This MOC is ${moc.completed ? "completed" : "declined"} and can no longer change`);
  }
  const frozen = kind === "risk_assessment" ? approvedContentFrozen(moc) : null;
  if (frozen) throw new Conflict(frozen);
  return { id: moc.id, status: moc.status };
}

/** A MOC's files are read by whoever reads the MOC (`canReadMoc`); a deleted MOC's by nobody. */
export async function mayReadMocFiles(db: Executor, actor: Actor, mocId: string): Promise<boolean> {
  const moc = await loadMocAccess(mocId, db);
  return Boolean(moc && !moc.isDeleted && canReadMoc(actor, moc));
}

/**
 * What the MOC row keeps of a file: it changed (`updated_at`), and a risk assessment attached is its
 * `risk_assessment` (its URL, as `/api/risk_assessment` sets it), cleared when that one is removed.
 */
export async function mocFileChanged(tx: Executor, mocId: string, change: FileChange): Promise<void> {
  const riskAssessment =
    change.fileKind !== "risk_assessment"
      ? {}
      : { riskAssessment: change.removed ? sql`nullif(${mocs.riskAssessment}, ${change.url})` : change.url };
  await tx
    .update(mocs)
    .set({ updatedAt: new Date(), ...riskAssessment })
    .where(eq(mocs.id, mocId));
}
