/**
 * A follow-up MOC (issue 42, docs/decisions/058-effectiveness-review.md): raised from a cancelled
 * plan item, or from an effectiveness review that found the change partly or not effective. Part A
 * opens prefilled from the original (`followUpSource`: its title, its vessel, the cancellation
 * reason or the review's comment, read here, never taken from the URL), and the new MOC is linked
 * to the original ("follow-up of", record-links.server.ts) in its creation's transaction.
 */
import { getDb } from "~/utils/db.server";
import { Conflict, Forbidden, Invalid, NotFound } from "~/utils/errors";
import { canReadMoc, type Actor } from "../authz/authz.server";
import { effectivenessReviewOf } from "./effectiveness.server";
import { EFFECTIVENESS_RESULT_WORDS, needsFollowUp } from "./effectiveness.constants";
import { followUpTitle } from "./follow-up.constants";
import { loadMocAccess, loadMocDocument } from "./moc-query.server";
import { titleOf } from "./moc-names";
import { readRecordRef, type RecordRef } from "../records/record-refs.constants";

/** What Part A opens with for a follow-up. */
export type FollowUpSource = {
  /** "moc:<id>": the original, posted back with Part A. */
  ref: string;
  mocId: string;
  serial: string;
  /** "Follow-up: <title>". */
  title: string;
  /** The original's scope as the Part A select posts it: a vessel's id, "office" or "fleet"; null when not recorded. */
  vessel: string | null;
  /** What it follows up, in words ("the cancelled action “Fit the spare pump”"). */
  what: string;
  /** The reason for change: what it follows up and why. */
  reason: string;
};

/** The original MOC a follow-up names (`followUp=moc:<id>`): 400 when not a MOC reference. */
export function followUpRef(text: unknown, path = "followUp"): RecordRef {
  const read = readRecordRef(text);
  if (!read.ok || read.ref.kind !== "moc") {
    throw new Invalid('A follow-up names the original MOC as "moc:<id>"', [
      { path, message: read.ok ? 'Expected "moc:<id>": a follow-up MOC follows up a MOC' : read.message },
    ]);
  }
  return read.ref;
}

/**
 * Part A's prefill for a follow-up of the MOC `followUp` (`moc:<id>`), from its cancelled plan item
 * `item` or from its effectiveness review (`review`). 404 for a MOC the actor may not read (or no
 * such item), 409 when the item is not cancelled or the review did not find the change partly or
 * not effective.
 */
export async function followUpSource(
  actor: Actor,
  query: { followUp: string; item?: string | null; review?: boolean },
): Promise<FollowUpSource> {
  const ref = followUpRef(query.followUp);
  const access = await loadMocAccess(ref.id, getDb()).catch(() => null);
  if (!access || access.isDeleted) throw new NotFound("No MOC with this id");
  if (!canReadMoc(actor, access)) throw new Forbidden("You are not involved in this MOC");
  const doc = (await loadMocDocument(ref.id))!;
  const label = `MOC ${doc.serial_num}`;
  let what: string;
  let why: string | null;
  if (query.item) {
    const action = doc.action.items.find((i) => i._id === query.item);
    const manual = doc.manual_plan.items.find((i) => i._id === query.item);
    const item = action ?? manual;
    if (!item) throw new NotFound("There is no such item in this MOC's plans");
    if (!item.cancelled)
      throw new Conflict("This plan item is not cancelled; a follow-up MOC starts from a cancelled one");
    what = action
      ? `the cancelled action “${action.description}”`
      : `the cancelled manuals and drawings item “${manual!.document}”`;
    why = item.cancelled.reason;
  } else if (query.review) {
    const review = await effectivenessReviewOf(ref.id);
    if (!review?.result || !needsFollowUp(review.result)) {
      throw new Conflict("This MOC's effectiveness review did not find it partly or not effective");
    }
    what = `its effectiveness review (${EFFECTIVENESS_RESULT_WORDS[review.result].toLowerCase()})`;
    why = review.comment;
  } else {
    what = label;
    why = null;
  }
  const vessel = doc.originator_form?.vessel?.value;
  return {
    ref: `moc:${ref.id}`,
    mocId: ref.id,
    serial: doc.serial_num,
    title: followUpTitle(titleOf(doc.originator_form), doc.serial_num),
    vessel: vessel ? (typeof vessel === "string" ? vessel : vessel._id) : null,
    what: what === label ? label : `${label}: ${what}`,
    reason: why ? `Follow-up of ${label}, ${what}: ${why}` : `Follow-up of ${label}`,
  };
}
