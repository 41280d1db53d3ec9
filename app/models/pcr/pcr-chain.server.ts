/**
 * A PCR's signatures declared once, as a table of steps shaped like a step of the workflow engine
 * (`who` is the engine's `Who`: predicate, SQL twin and refusal; then `open` and `signs`): the six
 * chain slots in order, then the affected parties' signature. The engine's runner does not run
 * them (docs/decisions/046-workflow-engine.md says why). "The
 * next slot", "who may sign now" and one person one slot are written here only; the signing
 * (pcr-signing.server.ts), the record page's forms, "waiting on me" and the lists read them.
 * docs/decisions/005-pcr-signatures.md and 026-four-eyes-by-record.md.
 */
import { sql, type SQL } from "drizzle-orm";
import { PCR_ROLES, type PcrRole } from "#db/schema/enums";
import type { StoredSignature } from "#db/schema";
import { Conflict, Forbidden, type DomainError } from "~/utils/errors";
import { holdsPcrRole, type Actor, type PcrAccess } from "../authz/authz.server";
import type { Recipients } from "../messages/email.server";
import type { Who } from "../workflow/engine.server";

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
  const { may } = slotDefinition(role).who;
  if (may(actor, pcr)) return { onBehalfOf: null };
  const principal = principals.find((p) => may(p, pcr));
  return principal ? { onBehalfOf: principal } : null;
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
 * Change Originator (docs/decisions/026-four-eyes-by-record.md).
 */
export function signRefusal(
  actor: Actor,
  pcr: PcrChainRecord,
  role: PcrRole,
  onBehalfOf: (Actor & { name: string }) | null,
): DomainError | null {
  const definition = slotDefinition(role);
  const slot = pcr.signatures.find((s) => s.Name === role)!;
  if (!definition.open.statuses.includes(pcr.status)) return new Conflict(`This PCR is already ${pcr.status}`);
  if (slot.state === "signed") return new Conflict(`The ${role} slot is already signed`);
  const waiting = pcr.signatures.find((s) => definition.open.after.includes(s.Name) && s.state !== "signed");
  if (waiting) return new Conflict(`The ${waiting.Name} must sign before the ${role}`);
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
