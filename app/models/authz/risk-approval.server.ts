/**
 * Risk decides who approves (docs/decisions/037-risk-ranking-and-approvals.md). A High MOC needs,
 * after the approver's yes, a second approval by the holder of the position set for High; an
 * Extreme one that and then the holder of the position set for Extreme. The MOC stays at `d` until
 * the last; each approval given before it is a trail entry `d` -> `d` starting with
 * `APPROVAL_STAGE_ACTION`, with its signature manifestation, so the current round's approvals are
 * read from the trail (entries after the MOC last came to `d`). Each approver is independent of the
 * MOC (four eyes, `isIndependentOf` for an approval) and of the round's other approvers.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Actor, MocAccess } from "./authz.server";
import {
  APPROVAL_STAGE_ACTION,
  approvalOwed,
  RISK_LEVEL_LABEL,
  RISK_LEVELS,
  type ApprovalStage,
  type RiskLevel,
} from "../risk/risk";

/** What the approver step reads of a MOC's risk and its approvals (`MocAccess["approval"]`). */
export type ApprovalState = {
  /** The level the approvals follow: the ranking, never below the level HSEQ reviewed (`approvalLevel`). */
  level: RiskLevel | null;
  /** Approvals given in this round while the MOC stayed at `d`, oldest first. */
  given: number;
  /** Who gave them (and whom they acted for). */
  givenIds: readonly string[];
  highPosition: string;
  extremePosition: string;
};

const LEVELS_SQL = sql.raw(`array[${RISK_LEVELS.map((l) => `'${l}'`).join(", ")}]`);

/** `higherLevel` as SQL: the higher of two level expressions (null below Low). */
export const higherLevelSql = (a: SQL, b: SQL): SQL =>
  sql`(case when array_position(${LEVELS_SQL}, ${b}) > coalesce(array_position(${LEVELS_SQL}, ${a}), 0) then ${b} else ${a} end)`;

/** `approvalLevel` as SQL over `m`: the level the MOC's approvals follow. */
export const APPROVAL_LEVEL_SQL = higherLevelSql(sql`m.risk_level`, sql`m.reviewed_risk_level`);

const LITERAL_PREFIX = sql.raw(`'${APPROVAL_STAGE_ACTION.replace(/'/g, "''")}%'`);

/** The trail entries `l` of this round's approvals given at `d`, as a condition over `m` and `l`. */
const ROUND_APPROVAL = sql`l.moc_id = m.id and l.from_status = 'd' and l.to_status = 'd' and l.action like ${LITERAL_PREFIX}
  and l.seq > coalesce((select max(r.seq) from moc_logs r where r.moc_id = m.id and r.to_status = 'd'
    and r.from_status is distinct from 'd'), 0)`;

/** `ApprovalState` as SQL over `m` (read with the MOC's row, like `ACTED_SQL`). */
export const APPROVAL_SQL = sql<ApprovalState>`(select json_build_object('level', ${APPROVAL_LEVEL_SQL},
    'given', (select count(*) from moc_logs l where ${ROUND_APPROVAL}),
    'givenIds', coalesce((select json_agg(p.person) from moc_logs l
      cross join lateral (values (l.user_id), (l.on_behalf_of)) p(person)
      where ${ROUND_APPROVAL} and p.person is not null), '[]'::json),
    'highPosition', s.high_position, 'extremePosition', s.extreme_position)
  from risk_settings s where s.id = 1)`;

/** The approval the MOC waits for at `d`, or null when every one it needs is given. */
export function pendingApproval(state: ApprovalState | null | undefined): ApprovalStage | null {
  return approvalOwed(state?.level, state?.given ?? 0);
}

/** `pendingApproval` as SQL over `m`: 'approver', 'high', 'extreme' or null. */
export const PENDING_APPROVAL_SQL = sql`(case (select count(*) from moc_logs l where ${ROUND_APPROVAL})
  when 0 then 'approver'
  when 1 then case when ${APPROVAL_LEVEL_SQL} in ('high', 'extreme') then 'high' end
  when 2 then case when ${APPROVAL_LEVEL_SQL} = 'extreme' then 'extreme' end end)`;

/** The position whose holder gives the approval of `stage` (null for the approver's own). */
export const positionOf = (stage: ApprovalStage, state: ApprovalState | null | undefined) =>
  stage === "high" ? (state?.highPosition ?? null) : stage === "extreme" ? (state?.extremePosition ?? null) : null;

/** How the approval of `stage` is named: "the High-risk approval by the Director HSEQ". */
export const approvalName = (stage: ApprovalStage, state: ApprovalState | null | undefined) =>
  stage === "approver"
    ? "the approver's approval"
    : `the ${RISK_LEVEL_LABEL[stage]}-risk approval by the ${positionOf(stage, state)}`;

/**
 * Whether the actor may give the approval the MOC waits for, independence aside (the approver
 * step adds `isIndependentOf`): the assigned approver first, then the holder of each position,
 * never someone who already gave one of this round's approvals.
 */
export function mayGiveApproval(actor: Actor, moc: MocAccess): boolean {
  const stage = pendingApproval(moc.approval);
  if (stage === "approver") return moc.approverId === actor._id;
  if (!stage) return false;
  return actor.position === positionOf(stage, moc.approval) && !(moc.approval?.givenIds ?? []).includes(actor._id);
}

/** `mayGiveApproval` as SQL over `m`. */
export const mayGiveApprovalSql = (actor: Actor): SQL => sql`(case ${PENDING_APPROVAL_SQL}
  when 'approver' then m.approver_id = ${actor._id}
  when 'high' then ${actor.position ?? ""} = (select s.high_position from risk_settings s where s.id = 1)
    and not exists (select 1 from moc_logs l where ${ROUND_APPROVAL} and ${actor._id} in (l.user_id, l.on_behalf_of))
  when 'extreme' then ${actor.position ?? ""} = (select s.extreme_position from risk_settings s where s.id = 1)
    and not exists (select 1 from moc_logs l where ${ROUND_APPROVAL} and ${actor._id} in (l.user_id, l.on_behalf_of))
  else false end)`;

/** Who a second approval waits on, in words, as SQL over `m` (the list's "waiting on"): its holders' names, else the position. */
export const SECOND_APPROVER_SQL = sql`(select coalesce(string_agg(u.name, ' or ' order by u.name),
    case ${PENDING_APPROVAL_SQL} when 'high' then s.high_position else s.extreme_position end)
  from risk_settings s left join users u on u.active
    and u.position = case ${PENDING_APPROVAL_SQL} when 'high' then s.high_position else s.extreme_position end
  where s.id = 1 group by s.high_position, s.extreme_position)`;
