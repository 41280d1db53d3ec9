/**
 * Signing a PCR: its chain slots in order and its affected parties, by the rules declared in
 * pcr-chain.server.ts, moved by the workflow engine's multi-slot move (`PCR_WORKFLOW.slotRunner`,
 * docs/decisions/046-workflow-engine.md) with the PCR's load and write given here. The page asks
 * for one slot (`signPcrSlot`); POST /api/pcr/signatures and /api/pcr/affectedParties send whole
 * arrays and are adapters over the same move. Every signing is one transaction on the locked PCR
 * row, so two people cannot both take a slot; a holder may comment at any time (a comment alone is
 * stored with `Signature: null`).
 */
import { and, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { z } from "zod";
import { pcrs, type StoredAffectedParty, type StoredSignature } from "#db/schema";
import { PCR_ROLES, type PcrRole } from "#db/schema/enums";
import { getDb, preparedSql, statementOnce, type Executor, type Transaction } from "~/utils/db.server";
import { Conflict, Forbidden, Invalid, NotFound } from "~/utils/errors";
import { entryLink, lockedHeadSql, parseHead } from "../audit/audit-chain.server";
import { signatureLink, signatureRow } from "../audit/audit.server";
import { canViewPcr } from "../authz/authz.server";
import { principalsOf } from "../people/delegation.server";
import type { PublicUser } from "../people/user.server";
import type { KindSlots, SlotMove } from "../workflow/engine.server";
import {
  AFFECTED_PARTY,
  nextSlot,
  oneSlotRefusal,
  PARTY_SLOT,
  PCR_WORKFLOW,
  pcrState,
  signableSlot,
  signRefusal,
  slotDefinition,
  slotHolder,
  waitsOnSlotSql,
  type PcrChainRecord,
  type PcrKind,
  type PcrSlotAsk,
} from "./pcr-chain.server";
import type { affectedPartySchema, signatureSlotSchema } from "./pcr.schema";
import { notifyAboutPcr, pcrDocuments, pcrPrincipalsOf, rowAccess, type PcrDocument, type PcrRow } from "./pcr.server";

export { PARTY_SLOT };

type SlotInput = z.infer<typeof signatureSlotSchema>;
type PartyInput = z.infer<typeof affectedPartySchema>;

/** What a caller sends for one signature: the value to sign with (else unsigned or a comment) and the comment. */
type Wish = { Signature: string | false | null; Comments?: string };

/** What the page asks of one slot: to sign it with `signature`, and/or to leave `comments`. */
export type SlotRequest = { signature?: string; comments?: string };

const chainOf = (row: PcrRow): PcrChainRecord => ({ ...rowAccess(row), signatures: row.signatures });

const isComplete = (row: Pick<PcrRow, "signatures" | "affectedParties">) =>
  row.signatures.every((s) => s.state === "signed") && row.affectedParties.every((a) => a.state === "signed");

/** What `wish` changes of a stored signature: a new signature (resending the stored one is none) and/or the comment. */
const differs = (
  wish: Wish,
  current: Pick<StoredSignature | StoredAffectedParty, "state" | "signature" | "Comments">,
) => ({
  wantsSign:
    typeof wish.Signature === "string" && !(current.state === "signed" && wish.Signature === current.signature),
  commentChanged: (wish.Comments ?? "") !== current.Comments,
});

/** The page's request as a wish for one stored signature: an empty comment leaves the stored one. */
const wishOf = (request: SlotRequest, current: { Comments: string }): Wish => ({
  Signature: request.signature ?? false,
  Comments: request.comments || current.Comments,
});

/**
 * What `wish` asks of the slot `step` as `current` stands: to sign it (its signature found at
 * `path` in the request), to comment on it, both, or nothing (null: a slot sent back as it is).
 */
function askOf(
  step: PcrRole | typeof PARTY_SLOT,
  wish: Wish,
  current: Pick<StoredSignature | StoredAffectedParty, "state" | "signature" | "Comments">,
  path: string,
  heldBy?: string,
): PcrSlotAsk | null {
  const { wantsSign, commentChanged } = differs(wish, current);
  if (!wantsSign && !commentChanged) return null;
  return {
    step,
    ...(wantsSign && typeof wish.Signature === "string" && { take: { signature: wish.Signature, path } }),
    ...(commentChanged && { note: wish.Comments ?? "" }),
    ...(heldBy !== undefined && { heldBy }),
  };
}

// ---------------------------------------------------------------------------------------------
// The PCR's load and write for the engine

/** The heads of the PCR's trail and signature chains, locked (audit-chain.server.ts). */
const headsStatement = statementOnce((db) =>
  preparedSql<{ log: string | null; signature: string | null }>(
    db,
    sql`select ${lockedHeadSql("pcr", sql`${sql.placeholder("id")}::uuid`)} as log,
      ${lockedHeadSql("pcr-signature", sql`${sql.placeholder("id")}::uuid`)} as signature`,
    "pcr_signing_heads",
  ),
);

/**
 * The PCR row locked, then its chains' heads, in the order the PCR's other writers take them (the
 * row, then the head `appendAudit` locks); the slots and parties copied, for the steps to change.
 */
async function loadForSigning(tx: Transaction, id: string) {
  const [row] = await tx.select().from(pcrs).where(eq(pcrs.id, id)).for("update");
  if (!row) return null;
  const [heads] = await headsStatement(tx).execute({ id });
  return {
    record: {
      ...row,
      signatures: row.signatures.map((s) => ({ ...s })),
      affectedParties: row.affectedParties.map((p) => ({ ...p })),
    },
    heads: { log: parseHead(heads?.log), signature: parseHead(heads?.signature) },
  };
}

const json = (name: string) => sql`${sql.placeholder(name)}::jsonb`;

/**
 * A move's audit entries and signature manifestations, each with the link the move computed, and
 * the chains' new heads, in one statement (the insert triggers check each follows the last).
 */
const trailStatement = statementOnce((db) =>
  preparedSql(
    db,
    sql`with logged as (
        insert into audit_entries (record_kind, record_id, actor_id, action, from_value, to_value, comment, at, seq,
          prev_hash, hash, key_id)
        select 'pcr', ${sql.placeholder("id")}::uuid, e.actor_id, e.action, e.from_value, e.to_value, e.comment, e.at,
          e.seq, e.prev_hash, e.hash, e.key_id
        from jsonb_to_recordset(${json("entries")}) as e(actor_id uuid, action text, from_value text, to_value text,
          comment text, at timestamptz, seq integer, prev_hash text, hash text, key_id text)
        order by e.seq
      ), signed as (
        insert into signature_manifestations (record_kind, record_id, signer_id, printed_name, position, role, meaning,
          signed_at, on_behalf_of, on_behalf_of_name, seq, prev_hash, hash, key_id)
        select 'pcr', ${sql.placeholder("id")}::uuid, s.signer_id, s.printed_name, s.position, s.role, s.meaning,
          s.signed_at, s.on_behalf_of, s.on_behalf_of_name, s.seq, s.prev_hash, s.hash, s.key_id
        from jsonb_to_recordset(${json("signatures")}) as s(signer_id uuid, printed_name text, position text, role text,
          meaning text, signed_at timestamptz, on_behalf_of uuid, on_behalf_of_name text, seq integer, prev_hash text,
          hash text, key_id text)
        order by s.seq
      )
      insert into audit_heads (chain, record_id, seq, hash, key_id, mac)
      select h.chain, ${sql.placeholder("id")}::uuid, h.seq, h.hash, h.key_id, h.mac
      from jsonb_to_recordset(${json("heads")}) as h(chain text, seq integer, hash text, key_id text, mac text)
      on conflict (chain, record_id) do update set seq = excluded.seq, hash = excluded.hash, key_id = excluded.key_id,
        mac = excluded.mac, updated_at = now()`,
    "pcr_signing_trail",
  ),
);

/** Writes the move's audit entries and signatures, chained after the heads the load locked. */
async function writeTrail(tx: Executor, move: SlotMove<PcrKind, PcrRow>): Promise<void> {
  const { record, actor, now } = move;
  let head = move.heads.signature;
  const signatures = move.signatures.map((signature) => {
    const row = signatureRow({
      kind: "pcr",
      recordId: record.id,
      signer: actor,
      role: signature.role,
      meaning: signature.meaning,
      at: now,
      onBehalfOf: signature.onBehalfOf,
    });
    const link = signatureLink(row, head);
    head = link;
    return { row, link };
  });
  const lastEntry = move.trail.at(-1)?.link;
  const lastSignature = signatures.at(-1)?.link;
  if (!lastEntry && !lastSignature) return;
  await trailStatement(tx).execute({
    id: record.id,
    entries: JSON.stringify(
      move.trail.map(({ entry, link }) => ({
        actor_id: entry.userId,
        action: entry.action,
        from_value: entry.fromStatus,
        to_value: entry.toStatus,
        comment: entry.comment,
        at: entry.at.toISOString(),
        seq: link.seq,
        prev_hash: link.prevHash,
        hash: link.hash,
        key_id: link.keyId,
      })),
    ),
    signatures: JSON.stringify(
      signatures.map(({ row, link }) => ({
        signer_id: row.signerId,
        printed_name: row.printedName,
        position: row.position,
        role: row.role,
        meaning: row.meaning,
        signed_at: row.signedAt.toISOString(),
        on_behalf_of: row.onBehalfOf,
        on_behalf_of_name: row.onBehalfOfName,
        seq: link.seq,
        prev_hash: link.prevHash,
        hash: link.hash,
        key_id: link.keyId,
      })),
    ),
    heads: JSON.stringify([
      ...(lastEntry ? [{ chain: "pcr", ...headOf(lastEntry) }] : []),
      ...(lastSignature ? [{ chain: "pcr-signature", ...headOf(lastSignature) }] : []),
    ]),
  });
}

const headOf = (link: { seq: number; hash: string; keyId: string; headMac: string }) => ({
  seq: link.seq,
  hash: link.hash,
  key_id: link.keyId,
  mac: link.headMac,
});

/**
 * The move's write: the row's slots, parties and status, only from the status it started from;
 * its trail; then the notices (the next slot's holders after a chain signature; everyone once the
 * last signature finishes it) and the answer.
 */
async function commitSigning(tx: Transaction, move: SlotMove<PcrKind, PcrRow>): Promise<PcrDocument | null> {
  const { record, actor, now } = move;
  const finished = move.to === "finished" && move.from !== "finished";
  const [updated] = await tx
    .update(pcrs)
    .set({
      signatures: record.signatures,
      affectedParties: record.affectedParties,
      status: move.to as PcrRow["status"],
      updatedAt: now,
      ...(finished && { finishedAt: now }),
    })
    .where(and(eq(pcrs.id, record.id), eq(pcrs.status, move.from as PcrRow["status"])))
    .returning();
  if (!updated) return null;
  await writeTrail(tx, move);
  const lastOfChain = move.taken.filter((t) => t.step !== PARTY_SLOT).at(-1);
  const next = lastOfChain && nextSlot(record.signatures);
  if (lastOfChain && next) {
    await notifyAboutPcr(
      tx,
      record,
      { ...slotDefinition(next.Name).notifies?.(record), except: actor._id },
      {
        event: `${actor.name} signed PCR ${record.serialNum} as ${lastOfChain.step}.`,
        expectation: `Your signature as ${next.Name} is next.`,
        kind: "step_waiting",
      },
    );
  }
  if (finished) {
    const signers = record.signatures.map((s) => s.signedBy);
    await notifyAboutPcr(
      tx,
      record,
      { userIds: [record.originatorId, ...signers, ...record.partyIds], except: actor._id },
      {
        event: `PCR ${record.serialNum} is fully signed (last signature by ${actor.name}).`,
        expectation: null,
      },
    );
  }
  return (await pcrDocuments([updated], tx))[0]!;
}

/** The PCR's multi-slot move, as the chain and the parties share it. */
const signing = {
  load: loadForSigning,
  state: pcrState,
  context: ({ actor, onBehalfOf, record, now }) => ({ actor, onBehalfOf, pcr: record, now }),
  refuses(step, actor, record, onBehalfOf) {
    if (step !== PARTY_SLOT) return oneSlotRefusal(actor, chainOf(record), step as PcrRole, onBehalfOf);
    const mine = record.affectedParties.find((p) => p.userId === actor._id)!;
    return mine.state === "signed" ? new Conflict("You have already signed this PCR") : null;
  },
  note({ step, note, actor, pcr }) {
    if (step === PARTY_SLOT) {
      const mine = pcr.affectedParties.find((p) => p.userId === actor._id)!;
      if (mine.state === "unsigned") mine.state = "commented";
      mine.Comments = note;
      return { action: "Commented as affected party", comment: note };
    }
    const slot = pcr.signatures.find((s) => s.Name === step)!;
    if (slot.state === "unsigned") slot.state = "commented";
    Object.assign(slot, { Comments: note, commentedBy: actor._id });
    return { action: `Commented as ${slot.Name}`, comment: note };
  },
  // The last signature in finishes it; a comment alone never does.
  settle: (record, taken, status) =>
    status === "pending" && taken.length > 0 && isComplete(record)
      ? { to: "finished", action: "Finished: every signature is in" }
      : null,
  // `audit_entries` keep no `on_behalf_of`: a delegate's entry names the absent person in its action.
  logLink: (recordId, head, entry) => entryLink("pcr", recordId, head, { ...entry, onBehalfOf: null }),
  commit: commitSigning,
} satisfies KindSlots<PcrKind, PcrRow, PcrDocument>;

/**
 * The chain's slots: a holder (or their delegate: `principals`) signs or comments them; the PCR
 * must be readable by the actor or by someone they stand in for.
 */
const signChainSlots = PCR_WORKFLOW.slotRunner({
  ...signing,
  principals: principalsOf,
  reads: (actor, row, principals) =>
    canViewPcr(actor, rowAccess(row)) || principals.some((p) => canViewPcr(p, rowAccess(row))),
});

/** The parties' entries: each party signs or comments their own, in person only. */
const signPartyEntries = PCR_WORKFLOW.slotRunner({
  ...signing,
  reads: (actor, row) => canViewPcr(actor, rowAccess(row)),
});

// ---------------------------------------------------------------------------------------------
// The chain

/** The whole array as POST /api/pcr/signatures sends it, slot by slot, each in its own position. */
function* arrayWishes(incoming: SlotInput[], slots: readonly StoredSignature[]) {
  for (const [index, slot] of incoming.entries()) {
    const current = slots[index]!;
    if (slot.Name !== current.Name) {
      throw new Invalid("Signature positions must be preserved", [
        { path: `signatures.${index}.Name`, message: `Slot ${index + 1} is ${current.Name}` },
      ]);
    }
    const ask = askOf(current.Name, slot, current, `signatures.${index}.Signature`);
    if (ask) yield ask;
  }
}

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
    return Boolean(current && differs(slot, current).wantsSign);
  });
}

/**
 * POST /api/pcr/signatures: the whole array comes in; only what the caller may change is applied,
 * each slot by the rule `signPcrSlot` applies.
 */
export async function signPcr(actor: PublicUser, pcrId: string, incoming: SlotInput[]): Promise<PcrDocument> {
  return signChainSlots(actor, pcrId, (row) => arrayWishes(incoming, row.signatures));
}

// ---------------------------------------------------------------------------------------------
// Affected parties

/** POST /api/pcr/affectedParties: each party signs or comments on their own entry only. */
export async function signAsAffectedParty(
  actor: PublicUser,
  pcrId: string,
  incoming: PartyInput[],
): Promise<PcrDocument> {
  return signPartyEntries(actor, pcrId, function* (row) {
    for (const [i, entry] of incoming.entries()) {
      const current = row.affectedParties.find((p) => p.userId === entry.Name.value);
      if (!current) {
        throw new Invalid("That person is not an affected party of this PCR", [
          { path: `affectedParties.${i}.Name.value`, message: "Not an affected party of this PCR" },
        ]);
      }
      const ask = askOf(PARTY_SLOT, entry, current, `affectedParties.${i}.Signature`, current.userId);
      if (ask) yield ask;
    }
  });
}

// ---------------------------------------------------------------------------------------------
// One slot, as the page asks

/**
 * Signs (with `request.signature`) or comments one signature of the PCR: the chain slot `slot`
 * (a role of the chain) or the caller's own affected party's entry (`PARTY_SLOT`), by the same
 * rules as the API's whole arrays.
 */
export async function signPcrSlot(
  actor: PublicUser,
  pcrId: string,
  slot: string,
  request: SlotRequest,
): Promise<PcrDocument> {
  if (slot === PARTY_SLOT) {
    return signPartyEntries(actor, pcrId, function* (row) {
      const mine = row.affectedParties.find((p) => p.userId === actor._id);
      if (!mine) throw new Forbidden("You are not an affected party of this PCR");
      const ask = askOf(PARTY_SLOT, wishOf(request, mine), mine, "affectedParties.0.Signature", mine.userId);
      if (ask) yield ask;
    });
  }
  const index = PCR_ROLES.findIndex((role) => role === slot);
  if (index < 0) throw new Invalid("Unknown signature slot", [{ path: "slot", message: "Unknown signature slot" }]);
  return signChainSlots(actor, pcrId, function* (row) {
    const current = row.signatures[index]!;
    const ask = askOf(current.Name, wishOf(request, current), current, `signatures.${index}.Signature`);
    if (ask) yield ask;
  });
}

/**
 * What the record page offers `actor`: the sign form of the slot the signing would accept now
 * (`signableSlot`), the slots they may comment as, and their own affected party's entry.
 */
export async function pcrSigningOffer(actor: PublicUser, pcrId: string) {
  const [row] = await getDb().select().from(pcrs).where(eq(pcrs.id, pcrId));
  if (!row) throw new NotFound("No PCR with this id");
  // A delegate signs and comments the slots of the absent holders who delegated to them today.
  const principals = await pcrPrincipalsOf(actor);
  const rules = rowAccess(row);
  const chain = chainOf(row);
  const sign = signableSlot(actor, chain, principals);
  const next = nextSlot(row.signatures);
  const holder = next && row.status === "pending" ? slotHolder(actor, rules, next.Name, principals) : null;
  const party = row.affectedParties.find((p) => p.userId === actor._id);
  return {
    /** The index of the next slot of the chain, -1 when every slot is signed. */
    next: next ? row.signatures.indexOf(next) : -1,
    sign: sign && { role: sign.role, onBehalfOf: sign.onBehalfOf?.name ?? null },
    /** Why the holder of the next slot may not sign it (one person signs one slot), to say so on the page. */
    refused:
      next && holder && !sign ? (signRefusal(actor, chain, next.Name, holder.onBehalfOf)?.message ?? null) : null,
    commentSlots: PCR_ROLES.filter((role) => slotHolder(actor, rules, role, principals)),
    isParty: Boolean(party),
    canSignAsParty: Boolean(party && party.state !== "signed" && AFFECTED_PARTY.open.statuses.includes(row.status)),
  };
}
export type PcrSigningOffer = Awaited<ReturnType<typeof pcrSigningOffer>>;

// ---------------------------------------------------------------------------------------------
// Waiting on me

/**
 * PCR signatures waiting on the user: their chain slot is next and the signing would take it from
 * them (`signRefusal`: a holder of two chain roles who signed one waits on neither), or they are
 * an unsigned affected party.
 */
export const pendingPcrSignatures = (actor: PublicUser) => slotsWaitingOn(actor, { signer: actor, onBehalfOf: null });

/**
 * The chain slots waiting on `principal` that `delegate` may sign for them today (the dashboard's
 * "On behalf of B"): the same rule, asked of the delegate signing for the principal, so a slot the
 * delegate may not sign (they signed another slot of that PCR) is not offered. Affected parties
 * sign for themselves. The signing checks the period again.
 */
export async function delegatedPcrSignatures(principal: PublicUser, delegate: PublicUser) {
  return (await slotsWaitingOn(principal, { signer: delegate, onBehalfOf: principal })).filter(
    (item) => item.role !== AFFECTED_PARTY.role,
  );
}

async function slotsWaitingOn(
  holder: PublicUser,
  { signer, onBehalfOf }: { signer: PublicUser; onBehalfOf: PublicUser | null },
) {
  const p = alias(pcrs, "p");
  const rows = await getDb()
    .select()
    .from(p)
    .where(sql`${p.status} = 'pending' and (${waitsOnSlotSql(holder)} or ${AFFECTED_PARTY.who.sql(holder)})`)
    .orderBy(p.createdAt);
  return rows.flatMap((row) => {
    const items: { pcrId: string; serialNum: string; role: string; waitingSince: string }[] = [];
    const next = nextSlot(row.signatures);
    if (
      next &&
      slotDefinition(next.Name).who.may(holder, rowAccess(row)) &&
      !signRefusal(signer, chainOf(row), next.Name, onBehalfOf)
    ) {
      const previous = [...row.signatures].reverse().find((s) => s.state === "signed");
      items.push({
        pcrId: row.id,
        serialNum: row.serialNum,
        role: next.Name,
        waitingSince: previous?.signatureDate ?? row.createdAt.toISOString(),
      });
    }
    if (row.affectedParties.some((a) => a.userId === holder._id && a.state !== "signed")) {
      items.push({
        pcrId: row.id,
        serialNum: row.serialNum,
        role: AFFECTED_PARTY.role,
        waitingSince: row.createdAt.toISOString(),
      });
    }
    return items;
  });
}
