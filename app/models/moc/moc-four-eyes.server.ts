/**
 * Four eyes on a MOC (docs/decisions/021-records-people-can-trust.md, 026-four-eyes-by-record.md):
 * who counts as a maker, reviewer or approver of the change (from its trail and manifestations),
 * why a person is not independent of it, the same rule as SQL over `m`, what an assignment may not
 * do, and the check-step's `who` that applies it. The steps (steps/) and the engine's
 * `independence` read these.
 */
import { sql, type SQL } from "drizzle-orm";
import { isDecisionPending, mocApprovedSql, type Actor, type MocAccess, type MocProgress } from "../authz/authz.server";
import { APPROVAL_STAGE_ACTION } from "../risk/risk";
import type { Role } from "./steps/shape.server";
import { literal } from "../shared/sql-literal";

/**
 * What a check is judged against: a plain check (a deviation decision, a verification, the end of
 * a temporary change) against the makers of the change; the HSEQ review also against its approval
 * and the approval also against its review (one person may not take both); the verification that
 * closes the MOC also against whoever cancelled one of its plan items (issue 38 item 7: cancelling
 * what was not done and closing the MOC are two people's decisions).
 */
export type CheckKind = "check" | "review" | "approval" | "closing";

/** The words of the trail entries (moc_logs.action) the four-eyes rule reads, written by the steps below. */
export const TRAIL_ACTIONS = {
  partAUpdated: "Updated Part A",
  restored: "Reported the original condition restored",
  extensionAsked: "Asked to extend the temporary change to ",
  permanent: "Made the temporary change permanent",
  /** A plan item cancelled (plan-items.server.ts): "Cancelled the action “…”". */
  cancelledItem: "Cancelled the ",
} as const;

/**
 * The trail entries `l` (moc_logs) that make their author, and the absent person they acted for,
 * a maker of the change: the MOC created (or cloned), Part A submitted or updated, Part B submitted (or declined), Part E
 * reported, and the implementer's ends of a temporary change. Step moves are told apart by the
 * status they left; the few that stay in place by their words.
 */
const MAKER_ENTRY = sql`(l.from_status is null or (l.from_status = 'a' and l.to_status = 'b')
  or (l.from_status = 'b' and l.to_status in ('c', 'decline'))
  or (l.from_status = 'e' and l.to_status in ('f', 'b'))
  or l.action = ${literal(TRAIL_ACTIONS.partAUpdated)} or l.action = ${literal(TRAIL_ACTIONS.restored)}
  or l.action like ${literal(`${TRAIL_ACTIONS.extensionAsked}%`)} or l.action like ${literal(`${TRAIL_ACTIONS.permanent}%`)})`;
/** The trail entries of the HSEQ review (Part C): the only step that leaves `c`. */
const REVIEW_ENTRY = sql`(l.from_status = 'c' and l.to_status in ('d', 'b'))`;
/**
 * The trail entries of the approval (Part D): the only step that leaves `d`, and the approvals it
 * records at `d` on a High or Extreme MOC (docs/decisions/037-risk-ranking-and-approvals.md).
 */
const APPROVAL_ENTRY = sql`(l.from_status = 'd' and (l.to_status in ('e', 'decline')
  or (l.to_status = 'd' and l.action like ${literal(`${APPROVAL_STAGE_ACTION}%`)})))`;

/** The trail entries of a plan item cancelled. */
const CANCEL_ENTRY = sql`(l.action like ${literal(`${TRAIL_ACTIONS.cancelledItem}%`)})`;

/**
 * Everyone who acted on the MOC so far, from its trail and its signature manifestations (the
 * acting person and the absent person they acted for alike), as SQL over `m`: a JSON object of
 * `MocAccess["acted"]`. Read with the MOC's row, in the statement that loads it.
 */
export const ACTED_SQL = sql<MocAccess["acted"]>`(select json_build_object(
    'makerIds', coalesce(json_agg(distinct x.person) filter (where x.kind = 'maker'), '[]'::json),
    'reviewerIds', coalesce(json_agg(distinct x.person) filter (where x.kind = 'review'), '[]'::json),
    'approverIds', coalesce(json_agg(distinct x.person) filter (where x.kind = 'approval'), '[]'::json),
    'cancellerIds', coalesce(json_agg(distinct x.person) filter (where x.kind = 'cancel'), '[]'::json),
    'approved', ${mocApprovedSql()})
  from (
    select case when ${MAKER_ENTRY} then 'maker' when ${REVIEW_ENTRY} then 'review'
        when ${APPROVAL_ENTRY} then 'approval' when ${CANCEL_ENTRY} then 'cancel' end as kind, p.person
      from moc_logs l cross join lateral (values (l.user_id), (l.on_behalf_of)) p(person)
      where l.moc_id = m.id and p.person is not null
    union all
    select 'maker', p.person from signature_manifestations s
      cross join lateral (values (s.signer_id), (s.on_behalf_of)) p(person)
      where s.record_kind = 'moc' and s.record_id = m.id and s.role = 'Implementer' and p.person is not null
  ) x where x.kind is not null)`;

type Independence = Pick<MocAccess, "originatorId" | "implementerId" | "approverId" | "acted">;

/**
 * Why the person is not independent of the MOC for a check of `kind`, in words ("the
 * originator"), or null when they are. Judged against everyone who acted on the record (its trail
 * and manifestations), not only the people it names now: a reassignment cannot turn a maker into
 * a checker.
 */
export function dependenceOf(userId: string, moc: Independence, kind: CheckKind = "check"): string | null {
  const acted = moc.acted ?? NOBODY_ACTED;
  const roles = [
    userId === moc.originatorId ? "the originator" : null,
    userId === moc.implementerId ? "the implementer" : null,
    userId !== moc.originatorId && userId !== moc.implementerId && acted.makerIds.includes(userId)
      ? "an author of Part A, B or E"
      : null,
    kind === "review" && (userId === moc.approverId || acted.approverIds.includes(userId)) ? "the approver" : null,
    kind === "approval" && acted.reviewerIds.includes(userId) ? "the HSEQ reviewer" : null,
    kind === "closing" && (acted.cancellerIds ?? []).includes(userId) ? CANCELLER : null,
  ].filter(Boolean);
  return roles.length ? roles.join(" and ") : null;
}

const CANCELLER = "the one who cancelled a plan item";

/** Nobody acted yet (a record read without its trail). */
export const NOBODY_ACTED: MocAccess["acted"] = {
  makerIds: [],
  reviewerIds: [],
  approverIds: [],
  cancellerIds: [],
  approved: false,
};

/**
 * The person is independent of the MOC for a check of `kind`: neither its originator nor its
 * implementer nor anyone who made the change (from the trail), and for the review and the approval
 * not the one who took the other. The one rule for every check-step, every assignment path and
 * (through `independentSql`) every list; a delegate is held to it too.
 */
export const isIndependentOf = (userId: string, moc: Independence, kind: CheckKind = "check") =>
  dependenceOf(userId, moc, kind) === null;

/** `isIndependentOf` as SQL over `m` for the person whose id is `userId` (a value or a placeholder). */
export const independentSql = (userId: unknown, kind: CheckKind = "check"): SQL => {
  const entries = [
    MAKER_ENTRY,
    ...(kind === "review"
      ? [APPROVAL_ENTRY]
      : kind === "approval"
        ? [REVIEW_ENTRY]
        : kind === "closing"
          ? [CANCEL_ENTRY]
          : []),
  ];
  return sql`(m.originator_id <> ${userId} and m.implementer_id is distinct from ${userId}
    ${kind === "review" ? sql`and m.approver_id is distinct from ${userId}` : sql``}
    and not exists (select 1 from moc_logs l where l.moc_id = m.id and ${userId} in (l.user_id, l.on_behalf_of)
      and (${sql.join(entries, sql` or `)}))
    and not exists (select 1 from signature_manifestations s where s.record_kind = 'moc' and s.record_id = m.id
      and s.role = 'Implementer' and ${userId} in (s.signer_id, s.on_behalf_of)))`;
};

/** The 400 message and field issue when an assignment would break four eyes. */
export const FOUR_EYES_ASSIGNMENT = (who: string, role: string) =>
  `${who} cannot be the ${role}: nobody reviews, approves or verifies their own change, and one person does not both review and approve it (four eyes)`;

/** The check of each assignable checker role: the kind its step judges four eyes by. */
const CHECK_OF_ROLE = { approver: "approval", verifier: "check", hseq: "review" } as const;

/**
 * Whether putting `userId` in `role` of the MOC would break four eyes: the 400 message, or null.
 * A checker (approver, verifier, HSEQ reviewer) must be independent of the MOC, judged against
 * everyone who acted on it; an implementer must be none of its checkers, now or before.
 */
export function fourEyesAssignment(
  moc: Pick<MocAccess, "originatorId" | "implementerId" | "approverId" | "verifierId" | "hseqId" | "acted">,
  role: "implementer" | "approver" | "verifier" | "hseq",
  userId: string,
  name: string,
): string | null {
  if (role === "implementer") {
    const acted = moc.acted ?? NOBODY_ACTED;
    const checker =
      (["approver", "verifier", "hseq"] as const).find((r) => moc[`${r}Id`] === userId) ??
      (acted.reviewerIds.includes(userId) ? "hseq" : acted.approverIds.includes(userId) ? "approver" : undefined);
    return checker
      ? `${name}, the ${checker === "hseq" ? "HSEQ reviewer" : checker} of this MOC, cannot also be its implementer: nobody reviews, approves or verifies their own change (four eyes)`
      : null;
  }
  const dependence = dependenceOf(userId, moc, CHECK_OF_ROLE[role]);
  return dependence
    ? FOUR_EYES_ASSIGNMENT(`${name}, ${dependence} of this MOC,`, role === "hseq" ? "HSEQ reviewer" : role)
    : null;
}

export type Who = { may: (actor: Actor, moc: MocAccess) => boolean; sql: (actor: Actor) => SQL; refusal: string };

/**
 * A check-step's `who`: the rule `base` and independence of the MOC for a check of `kind`, for
 * admins too. `conflict` names why someone `base` alone would allow is refused (the 403 message).
 */
export const independent = (
  base: Who,
  doing: string,
  kind: CheckKind = "check",
): Who & { independent: CheckKind; conflict: (actor: Actor, moc: MocAccess) => string | null } => ({
  independent: kind,
  may: (actor, moc) => base.may(actor, moc) && isIndependentOf(actor._id, moc, kind),
  sql: (actor) => sql`(${base.sql(actor)} and ${independentSql(actor._id, kind)})`,
  refusal: base.refusal,
  conflict: (actor, moc) => {
    const dependence = base.may(actor, moc) ? dependenceOf(actor._id, moc, kind) : null;
    return dependence ? fourEyesRefusal(dependence, doing, kind) : null;
  },
});

/**
 * The 403 of a check refused for four eyes: who the person is to the MOC, the rule, and, when they
 * cancelled one of its plan items, what to do (another person closes it: a verifier can be named
 * on the MOC's page).
 */
export const fourEyesRefusal = (dependence: string, doing: string, kind: CheckKind): string =>
  `You are ${dependence} of this MOC, so you cannot ${doing} it: nobody reviews, approves or verifies their own change, and one person does not both review and approve it (four eyes)` +
  (kind === "closing" && dependence.includes(CANCELLER)
    ? `; deciding that an item need not be done and closing the MOC are two people's decisions, so another person verifies it (the originator or an admin names a verifier on the MOC's page)`
    : "");

/**
 * Assignments of this MOC that already break four eyes (records from before the rule): one
 * sentence each, naming who may reassign. The record page shows them; the step refuses meanwhile.
 */
export function fourEyesConflicts(moc: MocAccess & MocProgress): string[] {
  const checkers: [Role, string, string | null][] = [
    ["approver", "approve it", moc.approverId],
    ["verifier", "verify it", moc.verifierId],
    ["hseq", moc.verifierId ? "resolve its deviations and extensions" : "verify it", moc.hseqId],
  ];
  return checkers.flatMap(([role, doing, id]) => {
    const dependence = id ? dependenceOf(id, moc, role === "approver" ? "approval" : "check") : null;
    if (!dependence) return [];
    const label = role === "hseq" ? "assigned HSEQ user" : role;
    const fix =
      role === "hseq"
        ? "The implementer names another HSEQ user in Part B while the MOC is at the assessment; otherwise an admin assigns a verifier."
        : role === "approver" && isDecisionPending("approver", moc)
          ? // docs/decisions/034-approved-content-and-deleting.md: a pending decider changes by admins or HSEQ.
            "An admin or the HSEQ department can assign another approver below, giving the reason."
          : `The originator or an admin can assign another ${role} below.`;
    return [`The ${label} is also ${dependence} of this MOC, so they cannot ${doing} (four eyes). ${fix}`];
  });
}
