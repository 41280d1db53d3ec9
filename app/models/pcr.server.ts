/**
 * Procedure change requests: a form, a fixed chain of six signatures in order, and the
 * signatures of affected parties. Every change is one transaction on the locked PCR row; signing
 * checks the slot holder, the order and that the slot is still free, so two people cannot both
 * take a slot. Emails go through the outbox in the same transaction.
 */
import type { NoticeKind } from "./notice-preferences.server";
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import {
  chatRooms,
  pcrs,
  signatureManifestations,
  users,
  type PcrForm,
  type StoredAffectedParty,
  type StoredSignature,
} from "#db/schema";
import { PCR_ROLES, type PcrRole } from "#db/schema/enums";
import { z } from "zod";
import { searchQuerySchema } from "./text-rules";
import { getDb, type Executor, type Transaction } from "~/utils/db.server";
import { Conflict, Forbidden, Invalid, NotFound } from "~/utils/errors";
import { sanitizeRichText } from "~/utils/sanitize.server";
import {
  canEditPcr,
  canNamePcrSubstitutes,
  canViewPcr,
  canViewPcrAs,
  holdsPcrRole,
  isAdmin,
  pcrListScope,
  pcrSlotHolder,
  type PcrAccess,
} from "./authz.server";
import { principalsOf } from "./delegation.server";
import { notify, type Recipients } from "./email.server";
import { nextSerial, requireActiveUsers } from "./moc-store.server";
import type {
  affectedPartySchema,
  newPcrSchema,
  PcrFormInput,
  signatureSlotSchema,
  updatePcrSchema,
} from "./pcr.schema";
import type { PublicUser } from "./user.server";
import { afterKey, cut, type PageOf, type PageRequest } from "./keyset";
import {
  appendAudit,
  isDrawnSignature,
  onBehalfOfManifestation,
  recordSignature,
  typedNameMatches,
  type AuditInput,
  type SignatureManifestation,
} from "./audit.server";

type PcrRow = typeof pcrs.$inferSelect;
type SlotInput = z.infer<typeof signatureSlotSchema>;
type PartyInput = z.infer<typeof affectedPartySchema>;

// ---------------------------------------------------------------------------------------------
// Documents

const shownSignature = (state: StoredSignature["state"], signature: string | null): string | null | false =>
  state === "signed" ? signature : state === "commented" ? null : false;

/** The contract's `signatureDate` (docs/api-contract.md) is a date (YYYY-MM-DD); the stored timestamp stays in `signedAt`. */
const dateOf = (at: string | null | undefined): string | null => (at ? at.slice(0, 10) : null);

type UserSummary = { _id: string; name: string; email: string; position: string | null; department: string };

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
async function documents(rows: PcrRow[], db: Executor = getDb()): Promise<PcrDocument[]> {
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

const access = (row: PcrRow): PcrAccess => ({
  originatorId: row.originatorId,
  status: row.status,
  partyIds: row.partyIds,
  substitutes: row.substitutes,
});

async function lockPcr(tx: Transaction, id: string): Promise<PcrRow> {
  const [row] = await tx.select().from(pcrs).where(eq(pcrs.id, id)).for("update");
  if (!row) throw new NotFound("No PCR with this id");
  return row;
}

// ---------------------------------------------------------------------------------------------
// Reading

/** The people `actor` stands in for today (delegation): their PCR slots are the actor's to sign too. */
export const pcrPrincipalsOf = async (actor: { _id: string }, db: Executor = getDb()) =>
  (await principalsOf(db, actor._id)) as PublicUser[];

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

export async function getPcr(actor: PublicUser, id: string): Promise<PcrDocument> {
  const [row] = await getDb().select().from(pcrs).where(eq(pcrs.id, id));
  if (!row) throw new NotFound("No PCR with this id");
  if (!(await mayViewPcr(getDb(), actor, access(row)))) throw new Forbidden("You have no access to this PCR");
  return (await documents([row]))[0]!;
}

/** The PCRs the actor may see, newest first, in two queries whatever their number. */
export async function listPcrs(actor: PublicUser): Promise<PcrDocument[]> {
  const p = alias(pcrs, "p");
  const rows = await getDb().select().from(p).where(pcrListScope(actor)).orderBy(desc(p.createdAt), desc(p.id));
  return documents(rows);
}

/** One page of the same list (keyset: app/models/keyset.ts), in two queries. */
export async function listPcrsPage(actor: PublicUser, page: PageRequest): Promise<PageOf<PcrDocument>> {
  const p = alias(pcrs, "p");
  const after = page.after
    ? sql`(${p.createdAt}, ${p.id}) < (${page.after.at}::timestamptz, ${page.after.id}::uuid)`
    : undefined;
  const rows = await getDb()
    .select({ row: p, at: sql<string>`${p.createdAt}::text` })
    .from(p)
    .where(and(pcrListScope(actor), after))
    .orderBy(desc(p.createdAt), desc(p.id))
    .limit(page.limit + 1);
  const { rows: taken, next } = cut(rows, page.limit, (r) => ({ at: r.at, id: r.row.id }));
  return { rows: await documents(taken.map((r) => r.row)), next };
}

/**
 * One PCR of GET /api/pcr/summary, built in SQL from the row `p` with only the listed fields.
 * Drawn signatures can weigh 200 KB each, so the summary says whether a slot is signed
 * (`Signature: true`) instead.
 */
const summaryOf = sql`json_build_object(
      '_id', p.id, 'serial_num', p.serial_num, 'chatId', p.chat_id, 'status', p.status,
      'createdAt', to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'cloned', p.cloned,
      'signatures', (select coalesce(json_agg(json_build_object('Name', s->>'Name',
          'Signature', case s->>'state' when 'signed' then 'true'::json when 'commented' then 'null'::json else 'false'::json end,
          'signatureDate', left(s->>'signatureDate', 10), 'Comments', s->>'Comments') order by o), '[]'::json)
        from jsonb_array_elements(p.signatures) with ordinality as x(s, o)),
      'affectedParties', (select coalesce(json_agg(json_build_object('Name', json_build_object('value', a->>'userId'),
          'Signature', case a->>'state' when 'signed' then 'true'::json when 'commented' then 'null'::json else 'false'::json end,
          'Comments', a->>'Comments') order by o), '[]'::json)
        from jsonb_array_elements(p.affected_parties) with ordinality as y(a, o)),
      'originator', (select json_build_object('_id', u.id, 'name', u.name, 'email', u.email, 'department', u.department)
        from users u where u.id = p.originator_id))`;

export async function pcrSummary(actor: PublicUser): Promise<string> {
  const rows = await getDb().execute<{ body: string }>(sql`
    select coalesce(json_agg(${summaryOf} order by p.created_at desc, p.id), '[]'::json)::text as body
    from pcrs p where ${pcrListScope(actor)}`);
  return rows[0]?.body ?? "[]";
}

/** One page of the summary, newest first (keyset: app/models/keyset.ts), as JSON texts, in one query. */
export async function pcrSummaryPage(actor: PublicUser, page: PageRequest): Promise<PageOf<string>> {
  const after = afterKey(sql`p.created_at`, sql`p.id`, page.after) ?? sql`true`;
  const rows = await getDb().execute<{ body: string; at: string; id: string }>(sql`
    select ${summaryOf}::text as body, p.created_at::text as at, p.id
    from pcrs p where ${pcrListScope(actor)} and ${after}
    order by p.created_at desc, p.id desc limit ${page.limit + 1}`);
  const { rows: taken, next } = cut([...rows], page.limit, (r) => ({ at: r.at, id: r.id }));
  return { rows: taken.map((r) => r.body), next };
}

// ---------------------------------------------------------------------------------------------
// Emails

const pcrRecord = (row: { id: string; serialNum: string; title?: string | null }) => ({
  type: "pcr" as const,
  label: row.title ? `PCR ${row.serialNum} — ${row.title}` : `PCR ${row.serialNum}`,
  url: `/pcrs/${row.id}`,
});

async function notifyAboutPcr(
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

/** Holders of a chain role: the originator, or everyone in that position. */
const holdersOf = (role: PcrRole, originatorId: string): Recipients =>
  role === "Change Originator" ? { userIds: [originatorId] } : { positions: [role] };

const audit = (
  tx: Executor,
  pcrId: string,
  actor: PublicUser,
  entry: Omit<AuditInput, "kind" | "recordId" | "actorId">,
) => appendAudit(tx, { kind: "pcr", recordId: pcrId, actorId: actor._id, ...entry });

/** The PCR has a signature in its chain: its form and affected parties are frozen. */
export const isPcrSigned = (row: Pick<PcrRow, "signatures">) => row.signatures.some((s) => s.state === "signed");

export const SIGNED_PCR_FROZEN = "Signed PCRs cannot be edited; clone it to propose a change";

/** A typed signature must be the signer's own name (a drawn one is a PNG data URL). */
function requireOwnName(signature: string, actor: PublicUser, path: string): void {
  if (!isDrawnSignature(signature) && !typedNameMatches(signature, actor.name)) {
    throw new Invalid("A typed signature must be your own full name", [
      { path, message: `Type your name as it is on your account: ${actor.name}` },
    ]);
  }
}

const isComplete = (row: Pick<PcrRow, "signatures" | "affectedParties">) =>
  row.signatures.every((s) => s.state === "signed") && row.affectedParties.every((a) => a.state === "signed");

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
    await audit(tx, row.id, actor, { action: "Created", to: "pending" });
    return (await documents([row], tx))[0]!;
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
    if (!canViewPcr(actor, access(row)) || !canEditPcr(actor, { ...access(row), status: "pending" })) {
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
      await audit(tx, id, actor, { action: "Edited the form" });
    }
    if (added.length || removed.length) {
      const names = await namesOf(tx, [...added, ...removed]);
      await audit(tx, id, actor, {
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
    return (await documents([updated!], tx))[0]!;
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
    if (!canViewPcr(actor, access(row)) || !canEditPcr(actor, { ...access(row), status: "pending" })) {
      throw new Forbidden("Only the originator (while the PCR is pending) or an admin can delete a PCR");
    }
    if (row.status !== "pending" && !isAdmin(actor))
      throw new Conflict("A finished PCR can be deleted only by an admin");
    if (hasAnySignature(row)) throw new Conflict(SIGNED_PCR_KEPT);
    await tx.delete(pcrs).where(eq(pcrs.id, id));
    await tx.delete(chatRooms).where(eq(chatRooms.id, row.chatId));
    // The history outlives the PCR: audit entries have no foreign key to it.
    await audit(tx, id, actor, { action: `Deleted PCR ${row.serialNum}`, from: row.status });
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
    if (!canViewPcr(actor, access(row))) throw new Forbidden("You have no access to this PCR");
    if (row.status === "withdrawn") throw new Conflict("This PCR is already withdrawn");
    if (!canEditPcr(actor, access(row))) {
      throw new Forbidden("Only the originator (while the PCR is pending) or an admin can withdraw a PCR");
    }
    const now = new Date();
    const [updated] = await tx
      .update(pcrs)
      .set({ status: "withdrawn", withdrawnAt: now, updatedAt: now })
      .where(eq(pcrs.id, id))
      .returning();
    await audit(tx, id, actor, { action: "Withdrawn", from: row.status, to: "withdrawn", comment: reason });
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
    return (await documents([updated!], tx))[0]!;
  });
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
    const [originator] = await tx
      .select({ position: users.position })
      .from(users)
      .where(eq(users.id, row.originatorId));
    if (originator?.position !== input.role) {
      throw new Conflict(
        `A substitute is named only for the slot of the position the originator holds; holders of ${input.role} sign this one`,
      );
    }
    const people = await requireActiveUsers(tx, [{ path: "userId", id: input.userId }]);
    const name = people.get(input.userId)!.name;
    const signer = row.signatures.find(
      (s) => s.state === "signed" && [s.signedBy, s.onBehalfOf].includes(input.userId),
    );
    const issue =
      input.userId === row.originatorId
        ? `${name} raised this PCR and signs it as Change Originator; someone else must sign as ${input.role}`
        : signer
          ? `${name} already signed this PCR as ${signer.Name}; one person signs one slot`
          : null;
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
    await audit(tx, row.id, actor, { action: `Named ${name} to sign as ${input.role} (substitute)` });
    await notifyAboutPcr(
      tx,
      row,
      { userIds: [input.userId], except: actor._id },
      {
        event: `${actor.name} named you to sign PCR ${row.serialNum} as ${input.role}, in place of its originator.`,
        expectation: `Review the PCR and sign as ${input.role} when the earlier slots are signed.`,
      },
    );
    return (await documents([updated!], tx))[0]!;
  });
}

/** POST /api/clonePcr: a fresh copy, unsigned, with the caller as originator. */
export async function clonePcr(actor: PublicUser, serialNum: string): Promise<PcrDocument> {
  return getDb().transaction(async (tx) => {
    const [old] = await tx.select().from(pcrs).where(eq(pcrs.serialNum, serialNum));
    if (!old) throw new NotFound("No PCR with this serial number");
    if (!canViewPcr(actor, access(old))) throw new Forbidden("You have no access to this PCR");
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
    await audit(tx, row.id, actor, { action: `Cloned from PCR ${old.serialNum}`, to: "pending" });
    await audit(tx, old.id, actor, { action: `Cloned into PCR ${row.serialNum}` });
    return (await documents([row], tx))[0]!;
  });
}

// ---------------------------------------------------------------------------------------------
// Signing

async function finishIfComplete(tx: Transaction, row: PcrRow, actor: PublicUser): Promise<PcrRow> {
  if (row.status !== "pending" || !isComplete(row)) return row;
  const now = new Date();
  const [finished] = await tx
    .update(pcrs)
    .set({ status: "finished", finishedAt: now, updatedAt: now })
    .where(and(eq(pcrs.id, row.id), eq(pcrs.status, "pending")))
    .returning();
  await audit(tx, row.id, actor, { action: "Finished: every signature is in", from: "pending", to: "finished" });
  const signers = row.signatures.map((s) => s.signedBy);
  await notifyAboutPcr(
    tx,
    row,
    { userIds: [row.originatorId, ...signers, ...row.partyIds], except: actor._id },
    {
      event: `PCR ${row.serialNum} is fully signed (last signature by ${actor.name}).`,
      expectation: null,
    },
  );
  return finished ?? row;
}

const differs = (
  incoming: SlotInput | PartyInput,
  state: StoredSignature["state"],
  signature: string | null,
  comments: string,
) => {
  const wantsSign = typeof incoming.Signature === "string";
  return {
    wantsSign: wantsSign && !(state === "signed" && incoming.Signature === signature),
    commentChanged: (incoming.Comments ?? "") !== comments,
  };
};

/**
 * Whether `incoming` would sign a chain slot of the PCR (rather than only comment): a signature
 * needs the signer to re-authenticate first (app/web/reauth.server.ts). False for an
 * unknown PCR (`signPcr` answers that).
 */
export async function wouldSignPcr(pcrId: string, incoming: SlotInput[]): Promise<boolean> {
  const [row] = await getDb().select({ signatures: pcrs.signatures }).from(pcrs).where(eq(pcrs.id, pcrId));
  if (!row) return false;
  return incoming.some((slot, index) => {
    const current = row.signatures[index];
    return Boolean(current && differs(slot, current.state, current.signature, current.Comments).wantsSign);
  });
}

/**
 * POST /api/pcr/signatures: the whole array comes in; only what the caller may change is applied.
 * A slot is signed by its holder, after every earlier slot, once; a holder may comment at any
 * time (a comment alone is stored with `Signature: null`).
 */
export async function signPcr(actor: PublicUser, pcrId: string, incoming: SlotInput[]): Promise<PcrDocument> {
  return getDb().transaction(async (tx) => {
    const row = await lockPcr(tx, pcrId);
    const rules = access(row);
    // A delegate may sign or comment the slot of an absent holder who delegated to them today.
    const principals = await pcrPrincipalsOf(actor, tx);
    if (!canViewPcr(actor, rules) && !principals.some((p) => canViewPcr(p, rules)))
      throw new Forbidden("You have no access to this PCR");
    const slots = row.signatures.map((s) => ({ ...s }));
    const signed: number[] = [];
    const onBehalf = new Map<number, PublicUser>();
    const commented: number[] = [];
    const at = new Date();
    const now = at.toISOString();
    incoming.forEach((slot, index) => {
      const current = slots[index]!;
      if (slot.Name !== current.Name) {
        throw new Invalid("Signature positions must be preserved", [
          { path: `signatures.${index}.Name`, message: `Slot ${index + 1} is ${current.Name}` },
        ]);
      }
      const { wantsSign, commentChanged } = differs(slot, current.state, current.signature, current.Comments);
      if (!wantsSign && !commentChanged) return;
      const holder = pcrSlotHolder(actor, rules, current.Name, principals);
      if (!holder) throw new Forbidden(`Only the ${current.Name} (or their delegate) can sign or comment this slot`);
      const principal = holder.onBehalfOf as PublicUser | null;
      if (wantsSign) {
        if (row.status !== "pending") throw new Conflict(`This PCR is already ${row.status}`);
        if (current.state === "signed") throw new Conflict(`The ${current.Name} slot is already signed`);
        const waiting = slots.slice(0, index).find((s) => s.state !== "signed");
        if (waiting) throw new Conflict(`The ${waiting.Name} must sign before the ${current.Name}`);
        // Four eyes: one person signs one slot of the chain, whether in person or for someone, and
        // nobody's slot is signed for them when they signed another one.
        const people = (s: StoredSignature) => [s.signedBy, s.onBehalfOf ?? null].filter(Boolean);
        const own = slots.find((s) => s.state === "signed" && people(s).includes(actor._id));
        if (own) {
          throw new Forbidden(
            `You already signed this PCR as ${own.Name}; one person signs one slot, so someone else must sign as ${current.Name}`,
          );
        }
        // The originator's own slot is theirs; the slot of the position they hold falls to their
        // delegate (or an admin-named substitute): their delegate may sign it for them though they
        // signed as Change Originator (docs/decisions/026-four-eyes-by-record.md).
        const theirs =
          principal &&
          slots.find(
            (s) =>
              s.state === "signed" &&
              people(s).includes(principal._id) &&
              !(s.Name === "Change Originator" && principal._id === row.originatorId && s.signedBy === principal._id),
          );
        if (theirs) {
          throw new Forbidden(
            `${principal.name} already signed this PCR as ${theirs.Name}; one person signs one slot, so someone else must sign as ${current.Name}`,
          );
        }
        requireOwnName(slot.Signature as string, actor, `signatures.${index}.Signature`);
        Object.assign(current, {
          state: "signed",
          signature: (slot.Signature as string).trim(),
          signatureDate: now,
          signedBy: actor._id,
          onBehalfOf: principal?._id ?? null,
        });
        signed.push(index);
        if (principal) onBehalf.set(index, principal);
      } else if (current.state === "unsigned") {
        current.state = "commented";
      }
      if (commentChanged) {
        Object.assign(current, { Comments: slot.Comments ?? "", commentedBy: actor._id });
        commented.push(index);
      }
    });
    for (const index of signed) {
      const name = slots[index]!.Name;
      const principal = onBehalf.get(index) ?? null;
      await recordSignature(tx, {
        kind: "pcr",
        recordId: pcrId,
        signer: actor,
        role: name,
        // What the signing form tells the signer the signature means.
        meaning: `reviewed and approved as ${name}`,
        at,
        onBehalfOf: principal,
      });
      await audit(tx, pcrId, actor, {
        action: principal ? `Signed as acting ${name}, on behalf of ${principal.name}` : `Signed as ${name}`,
      });
    }
    for (const index of commented) {
      await audit(tx, pcrId, actor, { action: `Commented as ${slots[index]!.Name}`, comment: slots[index]!.Comments });
    }
    const [updated] = await tx
      .update(pcrs)
      .set({ signatures: slots, updatedAt: new Date() })
      .where(eq(pcrs.id, pcrId))
      .returning();
    let result = updated!;
    if (signed.length) {
      const next = slots.find((s) => s.state !== "signed");
      if (next) {
        await notifyAboutPcr(
          tx,
          row,
          { ...holdersOf(next.Name, row.originatorId), except: actor._id },
          {
            event: `${actor.name} signed PCR ${row.serialNum} as ${slots[signed[signed.length - 1]!]!.Name}.`,
            expectation: `Your signature as ${next.Name} is next.`,
            kind: "step_waiting",
          },
        );
      }
      result = await finishIfComplete(tx, result, actor);
    }
    return (await documents([result], tx))[0]!;
  });
}

/** POST /api/pcr/affectedParties: each party signs or comments on their own entry only. */
export async function signAsAffectedParty(
  actor: PublicUser,
  pcrId: string,
  incoming: PartyInput[],
): Promise<PcrDocument> {
  return getDb().transaction(async (tx) => {
    const row = await lockPcr(tx, pcrId);
    if (!canViewPcr(actor, access(row))) throw new Forbidden("You have no access to this PCR");
    const parties = row.affectedParties.map((p) => ({ ...p }));
    let signedNow = false;
    let commentedNow: string | null = null;
    const at = new Date();
    const now = at.toISOString();
    incoming.forEach((entry, index) => {
      const current = parties.find((p) => p.userId === entry.Name.value);
      if (!current) {
        throw new Invalid("That person is not an affected party of this PCR", [
          { path: `affectedParties.${index}.Name.value`, message: "Not an affected party of this PCR" },
        ]);
      }
      const { wantsSign, commentChanged } = differs(entry, current.state, current.signature, current.Comments);
      if (!wantsSign && !commentChanged) return;
      if (current.userId !== actor._id) throw new Forbidden("Affected parties sign and comment for themselves only");
      if (wantsSign) {
        if (row.status !== "pending") throw new Conflict(`This PCR is already ${row.status}`);
        if (current.state === "signed") throw new Conflict("You have already signed this PCR");
        requireOwnName(entry.Signature as string, actor, `affectedParties.${index}.Signature`);
        Object.assign(current, { state: "signed", signature: (entry.Signature as string).trim(), signatureDate: now });
        signedNow = true;
      } else if (current.state === "unsigned") {
        current.state = "commented";
      }
      if (commentChanged) {
        current.Comments = entry.Comments ?? "";
        commentedNow = current.Comments;
      }
    });
    if (signedNow) {
      await recordSignature(tx, {
        kind: "pcr",
        recordId: pcrId,
        signer: actor,
        role: "Affected party",
        meaning: "reviewed as an affected party",
        at,
      });
      await audit(tx, pcrId, actor, { action: "Signed as affected party" });
    }
    if (commentedNow !== null)
      await audit(tx, pcrId, actor, { action: "Commented as affected party", comment: commentedNow });
    const [updated] = await tx
      .update(pcrs)
      .set({ affectedParties: parties, updatedAt: new Date() })
      .where(eq(pcrs.id, pcrId))
      .returning();
    const result = signedNow ? await finishIfComplete(tx, updated!, actor) : updated!;
    return (await documents([result], tx))[0]!;
  });
}

/** PCR signatures waiting on the user: their chain slot is next, or they are an unsigned affected party. */
export async function pendingPcrSignatures(actor: PublicUser) {
  // A position holder may be next on any pending PCR; anyone else only on their own or as a party.
  const mine = actor.position
    ? sql`true`
    : sql`(${pcrs.originatorId} = ${actor._id} or ${actor._id}::uuid = any(${pcrs.partyIds}))`;
  const rows = await getDb()
    .select()
    .from(pcrs)
    .where(and(eq(pcrs.status, "pending"), mine))
    .orderBy(pcrs.createdAt);
  return rows.flatMap((row) => {
    const items: { pcrId: string; serialNum: string; role: string; waitingSince: string }[] = [];
    const next = row.signatures.find((s) => s.state !== "signed");
    if (next && holdsPcrRole(actor, access(row), next.Name)) {
      const previous = [...row.signatures].reverse().find((s) => s.state === "signed");
      items.push({
        pcrId: row.id,
        serialNum: row.serialNum,
        role: next.Name,
        waitingSince: previous?.signatureDate ?? row.createdAt.toISOString(),
      });
    }
    if (row.affectedParties.some((p) => p.userId === actor._id && p.state !== "signed")) {
      items.push({
        pcrId: row.id,
        serialNum: row.serialNum,
        role: "Affected party",
        waitingSince: row.createdAt.toISOString(),
      });
    }
    return items;
  });
}

/**
 * The chain slots waiting on `principal` that their delegate may sign for them today (the
 * dashboard's "On behalf of B"); affected parties sign for themselves. The signing itself checks
 * the period and one person one slot again (pcrSlotHolder).
 */
export async function delegatedPcrSignatures(principal: PublicUser) {
  return (await pendingPcrSignatures(principal)).filter((item) => item.role !== "Affected party");
}

// ---------------------------------------------------------------------------------------------
// The PCR list page

/** The list's query string (the page's filter form, its CSV link and the CSV API read the same). */
export const pcrListQuerySchema = z.object({
  q: searchQuerySchema,
  status: z.enum(["pending", "finished", "withdrawn"]).optional().catch(undefined),
  safety: z.literal("1").optional().catch(undefined),
  scope: z.enum(["mine", "all"]).default("all").catch("all"),
  page: z.coerce.number().int().min(1).default(1).catch(1),
});
export type PcrListQuery = z.infer<typeof pcrListQuerySchema>;

export const pcrListFilter = (query: PcrListQuery): PcrListFilter => ({
  q: query.q,
  status: query.status,
  safetyCritical: query.safety === "1",
  mine: query.scope === "mine",
  page: query.page,
});

/** Every PCR of the filtered list, newest first, as CSV rows read (for csv-export.server.ts). */
export function pcrListExportQuery(actor: PublicUser, filter: PcrListFilter) {
  return sql`select p.serial_num as serial, nullif(p.form->>'title', '') as title, p.status,
      coalesce((p.form->>'safety-critical')::boolean, false) as "safetyCritical",
      coalesce(p.form->>'suggestion-details', '') as summary,
      (select name from users u where u.id = p.originator_id) as originator,
      (select s->>'Name' from jsonb_array_elements(p.signatures) with ordinality x(s, o)
        where s->>'state' <> 'signed' order by o limit 1) as "nextRole",
      (select count(*)::int from jsonb_array_elements(p.signatures) s where s->>'state' = 'signed') as signed,
      to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "createdAt",
      to_char(p.finished_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "finishedAt"
    from pcrs p where ${pcrListWhere(actor, filter)}
    order by p.created_at desc, p.id`;
}

export type PcrListFilter = {
  q?: string;
  status?: "pending" | "finished" | "withdrawn";
  safetyCritical?: boolean;
  mine?: boolean;
  page?: number;
  pageSize?: number;
};

export type PcrListRow = {
  id: string;
  serialNum: string;
  /** The PCR's title, null when not recorded. */
  title: string | null;
  status: string;
  safetyCritical: boolean;
  summary: string;
  originator: string | null;
  nextRole: string | null;
  signed: number;
  createdAt: string;
};

/** The list's conditions for `filter`: the page and its CSV export share them. */
export function pcrListWhere(actor: PublicUser, filter: PcrListFilter) {
  const conditions = [pcrListScope(actor)];
  const q = filter.q?.trim();
  if (q) {
    const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push(sql`(p.serial_num ilike ${like} or p.form->>'title' ilike ${like} or p.form->>'suggestion-details' ilike ${like}
      or p.form->>'reason-for-change' ilike ${like} or p.form->>'manual-procedure' ilike ${like})`);
  }
  if (filter.status) conditions.push(sql`p.status = ${filter.status}`);
  if (filter.safetyCritical) conditions.push(sql`(p.form->>'safety-critical')::boolean`);
  if (filter.mine) conditions.push(sql`(p.originator_id = ${actor._id} or ${actor._id}::uuid = any(p.party_ids))`);
  return sql.join(conditions, sql` and `);
}

export async function searchPcrs(
  actor: PublicUser,
  filter: PcrListFilter,
): Promise<{ rows: PcrListRow[]; total: number }> {
  const pageSize = Math.min(Math.max(filter.pageSize ?? 25, 1), 100);
  const offset = (Math.max(filter.page ?? 1, 1) - 1) * pageSize;
  const rows = await getDb().execute<PcrListRow & { total: number }>(sql`
    select p.id, p.serial_num as "serialNum", nullif(p.form->>'title', '') as title, p.status,
      coalesce((p.form->>'safety-critical')::boolean, false) as "safetyCritical",
      coalesce(p.form->>'suggestion-details', '') as summary,
      (select name from users u where u.id = p.originator_id) as originator,
      (select s->>'Name' from jsonb_array_elements(p.signatures) with ordinality x(s, o)
        where s->>'state' <> 'signed' order by o limit 1) as "nextRole",
      (select count(*)::int from jsonb_array_elements(p.signatures) s where s->>'state' = 'signed') as signed,
      to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as "createdAt",
      count(*) over ()::int as total
    from pcrs p where ${pcrListWhere(actor, filter)}
    order by p.created_at desc, p.id limit ${pageSize} offset ${offset}`);
  return { rows: rows.map(({ total: _total, ...row }) => row), total: rows[0]?.total ?? 0 };
}
