/** What the MOC pages share on the server: loading a record for a page, and what its viewer may do now. */
import {
  canEditMocPlans,
  canManageMoc,
  canViewMoc,
  mayActOnStep,
  type MocAccess,
  type MocStep,
} from "~/models/authz.server";
import { loadMocAccess, loadMocDocument, type MocDocument } from "~/models/moc-query.server";
import { listUsers, type PublicUser } from "~/models/user.server";
import { requirePageUser } from "./auth.server";
export { STEP_PATH } from "~/models/moc-status";
import { getDb } from "./db.server";
import { Forbidden, NotFound } from "./errors";
import { pageError } from "./page.server";

export type MocAccessRow = MocAccess & { id: string; isDeleted: boolean; serialNum: string };

type Deviations = {
  _id: string;
  deviation: { resolved: boolean } | null;
  extension: { resolved: boolean } | null;
} | null;

export const outstandingDeviation = (doc: MocDocument) => {
  const d = doc.extentionsAndDeviations as Deviations;
  return Boolean(d && ((d.deviation && !d.deviation.resolved) || (d.extension && !d.extension.resolved)));
};

const implementerSubmitted = (doc: MocDocument) =>
  Boolean((doc.implementer_form as { submittedAt?: string | null } | null)?.submittedAt);

/** The step the MOC waits for now (by status), or null when nothing is open. */
export function stepOpenNow(doc: MocDocument): MocStep | null {
  if (doc.completed || doc.isDeleted) return null;
  switch (doc.status) {
    case "a":
      return "originator";
    case "b":
      return outstandingDeviation(doc) ? "deviation-extension" : "implementer";
    case "c":
      return "hseq";
    case "d":
      return "approver";
    case "e":
      return "implementation";
    case "f":
      return "verifier";
    default:
      return null;
  }
}

/** Steps this viewer can submit right now (Part A can also be revised before Part B exists). */
export function openStepsFor(actor: PublicUser, access: MocAccess, doc: MocDocument): MocStep[] {
  const steps = new Set<MocStep>();
  const now = stepOpenNow(doc);
  if (now && mayActOnStep[now](actor, access)) steps.add(now);
  if (
    doc.status === "b" &&
    !implementerSubmitted(doc) &&
    !outstandingDeviation(doc) &&
    mayActOnStep.originator(actor, access)
  ) {
    steps.add("originator");
  }
  return [...steps];
}

type UserRef = { name?: string } | null;

/** Who owns the step the MOC waits for, in words. */
export function currentOwner(doc: MocDocument): string | null {
  const name = (ref: unknown) => (ref as UserRef)?.name ?? null;
  switch (stepOpenNow(doc)) {
    case "originator":
      return name(doc.originator_id);
    case "implementer":
    case "implementation":
      return name(doc.implementer_id);
    case "hseq":
      return name(doc.hseq_id) ? `${name(doc.hseq_id)} (HSEQ)` : "HSEQ department";
    case "approver":
      return name(doc.approver_id);
    case "deviation-extension":
      return [name(doc.approver_id), name(doc.hseq_id)].filter(Boolean).join(" or ");
    case "verifier":
      return name(doc.verifier_id) ?? name(doc.hseq_id);
    default:
      return null;
  }
}

/** A MOC for a page: the error page for an unknown/deleted one (404) or one the user may not see (403). */
export async function requireMocForPage(request: Request, id: string | undefined) {
  const user = await requirePageUser(request);
  const access = id ? await loadMocAccess(id, getDb()).catch(() => null) : null;
  if (!access || access.isDeleted) pageError(new NotFound("There is no such MOC, or it was deleted."));
  if (!canViewMoc(user, access)) pageError(new Forbidden("You are not involved in this MOC, so you cannot see it."));
  const doc = (await loadMocDocument(access.id))!;
  return { user, access, doc };
}

export function mocPermissions(user: PublicUser, access: MocAccess, doc: MocDocument) {
  return {
    openSteps: openStepsFor(user, access, doc),
    canManage: canManageMoc(user, access) && !doc.isDeleted,
    canEditPlans: canEditMocPlans(user, access),
  };
}

/** Active people for the pickers. */
export async function activeUserOptions() {
  return (await listUsers())
    .filter((u) => u.active)
    .map((u) => ({ _id: u._id, name: u.name, department: u.department }));
}
