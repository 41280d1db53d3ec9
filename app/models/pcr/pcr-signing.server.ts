/**
 * Signing a PCR: its chain slots in order and its affected parties, by the rules declared in
 * pcr-chain.server.ts. The page asks for one slot (`signPcrSlot`); POST /api/pcr/signatures and
 * /api/pcr/affectedParties send whole arrays and are adapters over the same rule. Every signing
 * is one transaction on the locked PCR row, so two people cannot both take a slot; a holder may
 * comment at any time (a comment alone is stored with `Signature: null`).
 */
import { and, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { z } from "zod";
import { pcrs, type StoredAffectedParty, type StoredSignature } from "#db/schema";
import { PCR_ROLES } from "#db/schema/enums";
import { getDb, type Transaction } from "~/utils/db.server";
import { Conflict, Forbidden, Invalid, NotFound } from "~/utils/errors";
import { isDrawnSignature, recordSignature, typedNameMatches } from "../audit/audit.server";
import { canViewPcr } from "../authz/authz.server";
import {
  AFFECTED_PARTY,
  nextSlot,
  signableSlot,
  signRefusal,
  slotDefinition,
  slotHolder,
  waitsOnSlotSql,
  type PcrChainRecord,
} from "./pcr-chain.server";
import type { affectedPartySchema, signatureSlotSchema } from "./pcr.schema";
import {
  auditPcr,
  lockPcr,
  notifyAboutPcr,
  pcrDocuments,
  pcrPrincipalsOf,
  rowAccess,
  type PcrDocument,
  type PcrRow,
} from "./pcr.server";
import type { PublicUser } from "../people/user.server";

type SlotInput = z.infer<typeof signatureSlotSchema>;
type PartyInput = z.infer<typeof affectedPartySchema>;

/** What a caller sends for one signature: the value to sign with (else unsigned or a comment) and the comment. */
type Wish = { Signature: string | false | null; Comments?: string };

/** What the page asks of one slot: to sign it with `signature`, and/or to leave `comments`. */
export type SlotRequest = { signature?: string; comments?: string };

/** The page's name of the affected parties' signature. */
export const PARTY_SLOT = "party";

const chainOf = (row: PcrRow): PcrChainRecord => ({ ...rowAccess(row), signatures: row.signatures });

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

async function finishIfComplete(tx: Transaction, row: PcrRow, actor: PublicUser): Promise<PcrRow> {
  if (row.status !== "pending" || !isComplete(row)) return row;
  const now = new Date();
  const [finished] = await tx
    .update(pcrs)
    .set({ status: "finished", finishedAt: now, updatedAt: now })
    .where(and(eq(pcrs.id, row.id), eq(pcrs.status, "pending")))
    .returning();
  await auditPcr(tx, row.id, actor, { action: "Finished: every signature is in", from: "pending", to: "finished" });
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

// ---------------------------------------------------------------------------------------------
// The chain

/**
 * Applies the wishes `wanted` yields for chain slots, in one transaction on the locked row: a
 * slot is signed by its holder (or their delegate) when `signRefusal` has nothing against it,
 * commented by its holder at any time. Read lazily, so a malformed wish is answered where the
 * whole-array adapter meets it, after the slots before it.
 */
async function changeChain(
  actor: PublicUser,
  pcrId: string,
  wanted: (slots: readonly StoredSignature[]) => Iterable<readonly [index: number, wish: Wish]>,
): Promise<PcrDocument> {
  return getDb().transaction(async (tx) => {
    const row = await lockPcr(tx, pcrId);
    const rules = rowAccess(row);
    // A delegate may sign or comment the slot of an absent holder who delegated to them today.
    const principals = await pcrPrincipalsOf(actor, tx);
    if (!canViewPcr(actor, rules) && !principals.some((p) => canViewPcr(p, rules)))
      throw new Forbidden("You have no access to this PCR");
    const slots = row.signatures.map((s) => ({ ...s }));
    const chain: PcrChainRecord = { ...rules, signatures: slots };
    const signed: number[] = [];
    const onBehalf = new Map<number, PublicUser>();
    const commented: number[] = [];
    const at = new Date();
    const now = at.toISOString();
    for (const [index, wish] of wanted(slots)) {
      const current = slots[index]!;
      const { wantsSign, commentChanged } = differs(wish, current);
      if (!wantsSign && !commentChanged) continue;
      const holder = slotHolder(actor, rules, current.Name, principals);
      if (!holder) throw new Forbidden(slotDefinition(current.Name).who.refusal);
      const principal = holder.onBehalfOf;
      if (wantsSign && typeof wish.Signature === "string") {
        const refusal = signRefusal(actor, chain, current.Name, principal);
        if (refusal) throw refusal;
        requireOwnName(wish.Signature, actor, `signatures.${index}.Signature`);
        Object.assign(current, {
          state: "signed",
          signature: wish.Signature.trim(),
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
        Object.assign(current, { Comments: wish.Comments ?? "", commentedBy: actor._id });
        commented.push(index);
      }
    }
    for (const index of signed) {
      const { signs } = slotDefinition(slots[index]!.Name);
      const principal = onBehalf.get(index) ?? null;
      await recordSignature(tx, {
        kind: "pcr",
        recordId: pcrId,
        signer: actor,
        role: signs.role,
        meaning: signs.meaning,
        at,
        onBehalfOf: principal,
      });
      await auditPcr(tx, pcrId, actor, {
        action: principal
          ? `Signed as acting ${signs.role}, on behalf of ${principal.name}`
          : `Signed as ${signs.role}`,
      });
    }
    for (const index of commented) {
      await auditPcr(tx, pcrId, actor, {
        action: `Commented as ${slots[index]!.Name}`,
        comment: slots[index]!.Comments,
      });
    }
    const [updated] = await tx
      .update(pcrs)
      .set({ signatures: slots, updatedAt: new Date() })
      .where(eq(pcrs.id, pcrId))
      .returning();
    let result = updated!;
    if (signed.length) {
      const next = nextSlot(slots);
      if (next) {
        await notifyAboutPcr(
          tx,
          row,
          { ...slotDefinition(next.Name).notifies?.(row), except: actor._id },
          {
            event: `${actor.name} signed PCR ${row.serialNum} as ${slots[signed[signed.length - 1]!]!.Name}.`,
            expectation: `Your signature as ${next.Name} is next.`,
            kind: "step_waiting",
          },
        );
      }
      result = await finishIfComplete(tx, result, actor);
    }
    return (await pcrDocuments([result], tx))[0]!;
  });
}

/** The whole array as POST /api/pcr/signatures sends it, slot by slot, each in its own position. */
function* arrayWishes(incoming: SlotInput[], slots: readonly StoredSignature[]) {
  for (const [index, slot] of incoming.entries()) {
    const current = slots[index]!;
    if (slot.Name !== current.Name) {
      throw new Invalid("Signature positions must be preserved", [
        { path: `signatures.${index}.Name`, message: `Slot ${index + 1} is ${current.Name}` },
      ]);
    }
    yield [index, slot] as const;
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
  return changeChain(actor, pcrId, (slots) => arrayWishes(incoming, slots));
}

// ---------------------------------------------------------------------------------------------
// Affected parties

/** Applies the wishes `wanted` yields for affected parties' entries: each party signs or comments their own only. */
async function changeParties(
  actor: PublicUser,
  pcrId: string,
  wanted: (parties: readonly StoredAffectedParty[]) => Iterable<readonly [entry: StoredAffectedParty, wish: Wish]>,
  signaturePath: (entry: StoredAffectedParty) => string,
): Promise<PcrDocument> {
  return getDb().transaction(async (tx) => {
    const row = await lockPcr(tx, pcrId);
    if (!canViewPcr(actor, rowAccess(row))) throw new Forbidden("You have no access to this PCR");
    const parties = row.affectedParties.map((p) => ({ ...p }));
    let signedNow = false;
    let commentedNow: string | null = null;
    const at = new Date();
    const now = at.toISOString();
    for (const [current, wish] of wanted(parties)) {
      const { wantsSign, commentChanged } = differs(wish, current);
      if (!wantsSign && !commentChanged) continue;
      // `who.may` makes the actor a party of the PCR; the entry must be their own too.
      if (current.userId !== actor._id) throw new Forbidden(AFFECTED_PARTY.who.refusal);
      if (wantsSign && typeof wish.Signature === "string") {
        if (!AFFECTED_PARTY.open.statuses.includes(row.status)) throw new Conflict(`This PCR is already ${row.status}`);
        if (current.state === "signed") throw new Conflict("You have already signed this PCR");
        requireOwnName(wish.Signature, actor, signaturePath(current));
        Object.assign(current, { state: "signed", signature: wish.Signature.trim(), signatureDate: now });
        signedNow = true;
      } else if (current.state === "unsigned") {
        current.state = "commented";
      }
      if (commentChanged) {
        current.Comments = wish.Comments ?? "";
        commentedNow = current.Comments;
      }
    }
    if (signedNow) {
      await recordSignature(tx, {
        kind: "pcr",
        recordId: pcrId,
        signer: actor,
        role: AFFECTED_PARTY.signs.role,
        meaning: AFFECTED_PARTY.signs.meaning,
        at,
      });
      await auditPcr(tx, pcrId, actor, { action: "Signed as affected party" });
    }
    if (commentedNow !== null)
      await auditPcr(tx, pcrId, actor, { action: "Commented as affected party", comment: commentedNow });
    const [updated] = await tx
      .update(pcrs)
      .set({ affectedParties: parties, updatedAt: new Date() })
      .where(eq(pcrs.id, pcrId))
      .returning();
    const result = signedNow ? await finishIfComplete(tx, updated!, actor) : updated!;
    return (await pcrDocuments([result], tx))[0]!;
  });
}

/** POST /api/pcr/affectedParties: each party signs or comments on their own entry only. */
export async function signAsAffectedParty(
  actor: PublicUser,
  pcrId: string,
  incoming: PartyInput[],
): Promise<PcrDocument> {
  const index = new Map<StoredAffectedParty, number>();
  return changeParties(
    actor,
    pcrId,
    function* (parties) {
      for (const [i, entry] of incoming.entries()) {
        const current = parties.find((p) => p.userId === entry.Name.value);
        if (!current) {
          throw new Invalid("That person is not an affected party of this PCR", [
            { path: `affectedParties.${i}.Name.value`, message: "Not an affected party of this PCR" },
          ]);
        }
        index.set(current, i);
        yield [current, entry] as const;
      }
    },
    (entry) => `affectedParties.${index.get(entry)}.Signature`,
  );
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
    return changeParties(
      actor,
      pcrId,
      function* (parties) {
        const mine = parties.find((p) => p.userId === actor._id);
        if (!mine) throw new Forbidden("You are not an affected party of this PCR");
        yield [mine, wishOf(request, mine)] as const;
      },
      () => "affectedParties.0.Signature",
    );
  }
  const index = PCR_ROLES.findIndex((role) => role === slot);
  if (index < 0) throw new Invalid("Unknown signature slot", [{ path: "slot", message: "Unknown signature slot" }]);
  return changeChain(actor, pcrId, function* (slots) {
    yield [index, wishOf(request, slots[index]!)] as const;
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
