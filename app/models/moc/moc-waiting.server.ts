/**
 * The MOC's waiting work as its registry entry gives it (docs/decisions/060-record-kinds.md): the
 * steps waiting on a reader (`pendingActions`, actions.server.ts), each one line of "Waiting on me".
 * The dashboard lays the MOC's steps out in a section of its own and reads the same rules here
 * (where a step leads, how its description is cut), so both say the same of a step.
 */
import { richTextToPlain } from "~/utils/sanitize.server";
import type { Actor } from "../authz/authz.server";
import type { WaitingItem, WaitingWork } from "../record-kind/record-kind";
import { pendingActions, type PendingAction } from "./actions.server";
import { EXPIRED_NOT_RESTORED } from "./moc-closure";
import { mocName, titleOf } from "./moc-names";
import { stepLink } from "./moc-steps.server";

/** How much of the change's description a line of waiting work carries (the page carries it too). */
const DETAIL_LENGTH = 140;

/** One step waiting on the reader as a line of "Waiting on me". */
export function waitingItemOfStep(action: PendingAction): WaitingItem {
  const { part, path } = stepLink(action.type);
  const { moc } = action;
  const detail = richTextToPlain(moc.originator_form?.["description-of-change"]?.value ?? "").slice(0, DETAIL_LENGTH);
  return {
    kind: "moc",
    recordId: moc._id,
    text: `${mocName(moc.serial_num, titleOf(moc.originator_form))}: ${part}`,
    // Waiting on them to see it done, not theirs to submit (an expired temporary change): the record.
    path: action.mayAct ? `/mocs/${moc._id}/${path}` : `/mocs/${moc._id}`,
    waitingSince: action.waitingSince,
    dueOn: moc.target_date,
    badge: action.stage
      ? { text: action.stage, tone: action.stage === EXPIRED_NOT_RESTORED ? "danger" : "warning" }
      : null,
    detail: detail || null,
  };
}

/** The MOC steps waiting on the reader, the longest-waiting first: the MOC kind's `waiting`. */
export async function waitingMocSteps(actor: Actor, options: { limit?: number }): Promise<WaitingWork> {
  const { actions, total } = await pendingActions(actor, { limit: options.limit });
  return { items: actions.map(waitingItemOfStep), total };
}
