/**
 * Procedure change requests: creating, reading, editing, withdrawing, cloning and deleting them,
 * and the documents the API answers with. Signing is in pcr-signing.server.ts (the chain declared
 * in pcr-chain.server.ts), the lists in pcr-list.server.ts. Every change is one transaction on
 * the locked PCR row; emails go through the outbox in the same transaction.
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { z } from "zod";
import {
  chatRooms,
  pcrs,
  signatureManifestations,
  users,
  type PcrForm,
  type StoredAffectedParty,
  type StoredSignature,
} from "#db/schema";
import { PCR_ROLES, type Department, type PcrRole } from "#db/schema/enums";
import { getDb, type Executor, type Transaction } from "~/utils/db.server";
import { Conflict, Forbidden, Invalid, NotFound } from "~/utils/errors";
import { sanitizeRichText } from "~/utils/sanitize.server";
import {
  appendAudit,
  onBehalfOfManifestation,
  type AuditInput,
  type SignatureManifestation,
} from "../audit/audit.server";
import {
  canEditPcr,
  canNamePcrSubstitutes,
  canViewPcr,
  canViewPcrAs,
  isAdmin,
  pcrRecipientSql,
  type PcrAccess,
} from "../authz/authz.server";
import { principalsOf } from "../people/delegation.server";
import { notify, type Recipients } from "../messages/email.server";
import { nextSerial, requireActiveUsers } from "../moc/moc-store.server";
import type { NoticeKind } from "../people/notice-preferences.server";
import { slotSignedBy } from "./pcr-chain.server";
import type { affectedPartySchema, newPcrSchema, PcrFormInput, updatePcrSchema } from "./pcr.schema";
import type { PublicUser } from "../people/user.server";
import type { ChatRoom } from "../records/chat.server";

export type PcrRow = typeof pcrs.$inferSelect;
type PartyInput = z.infer<typeof affectedPartySchema>;

// ---------------------------------------------------------------------------------------------
// Documents

const shownSignature = (state: StoredSignature["state"], signature: string | null): string | null | false =>
  state === "signed" ? signature : state === "commented" ? null : false;

/** The contract's `signatureDate` (docs/api-contract.md) is a date (YYYY-MM-DD); the stored timestamp stays in `signedAt`. */
const dateOf = (at: string | null | undefined): string | null => (at ? at.slice(0, 10) : null);

type UserSummary = { _id: string; name: string; email: string; position: string | null; department: Department };

/** The contract's PCR document (docs/api-contract.md), with the people it names populated alongside. */
export function toPcrDocument(
  row: PcrRow,
  people: Map<string, UserSummary>,
  manifestations: SignatureManifestation[] = [],
) {
  const person = (id: string | null) => (id ? (people.get(id) ?? null) : null);
  return {
    _id: row.id,
    serial_num: row.serialNum,
    status: row.status,
    chatId: row.chatId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
    /** When it was withdrawn (status `withdrawn`): a new key. */
    withdrawnAt: row.withdrawnAt?.toISOString() ?? null,
    /** Substitutes an admin named for position slots (`{ role, userId, namedBy, namedAt }`): a new key. */
    substitutes: row.substitutes,
    cloned: row.cloned,
    previous_serial_num: row.previousSerialNum,
    originator_id: row.originatorId,
    originator: person(row.originatorId),
    form: row.form,
    signatures: row.signatures.map((s) => ({
      Name: s.Name,
      Signature: shownSignature(s.state, s.signature),
      signatureDate: dateOf(s.signatureDate),
      /** When it was signed, to the millisecond (a new key: the contract's signatureDate is the day). */
      signedAt: s.signatureDate,
      Comments: s.Comments,
      signedBy: person(s.signedBy),
    })),
    affectedParties: row.affectedParties.map((a) => ({
      Name: { value: a.userId },
      Signature: shownSignature(a.state, a.signature),
      signatureDate: dateOf(a.signatureDate),
      signedAt: a.signatureDate,
      Comments: a.Comments,
      user: person(a.userId),
    })),
    /** Every signature's manifestation (who, as what, when, meaning), oldest first: a new key. */
    signatureManifestations: manifestations,
  };
}
export type PcrDocument = ReturnType<typeof toPcrDocument>;

/** The account's name now when it differs from the name printed at signing, else null. */
const renamedSince = (now: string | undefined, printed: string) => (now && now !== printed ? now : null);

/** Documents for rows, with every person they name loaded in one query. */
export async function pcrDocuments(rows: PcrRow[], db: Executor = getDb()): Promise<PcrDocument[]> {
  const ids = new Set<string>();
  for (const row of rows) {
    ids.add(row.originatorId);
    row.signatures.forEach((s) => s.signedBy && ids.add(s.signedBy));
    row.affectedParties.forEach((a) => ids.add(a.userId));
  }
  const people = ids.size
    ? await db
        .select({
          _id: users.id,
          name: users.name,
          email: users.email,
          position: users.position,
          department: users.department,
        })
        .from(users)
        .where(inArray(users.id, [...ids]))
    : [];
  const byId = new Map(people.map((p) => [p._id, p]));
  const signatures = rows.length
    ? await db
        .select()
        .from(signatureManifestations)
        .where(
          and(
            eq(signatureManifestations.recordKind, "pcr"),
            inArray(
              signatureManifestations.recordId,
              rows.map((r) => r.id),
            ),
          ),
        )
        .orderBy(asc(signatureManifestations.signedAt), asc(signatureManifestations.id))
    : [];
  const byRecord = new Map<string, SignatureManifestation[]>();
  for (const s of signatures) {
    const list = byRecord.get(s.recordId) ?? [];
    list.push({
      signerId: s.signerId,
      printedName: s.printedName,
      accountName: renamedSince(byId.get(s.signerId)?.name, s.printedName),
      position: s.position,
      role: s.role,
      meaning: s.meaning,
      signedAt: s.signedAt.toISOString(),
      onBehalfOf: onBehalfOfManifestation(s),
    });
    byRecord.set(s.recordId, list);
  }
  return rows.map((row) => toPcrDocument(row, byId, byRecord.get(row.id) ?? []));
}

async function namesOf(db: Executor, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, ids));
  return new Map(rows.map((r) => [r.id, r.name]));
}

export const rowAccess = (row: PcrRow): PcrAccess => ({
  originatorId: row.originatorId,
  status: row.status,
  partyIds: row.partyIds,
  substitutes: row.substitutes,
});

export async function lockPcr(tx: Transaction, id: string): Promise<PcrRow> {
  const [row] = await tx.select().from(pcrs).where(eq(pcrs.id, id)).for("update");
  if (!row) throw new NotFound("No PCR with this id");
  return row;
}

// ---------------------------------------------------------------------------------------------
// Reading

/** The people `actor` stands in for today (delegation): their PCR slots are the actor's to sign too. */
export const pcrPrincipalsOf = (actor: { _id: string }, db: Executor = getDb()) => principalsOf(db, actor._id);

/** `canViewPcr`, or a delegate of someone who may view it (to sign their slot). */
async function mayViewPcr(db: Executor, actor: PublicUser, rules: PcrAccess): Promise<boolean> {
  return canViewPcr(actor, rules) || canViewPcrAs(actor, rules, await pcrPrincipalsOf(actor, db));
}

/** What the authorization rules read of a PCR document (authz.server.ts `PcrAccess`). */
export const pcrAccessOf = (pcr: {
  originator_id: string;
  status: string;
  affectedParties: { Name: { value: string } }[];
  substitutes?: { role: string; userId: string }[];
}): PcrAccess => ({
  originatorId: pcr.originator_id,
  status: pcr.status,
  partyIds: pcr.affectedParties.map((p) => p.Name.value),
  substitutes: pcr.substitutes ?? [],
});

/** The room of a PCR the caller already loaded (the PCR page). */
export const roomOfPcr = (pcr: {
  _id: string;
  chatId: string;
  serial_num: string;
  originator_id: string;
  status: string;
  affectedParties: { Name: { value: string } }[];
}): ChatRoom => ({
  kind: "pcr",
  chatId: pcr.chatId,
  recordId: pcr._id,
  serial: pcr.serial_num,
  access: pcrAccessOf(pcr),
});

/** Whether the person is a recipient of a circulation of the PCR (asked only of those with no other right). */
export async function isPcrRecipient(db: Executor, pcrId: string, actorId: string): Promise<boolean> {
  const [row] = await db.execute<{ yes: boolean }>(sql`select ${pcrRecipientSql(pcrId, actorId)} as yes`);
  return Boolean(row?.yes);
}

export async function getPcr(actor: PublicUser, id: string): Promise<PcrDocument> {
  const [row] = await getDb().select().from(pcrs).where(eq(pcrs.id, id));
  if (!row) throw new NotFound("No PCR with this id");
  const rules = rowAccess(row);
  if (!canViewPcr(actor, rules)) {
    // A recipient of one of its circulations reads it (issue 41): asked only of those who need it.
    if (await isPcrRecipient(getDb(), row.id, actor._id)) rules.circulatedTo = [actor._id];
  }
  if (!(await mayViewPcr(getDb(), actor, rules))) throw new Forbidden("You have no access to this PCR");
  return (await pcrDocuments([row]))[0]!;
}

// ---------------------------------------------------------------------------------------------
// Emails

const pcrRecord = (row: { id: string; serialNum: string; title?: string | null }) => ({
  type: "pcr" as const,
  label: row.title ? `PCR ${row.serialNum} — ${row.title}` : `PCR ${row.serialNum}`,
  url: `/pcrs/${row.id}`,
});

export async function notifyAboutPcr(
  tx: Executor,
  row: { id: string; serialNum: string },
  to: Recipients,
  { kind, ...content }: { event: string; expectation: string | null; details?: [string, string][]; kind?: NoticeKind },
) {
  // Named with its title (docs/decisions/036-vessels-and-crew-access.md), as the caller's transaction has it.
  const [titled] = await tx.execute<{ title: string | null }>(
    sql`select nullif(form->>'title', '') as title from pcrs where id = ${row.id}`,
  );
  const record = pcrRecord({ ...row, title: titled?.title });
  return notify(tx, {
    to,
    kind,
    record: { type: "pcr", id: row.id },
    content: { ...content, record: { label: record.label, url: record.url } },
  });
}

export const auditPcr = (
  tx: Executor,
  pcrId: string,
  actor: PublicUser,
  entry: Omit<AuditInput, "kind" | "recordId" | "actorId">,
) => appendAudit(tx, { kind: "pcr", recordId: pcrId, actorId: actor._id, ...entry });

/** The PCR has a signature in its chain: its form and affected parties are frozen. */
export const isPcrSigned = (row: Pick<PcrRow, "signatures">) => row.signatures.some((s) => s.state === "signed");

export const SIGNED_PCR_FROZEN = "Signed PCRs cannot be edited; clone it to propose a change";

// ---------------------------------------------------------------------------------------------
// Creating and changing

const emptySlot = (Name: PcrRole): StoredSignature => ({
  Name,
  state: "unsigned",
  signature: null,
  signatureDate: null,
  Comments: "",
  signedBy: null,
  commentedBy: null,
});

function cleanForm(form: Partial<PcrFormInput>, base: PcrForm | null, originatorId: string): PcrForm {
  const merged = { ...(base ?? {}), ...form } as PcrForm;
  return {
    ...merged,
    originator: originatorId,
    "manual-procedure": sanitizeRichText(merged["manual-procedure"] ?? ""),
    "suggestion-details": sanitizeRichText(merged["suggestion-details"] ?? ""),
    "reason-for-change": sanitizeRichText(merged["reason-for-change"] ?? ""),
  };
}

async function partiesFrom(
  tx: Executor,
  input: PartyInput[],
  previous: StoredAffectedParty[] = [],
): Promise<StoredAffectedParty[]> {
  const ids = input.map((p) => p.Name.value);
  if (new Set(ids).size !== ids.length) {
    throw new Invalid("An affected party is listed twice", [
      { path: "affectedParties", message: "List each person once" },
    ]);
  }
  await requireActiveUsers(
    tx,
    ids.map((id, i) => ({ path: `affectedParties.${i}.Name.value`, id })),
  );
  return ids.map(
    (userId) =>
      previous.find((p) => p.userId === userId) ?? {
        userId,
        state: "unsigned",
        signature: null,
        signatureDate: null,
        Comments: "",
      },
  );
}

async function insertPcr(
  tx: Transaction,
  actor: PublicUser,
  values: { form: PcrForm; parties: StoredAffectedParty[]; cloned?: boolean; previousSerialNum?: string | null },
): Promise<PcrRow> {
  const serial = await nextSerial(tx, "pcr");
  const [chat] = await tx.insert(chatRooms).values({}).returning({ id: chatRooms.id });
  const [row] = await tx
    .insert(pcrs)
    .values({
      serialNum: serial.serial,
      serialYear: serial.year,
      serialCount: serial.count,
      originatorId: actor._id,
      form: values.form,
      signatures: PCR_ROLES.map(emptySlot),
      affectedParties: values.parties,
      partyIds: values.parties.map((p) => p.userId),
      chatId: chat!.id,
      cloned: values.cloned ?? false,
      previousSerialNum: values.previousSerialNum ?? null,
    })
    .returning();
  await notifyAboutPcr(
    tx,
    row!,
    {
      positions: ["VP Fleet Management"],
      admins: true,
      userIds: values.parties.map((p) => p.userId),
      except: actor._id,
    },
    {
      event: `${actor.name} raised PCR ${row!.serialNum}${values.cloned ? ` (a copy of PCR ${values.previousSerialNum})` : ""}.`,
      expectation:
        "Review it. The signature chain starts with the change originator, then VP Fleet Management; affected parties sign too.",
      details: values.form["safety-critical"] ? [["Safety-critical", "Yes"]] : [],
    },
  );
  return row!;
}

/** POST /api/pcr: the caller is the originator; all signatures start unsigned. */
export async function createPcr(actor: PublicUser, input: z.infer<typeof newPcrSchema>): Promise<PcrDocument> {
  if (input.signatures) {
    const names = input.signatures.map((s) => s.Name);
    if (names.length !== PCR_ROLES.length || names.some((n, i) => n !== PCR_ROLES[i])) {
      throw new Invalid("signatures must be the six roles in chain order", [
        { path: "signatures", message: `Expected ${PCR_ROLES.join(", ")}` },
      ]);
    }
    if (input.signatures.some((s) => s.Signature !== false)) {
      throw new Invalid("A new PCR starts with every signature unsigned", [
        { path: "signatures", message: "Send Signature: false" },
      ]);
    }
  }
  if (input.affectedParties.some((p) => p.Signature !== false)) {
    throw new Invalid("A new PCR starts with every affected party unsigned", [
      { path: "affectedParties", message: "Send Signature: false" },
    ]);
  }
  return getDb().transaction(async (tx) => {
    const row = await insertPcr(tx, actor, {
      form: cleanForm(input.form, null, actor._id),
      parties: await partiesFrom(tx, input.affectedParties),
    });
    await auditPcr(tx, row.id, actor, { action: "Created", to: "pending" });
    return (await pcrDocuments([row], tx))[0]!;
  });
}

/** PUT /api/pcr: the form (merged) and the affected parties, by the originator while pending or an admin. */
export async function updatePcr(
  actor: PublicUser,
  id: string,
  patch: z.infer<typeof updatePcrSchema>,
): Promise<PcrDocument> {
  return getDb().transaction(async (tx) => {
    const row = await lockPcr(tx, id);
    if (!canViewPcr(actor, rowAccess(row)) || !canEditPcr(actor, { ...rowAccess(row), status: "pending" })) {
      throw new Forbidden("Only the originator (while the PCR is pending) or an admin can edit a PCR");
    }
    // docs/api-contract.md, "PCR": the originator while pending, or an admin (at any status).
    if (isPcrSigned(row)) throw new Conflict(SIGNED_PCR_FROZEN);
    if (row.status !== "pending" && !isAdmin(actor))
      throw new Conflict("This PCR is finished; only an admin can still correct it");
    const parties = patch.affectedParties
      ? await partiesFrom(tx, patch.affectedParties, row.affectedParties)
      : row.affectedParties;
    if (row.status !== "pending" && parties.some((p) => p.state !== "signed"))
      throw new Conflict("A finished PCR cannot take an affected party who has not signed");
    const [updated] = await tx
      .update(pcrs)
      .set({
        form: cleanForm(patch.form ?? {}, row.form, row.originatorId),
        affectedParties: parties,
        partyIds: parties.map((p) => p.userId),
        updatedAt: new Date(),
      })
      .where(eq(pcrs.id, id))
      .returning();
    const added = parties.filter((p) => !row.partyIds.includes(p.userId)).map((p) => p.userId);
    const removed = row.partyIds.filter((id) => !parties.some((p) => p.userId === id));
    if (patch.form && JSON.stringify(updated!.form) !== JSON.stringify(row.form)) {
      await auditPcr(tx, id, actor, { action: "Edited the form" });
    }
    if (added.length || removed.length) {
      const names = await namesOf(tx, [...added, ...removed]);
      await auditPcr(tx, id, actor, {
        action: "Changed the affected parties",
        comment: [
          added.length ? `Added ${added.map((u) => names.get(u)).join(", ")}` : null,
          removed.length ? `Removed ${removed.map((u) => names.get(u)).join(", ")}` : null,
        ]
          .filter(Boolean)
          .join("; "),
      });
    }
    if (added.length) {
      await notifyAboutPcr(
        tx,
        updated!,
        { userIds: added, except: actor._id },
        {
          event: `${actor.name} added you as an affected party of PCR ${row.serialNum}.`,
          expectation: "Review the change and sign as an affected party.",
          kind: "step_waiting",
        },
      );
    }
    return (await pcrDocuments([updated!], tx))[0]!;
  });
}

/** The PCR carries a signature: of its chain or of an affected party. Such a PCR is withdrawn, never deleted. */
export const hasAnySignature = (row: Pick<PcrRow, "signatures" | "affectedParties">) =>
  isPcrSigned(row) || row.affectedParties.some((a) => a.state === "signed");

export const SIGNED_PCR_KEPT = "This PCR carries signatures, so it cannot be deleted; withdraw it instead";

/**
 * DELETE /api/pcr: permanently, by the originator while pending or an admin; only while nobody has
 * signed it (409 then: a signed PCR is withdrawn, `withdrawPcr`).
 */
export async function deletePcr(actor: PublicUser, id: string): Promise<{ _id: string }> {
  return getDb().transaction(async (tx) => {
    const row = await lockPcr(tx, id);
    if (!canViewPcr(actor, rowAccess(row)) || !canEditPcr(actor, { ...rowAccess(row), status: "pending" })) {
      throw new Forbidden("Only the originator (while the PCR is pending) or an admin can delete a PCR");
    }
    if (row.status !== "pending" && !isAdmin(actor))
      throw new Conflict("A finished PCR can be deleted only by an admin");
    if (hasAnySignature(row)) throw new Conflict(SIGNED_PCR_KEPT);
    await tx.delete(pcrs).where(eq(pcrs.id, id));
    await tx.delete(chatRooms).where(eq(chatRooms.id, row.chatId));
    // The history outlives the PCR: audit entries have no foreign key to it.
    await auditPcr(tx, id, actor, { action: `Deleted PCR ${row.serialNum}`, from: row.status });
    return { _id: id };
  });
}

/**
 * POST /api/pcr/withdraw and the page: the PCR stays, with its signatures and attachments, as
 * withdrawn (no more signatures); the reason is in its audit trail and its signers and parties are
 * told. The originator while it is pending, or an admin (a finished one too).
 */
export async function withdrawPcr(actor: PublicUser, id: string, reason: string): Promise<PcrDocument> {
  return getDb().transaction(async (tx) => {
    const row = await lockPcr(tx, id);
    if (!canViewPcr(actor, rowAccess(row))) throw new Forbidden("You have no access to this PCR");
    if (row.status === "withdrawn") throw new Conflict("This PCR is already withdrawn");
    if (!canEditPcr(actor, rowAccess(row))) {
      throw new Forbidden("Only the originator (while the PCR is pending) or an admin can withdraw a PCR");
    }
    const now = new Date();
    const [updated] = await tx
      .update(pcrs)
      .set({ status: "withdrawn", withdrawnAt: now, updatedAt: now })
      .where(eq(pcrs.id, id))
      .returning();
    await auditPcr(tx, id, actor, { action: "Withdrawn", from: row.status, to: "withdrawn", comment: reason });
    const signers = row.signatures.flatMap((s) => (s.signedBy ? [s.signedBy] : []));
    await notifyAboutPcr(
      tx,
      row,
      { userIds: [row.originatorId, ...signers, ...row.partyIds], except: actor._id },
      {
        event: `${actor.name} withdrew PCR ${row.serialNum}.`,
        expectation: "Nothing more is signed on it; it stays on record with its signatures.",
        details: [["Reason", reason]],
      },
    );
    return (await pcrDocuments([updated!], tx))[0]!;
  });
}

const originatorPosition = async (db: Executor, row: Pick<PcrRow, "originatorId">) =>
  (await db.select({ position: users.position }).from(users).where(eq(users.id, row.originatorId)))[0]?.position ??
  null;

/**
 * Why `person` may not sign the `role` slot of this PCR as its substitute (null when they may): the
 * originator signs as Change Originator, and one person signs one slot.
 */
function substituteRefusal(
  row: Pick<PcrRow, "originatorId" | "signatures">,
  role: string,
  person: { id: string; name: string },
): string | null {
  if (person.id === row.originatorId)
    return `${person.name} raised this PCR and signs it as Change Originator; someone else must sign as ${role}`;
  const signer = slotSignedBy(row, person.id);
  return signer ? `${person.name} already signed this PCR as ${signer.Name}; one person signs one slot` : null;
}

/**
 * What the PCR page offers an admin for naming a substitute (null when there is nothing to name):
 * the slot of the position its originator holds while it is pending and unsigned, who is named for
 * it now, and the active people `namePcrSubstitute` would accept, by name.
 */
export async function pcrSubstituteOffer(
  actor: PublicUser,
  pcrId: string,
  db: Executor = getDb(),
): Promise<{
  role: PcrRole;
  namedId: string | null;
  candidates: { id: string; name: string; position: string | null }[];
} | null> {
  if (!canNamePcrSubstitutes(actor)) return null;
  const [row] = await db.select().from(pcrs).where(eq(pcrs.id, pcrId));
  if (!row || row.status !== "pending") return null;
  const position = await originatorPosition(db, row);
  const slot = position ? row.signatures.find((s) => s.Name === position) : undefined;
  if (!slot || slot.state === "signed") return null;
  const role = slot.Name as PcrRole;
  const people = await db
    .select({ id: users.id, name: users.name, position: users.position })
    .from(users)
    .where(eq(users.active, true))
    .orderBy(asc(users.name), asc(users.email));
  return {
    role,
    namedId: row.substitutes.find((s) => s.role === role)?.userId ?? null,
    candidates: people.filter((p) => !substituteRefusal(row, role, p)),
  };
}

/**
 * POST /api/pcr/substitute: an admin names who signs a position's slot of a PCR raised by a holder
 * of that position (its originator signs as Change Originator and may sign one slot only;
 * docs/decisions/026-four-eyes-by-record.md). The substitute must be active, must not be
 * the originator, and must not have signed this PCR already (one person, one slot): 400 on
 * `userId` otherwise. Naming another substitute for the same slot replaces the first.
 */
export async function namePcrSubstitute(
  actor: PublicUser,
  input: { pcrId: string; role: PcrRole; userId: string },
): Promise<PcrDocument> {
  if (!canNamePcrSubstitutes(actor)) throw new Forbidden("Only an admin can name a substitute signer");
  return getDb().transaction(async (tx) => {
    const row = await lockPcr(tx, input.pcrId);
    if (row.status !== "pending") throw new Conflict(`This PCR is already ${row.status}`);
    if (input.role === "Change Originator") {
      throw new Invalid("The Change Originator slot is the originator's own", [
        { path: "role", message: "Choose a position of the chain" },
      ]);
    }
    const slot = row.signatures.find((s) => s.Name === input.role)!;
    if (slot.state === "signed") throw new Conflict(`The ${input.role} slot is already signed`);
    if ((await originatorPosition(tx, row)) !== input.role) {
      throw new Conflict(
        `A substitute is named only for the slot of the position the originator holds; holders of ${input.role} sign this one`,
      );
    }
    const people = await requireActiveUsers(tx, [{ path: "userId", id: input.userId }]);
    const name = people.get(input.userId)!.name;
    const issue = substituteRefusal(row, input.role, { id: input.userId, name });
    if (issue) throw new Invalid(issue, [{ path: "userId", message: issue }]);
    const substitutes = [
      ...row.substitutes.filter((s) => s.role !== input.role),
      { role: input.role, userId: input.userId, namedBy: actor._id, namedAt: new Date().toISOString() },
    ];
    const [updated] = await tx
      .update(pcrs)
      .set({ substitutes, updatedAt: new Date() })
      .where(eq(pcrs.id, row.id))
      .returning();
    await auditPcr(tx, row.id, actor, { action: `Named ${name} to sign as ${input.role} (substitute)` });
    await notifyAboutPcr(
      tx,
      row,
      { userIds: [input.userId], except: actor._id },
      {
        event: `${actor.name} named you to sign PCR ${row.serialNum} as ${input.role}, in place of its originator.`,
        expectation: `Review the PCR and sign as ${input.role} when the earlier slots are signed.`,
      },
    );
    return (await pcrDocuments([updated!], tx))[0]!;
  });
}

/** POST /api/clonePcr: a fresh copy, unsigned, with the caller as originator. */
export async function clonePcr(actor: PublicUser, serialNum: string): Promise<PcrDocument> {
  return getDb().transaction(async (tx) => {
    const [old] = await tx.select().from(pcrs).where(eq(pcrs.serialNum, serialNum));
    if (!old) throw new NotFound("No PCR with this serial number");
    if (!canViewPcr(actor, rowAccess(old))) throw new Forbidden("You have no access to this PCR");
    const parties = old.affectedParties.map((p) => ({
      ...p,
      state: "unsigned" as const,
      signature: null,
      signatureDate: null,
      Comments: "",
    }));
    await requireActiveUsers(
      tx,
      parties.map((p, i) => ({ path: `affectedParties.${i}`, id: p.userId })),
    );
    const row = await insertPcr(tx, actor, {
      form: cleanForm({}, old.form, actor._id),
      parties,
      cloned: true,
      previousSerialNum: old.serialNum,
    });
    await auditPcr(tx, row.id, actor, { action: `Cloned from PCR ${old.serialNum}`, to: "pending" });
    await auditPcr(tx, old.id, actor, { action: `Cloned into PCR ${row.serialNum}` });
    return (await pcrDocuments([row], tx))[0]!;
  });
}
