/**
 * A PCR's signatures declared once: the six chain slots in order, then the affected parties'
 * signature, each with its `who` (the engine's `Who`: predicate, SQL twin and refusal), when it
 * opens and what its signature means. `PCR_WORKFLOW` makes them the steps of the PCR's workflow on
 * the engine (app/models/workflow/engine.server.ts, docs/decisions/046-workflow-engine.md), and the
 * signing (pcr-signing.server.ts) moves them with the engine's multi-slot move. "The next slot", "who may
 * sign now" and one person one slot are written here only; the signing, the record page's forms,
 * "waiting on me" and the lists read them. docs/decisions/005-pcr-signatures.md and
 * 026-four-eyes-by-record.md.
 */
import { sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { PCR_ROLES, type PcrRole, type PcrStatus } from "#db/schema/enums";
import type { StoredAffectedParty, StoredSignature } from "#db/schema";
import { Conflict, Forbidden, Invalid, type DomainError } from "~/utils/errors";
import { isDrawnSignature, typedNameMatches } from "../audit/audit.server";
import { holdsPcrRole, type Actor, type PcrAccess } from "../authz/authz.server";
import type { Recipients } from "../messages/email.server";
import type { PublicUser } from "../people/user.server";
import { literal } from "../shared/sql-literal";
import {
  defineWorkflow,
  type BaseOutcome,
  type BaseState,
  type SlotAsk,
  type StepDef,
  type Who,
} from "../workflow/engine.server";

/** What the chain reads of a PCR: who it concerns, its status and its slots as stored. */
export type PcrChainRecord = PcrAccess & {
  signatures: readonly Pick<StoredSignature, "Name" | "state" | "signedBy" | "onBehalfOf">[];
};

export type PcrSignatureDefinition<Role extends string> = {
  /** The slot's name: the chain role, or "Affected party". */
  role: Role;
  /**
   * The engine's `Who` (app/models/workflow/engine.server.ts): `may` holds the slot in person (a
   * delegate acts for a holder: `slotHolder`), `sql` is its twin over the PCR row `p` ("waiting on
   * me"), `refusal` the 403 message on the API and the page for someone who does not hold it.
   */
  who: Who<PcrAccess>;
  open: {
    /** The statuses it may be signed in (409 otherwise); a comment is taken at any status. */
    statuses: readonly string[];
    /** The chain slots that must be signed before it (409 otherwise). */
    after: readonly PcrRole[];
  };
  /** Its signature manifestation: the role it is signed as and what the signature means. */
  signs: { role: string; meaning: string };
  /** Who is told when it is the next to sign (the parties are told when they are added). */
  notifies?: (pcr: Pick<PcrAccess, "originatorId">) => Recipients;
};

/** `holdsPcrRole` as SQL over `p`: the originator's slot, or a position's holders and its named substitute. */
const holdsSql = (actor: Actor, role: PcrRole): SQL =>
  role === "Change Originator"
    ? sql`p.originator_id = ${actor._id}`
    : sql`(${actor.position === role} or p.substitutes @> ${JSON.stringify([{ role, userId: actor._id }])}::jsonb)`;

const chainSlot = (role: PcrRole, index: number): PcrSignatureDefinition<PcrRole> => ({
  role,
  who: {
    may: (actor, pcr) => holdsPcrRole(actor, pcr, role),
    sql: (actor) => holdsSql(actor, role),
    refusal: `Only the ${role} (or their delegate) can sign or comment this slot`,
  },
  open: { statuses: ["pending"], after: PCR_ROLES.slice(0, index) },
  // What the signing form tells the signer the signature means.
  signs: { role, meaning: `reviewed and approved as ${role}` },
  notifies: (pcr) => (role === "Change Originator" ? { userIds: [pcr.originatorId] } : { positions: [role] }),
});

/** The chain, in signing order. */
export const PCR_CHAIN: readonly PcrSignatureDefinition<PcrRole>[] = PCR_ROLES.map(chainSlot);

/** An affected party signs their own entry, in any order, while the PCR is pending. */
export const AFFECTED_PARTY: PcrSignatureDefinition<"Affected party"> = {
  role: "Affected party",
  who: {
    may: (actor, pcr) => pcr.partyIds.includes(actor._id),
    sql: (actor) => sql`${actor._id}::uuid = any(p.party_ids)`,
    refusal: "Affected parties sign and comment for themselves only",
  },
  open: { statuses: ["pending"], after: [] },
  signs: { role: "Affected party", meaning: "reviewed as an affected party" },
};

export const slotDefinition = (role: PcrRole) => PCR_CHAIN[PCR_ROLES.indexOf(role)]!;

/** The first slot of the chain not yet signed, or undefined when the chain is complete. */
export const nextSlot = <S extends { state: StoredSignature["state"] }>(slots: readonly S[]): S | undefined =>
  slots.find((s) => s.state !== "signed");

/** The role of `p`'s next slot, as SQL (null when the chain is complete). */
export const nextSlotSql = sql`(select s->>'Name' from jsonb_array_elements(p.signatures) with ordinality x(s, o)
        where s->>'state' <> 'signed' order by o limit 1)`;

/** Whether the PCR `p` waits on the actor's slot: its next slot is one they hold (`who.sql` of that slot). */
export const waitsOnSlotSql = (actor: Actor): SQL =>
  sql`(case ${nextSlotSql} ${sql.join(
    PCR_CHAIN.map((d) => sql`when ${d.role} then ${d.who.sql(actor)}`),
    sql` `,
  )} else false end)`;

/**
 * Whether `actor` may sign or comment the slot `role`, and for whom: themselves (`onBehalfOf`
 * null) when they hold it, else the first of `principals` (the absent people who delegated to
 * them today, docs/decisions/023-temporary-changes-and-delegation.md) who holds it. Null when
 * neither. The principal comes back with its own type.
 */
export function slotHolder<P extends Actor>(
  actor: Actor,
  pcr: PcrAccess,
  role: PcrRole,
  principals: readonly P[],
): { onBehalfOf: P | null } | null {
  // A position's slot is every holder's own (`anyHolder`): a delegate signs it for any of them.
  return PCR_WORKFLOW.actingFor(role, actor, pcr, principals);
}

/** The signed slot in which `personId` signed, in person or as the one signed for. */
export const slotSignedBy = (pcr: Pick<PcrChainRecord, "signatures">, personId: string) =>
  pcr.signatures.find((s) => s.state === "signed" && (s.signedBy === personId || s.onBehalfOf === personId));

/**
 * Why the holder found by `slotHolder` may not sign `role` now, or null when they may: the PCR
 * must be pending, the slot free, every earlier slot signed, and one person signs one slot of
 * the chain, whether in person or for someone; nobody's slot is signed for them when they signed
 * another one. The originator's own slot is theirs; the slot of the position they hold falls to
 * their delegate (or an admin-named substitute), who may sign it for them though they signed as
 * Change Originator (docs/decisions/026-four-eyes-by-record.md). The first three are the slot's
 * step not being open (`whyClosed` of `PCR_WORKFLOW`, a 409), the last `oneSlotRefusal` (403): the
 * signing asks them in the same order.
 */
export function signRefusal(
  actor: Actor,
  pcr: PcrChainRecord,
  role: PcrRole,
  onBehalfOf: (Actor & { name: string }) | null,
): DomainError | null {
  const closed = PCR_WORKFLOW.whyClosed(role, pcrState(pcr), String);
  return closed ? new Conflict(closed) : oneSlotRefusal(actor, pcr, role, onBehalfOf);
}

/** One person signs one slot (`signRefusal`'s last rule): the engine asks it once the slot is open. */
export function oneSlotRefusal(
  actor: Actor,
  pcr: PcrChainRecord,
  role: PcrRole,
  onBehalfOf: (Actor & { name: string }) | null,
): DomainError | null {
  const own = slotSignedBy(pcr, actor._id);
  if (own) {
    return new Forbidden(
      `You already signed this PCR as ${own.Name}; one person signs one slot, so someone else must sign as ${role}`,
    );
  }
  const theirs =
    onBehalfOf &&
    pcr.signatures.find(
      (s) =>
        s.state === "signed" &&
        (s.signedBy === onBehalfOf._id || s.onBehalfOf === onBehalfOf._id) &&
        !(s.Name === "Change Originator" && onBehalfOf._id === pcr.originatorId && s.signedBy === onBehalfOf._id),
    );
  if (theirs) {
    return new Forbidden(
      `${onBehalfOf.name} already signed this PCR as ${theirs.Name}; one person signs one slot, so someone else must sign as ${role}`,
    );
  }
  return null;
}

/**
 * The slot `actor` may sign now, and for whom, or null: the next slot, when they (or someone
 * they stand in for) hold it and `signRefusal` has nothing against it. The page offers a sign
 * form for this slot only, so it never offers what the signing refuses.
 */
export function signableSlot<P extends Actor & { name: string }>(
  actor: Actor,
  pcr: PcrChainRecord,
  principals: readonly P[],
): { role: PcrRole; onBehalfOf: P | null } | null {
  const next = nextSlot(pcr.signatures);
  if (!next) return null;
  const holder = slotHolder(actor, pcr, next.Name, principals);
  if (!holder || signRefusal(actor, pcr, next.Name, holder.onBehalfOf)) return null;
  return { role: next.Name, onBehalfOf: holder.onBehalfOf };
}

// ---------------------------------------------------------------------------------------------
// The signatures as steps of the engine

/** "VP Fleet Management signed": the conditions a chain slot opens on, one per slot. */
type SlotSigned = `${PcrRole} signed`;

/** What the steps open on: the PCR's status and which slots of the chain are signed. */
export type PcrState = BaseState & { [C in SlotSigned]: boolean };

/** The record a signing changes: the locked row's access fields, slots and parties (its copy, changed slot by slot). */
export type PcrSigningRecord = PcrAccess & {
  id: string;
  signatures: StoredSignature[];
  affectedParties: StoredAffectedParty[];
};

/** The PCR as a record kind of the engine: what its rules read and what its steps are given. */
export type PcrKind = {
  access: PcrAccess;
  condition: SlotSigned;
  state: PcrState;
  role: "originator";
  status: PcrStatus;
  check: never;
  context: { actor: PublicUser; onBehalfOf: PublicUser | null; pcr: PcrSigningRecord; now: Date };
  outcome: BaseOutcome;
};

export const pcrState = (pcr: PcrChainRecord): PcrState => {
  const signed = Object.fromEntries(
    PCR_ROLES.map((role) => [`${role} signed`, pcr.signatures.some((s) => s.Name === role && s.state === "signed")]),
  ) as { [C in SlotSigned]: boolean };
  return { status: pcr.status, completed: false, isDeleted: false, ...signed };
};

/** What a signature is given: the typed name or drawn PNG, and where the request carries it (its 400's path). */
const signatureInput = z.object({ signature: z.string(), path: z.string() });
type SignatureInput = z.output<typeof signatureInput>;

/** A typed signature must be the signer's own name (a drawn one is a PNG data URL). */
function requireOwnName({ signature, path }: SignatureInput, actor: PublicUser): void {
  if (!isDrawnSignature(signature) && !typedNameMatches(signature, actor.name)) {
    throw new Invalid("A typed signature must be your own full name", [
      { path, message: `Type your name as it is on your account: ${actor.name}` },
    ]);
  }
}

/** The page's name of the affected parties' signature, and its step's. */
export const PARTY_SLOT = "party";

/**
 * A chain slot as a step: open while pending once every earlier slot is signed and it is not
 * (each a 409 naming the slot in the way, the first unsigned earlier one first); signed by whoever
 * holds it, or by a delegate for any holder.
 */
const chainStep = (definition: PcrSignatureDefinition<PcrRole>): StepDef<PcrKind, typeof signatureInput> => {
  const { role } = definition;
  return {
    // Signed on the record's page itself (its `slot` field names the role).
    path: "",
    part: `the ${role} signature`,
    who: { ...definition.who, anyHolder: true },
    signs: () => definition.signs.role,
    open: {
      statuses: definition.open.statuses as PcrStatus[],
      requires: [
        [`${role} signed`, false, `The ${role} slot is already signed`],
        ...definition.open.after.map((earlier): [SlotSigned, boolean, string] => [
          `${earlier} signed`,
          true,
          `The ${earlier} must sign before the ${role}`,
        ]),
      ],
    },
    owner: role === "Change Originator" ? { roles: ["originator"] } : { roles: [], otherwise: role },
    form: signatureInput,
    bodyKey: "signatures",
    async apply({ actor, onBehalfOf, pcr, now, input }) {
      requireOwnName(input, actor);
      Object.assign(
        pcr.signatures.find((s) => s.Name === role)!,
        {
          state: "signed",
          signature: input.signature.trim(),
          signatureDate: now.toISOString(),
          signedBy: actor._id,
          onBehalfOf: onBehalfOf?._id ?? null,
        },
      );
      return {
        action: onBehalfOf
          ? `Signed as acting ${definition.signs.role}, on behalf of ${onBehalfOf.name}`
          : `Signed as ${definition.signs.role}`,
        meaning: definition.signs.meaning,
      };
    },
  };
};

/** The affected parties' signature as a step: each party signs their own entry, while the PCR is pending. */
const partyStep: StepDef<PcrKind, typeof signatureInput> = {
  path: "",
  part: "the affected party's signature",
  who: AFFECTED_PARTY.who,
  signs: () => AFFECTED_PARTY.signs.role,
  open: { statuses: AFFECTED_PARTY.open.statuses as PcrStatus[] },
  owner: { roles: [], otherwise: "the affected parties" },
  form: signatureInput,
  bodyKey: "affectedParties",
  async apply({ actor, pcr, now, input }) {
    requireOwnName(input, actor);
    Object.assign(
      pcr.affectedParties.find((p) => p.userId === actor._id)!,
      {
        state: "signed",
        signature: input.signature.trim(),
        signatureDate: now.toISOString(),
      },
    );
    return { action: "Signed as affected party", meaning: AFFECTED_PARTY.signs.meaning };
  },
};

const PCR_STEPS = {
  ...(Object.fromEntries(PCR_CHAIN.map((definition) => [definition.role, chainStep(definition)])) as {
    [R in PcrRole]: StepDef<PcrKind, typeof signatureInput>;
  }),
  [PARTY_SLOT]: partyStep,
};

/** What a signing asks of one slot: to sign it, to comment on it, or both (the engine's `SlotAsk`). */
export type PcrSlotAsk = SlotAsk<typeof PCR_STEPS>;

/** A chain slot's "signed" as SQL over `p`. */
const slotSignedSql = (role: PcrRole): SQL =>
  sql`exists (select 1 from jsonb_array_elements(p.signatures) s where s->>'Name' = ${literal(role)}
    and s->>'state' = 'signed')`;

/**
 * The PCR's workflow: its signatures over `pcrs p`, the chain in order and then the parties'
 * (so the step a PCR waits for is its next slot, and the parties' once the chain is signed).
 * pcr-signing.server.ts gives it its load and write.
 */
export const PCR_WORKFLOW = defineWorkflow<PcrKind, typeof PCR_STEPS>(
  {
    kind: "pcr",
    noun: "PCR",
    alias: "p",
    roles: { originator: { holder: (pcr) => pcr.originatorId, column: sql`p.originator_id` } },
    conditions: Object.fromEntries(PCR_ROLES.map((role) => [`${role} signed`, slotSignedSql(role)])) as {
      [C in SlotSigned]: SQL;
    },
    restingSql: sql`p.status <> 'pending'`,
    // A PCR is never "completed" apart from its status (`pcrState`): it is finished.
    completedSql: sql`false`,
    statusLabel: (status) => status,
    notOpenIn: (status) => `This PCR is already ${status}`,
  },
  [...PCR_ROLES, PARTY_SLOT],
  PCR_STEPS,
);
