/** What the MOC pages share on the server: loading a record for a page, and what its viewer may do now. */
import {
  type Actor,
  approvedContentFrozen,
  canDeleteMoc,
  canEditMocPlans,
  canManageMoc,
  canMarkPlanItem,
  canReassignPendingDecider,
  canReadMoc,
  canViewMocAs,
  deleteNeedsReason,
  isDecisionPending,
  isMocOpen,
  mayCancelPlanItems,
  type MocAccess,
  type MocProgress,
} from "~/models/authz/authz.server";
import type { MocDocument } from "~/models/moc/moc-document";
import { loadMocAccess, loadMocDocument } from "~/models/moc/moc-query.server";
import { principalsOf } from "~/models/people/delegation.server";
import { actingFor, openStepsFor, stateOfDocument, stepLink, type MocStep } from "~/models/moc/moc-steps.server";
import { listUsers, type PublicUser } from "~/models/people/user.server";
import { requirePageUser } from "./auth.server";
import { getDb } from "~/utils/db.server";
import { Forbidden, NotFound } from "~/utils/errors";
import { pageError } from "~/utils/page.server";

/**
 * A MOC for a page: the error page for an unknown/deleted one (404) or one the user may not see
 * (403). A delegate sees what the absent people they stand in for today see (`principals`).
 */
export async function requireMocForPage(request: Request, id: string | undefined) {
  const user = await requirePageUser(request);
  const access = id ? await loadMocAccess(id, getDb()).catch(() => null) : null;
  if (!access || access.isDeleted) pageError(new NotFound("There is no such MOC, or it was deleted."));
  const principals = await principalsOf(getDb(), user._id);
  if (!canReadMoc(user, access) && !canViewMocAs(user, access, principals)) {
    pageError(new Forbidden("You are not involved in this MOC, so you cannot see it."));
  }
  const doc = (await loadMocDocument(access.id))!;
  return { user, access, doc, principals };
}

/**
 * `actingFor` answering with the caller's own principals: the person a step is taken for is one of
 * `principals` (the very object), so a page holding `PublicUser`s gets a `PublicUser` back without a
 * cast. Null when the user may not take the step.
 */
export function actingForPrincipal<P extends Actor>(
  step: MocStep,
  user: Actor,
  access: MocAccess,
  principals: readonly P[],
): { onBehalfOf: P | null } | null {
  const acting = actingFor(step, user, access, principals);
  if (!acting) return null;
  return { onBehalfOf: principals.find((p) => p === acting.onBehalfOf) ?? null };
}

export function mocPermissions(
  user: PublicUser,
  access: MocAccess & MocProgress,
  doc: MocDocument,
  principals: PublicUser[] = [],
) {
  const state = stateOfDocument(doc);
  const frozen = approvedContentFrozen(access) !== null;
  const canEditPlans = canEditMocPlans(user, access);
  const marksItems = (items: { owner: string | null }[]) =>
    isMocOpen(access) && items.some((item) => canMarkPlanItem(user, access, item));
  const pending = (role: "approver" | "hseq") => isDecisionPending(role, access);
  return {
    openSteps: openStepsFor(user, access, state, principals).map((s) => ({
      ...stepLink(s),
      onBehalfOf: actingForPrincipal(s, user, access, principals)?.onBehalfOf?.name ?? null,
    })),
    canManage: canManageMoc(user, access) && !doc.isDeleted,
    /** Impact assessment and risk assessment file: editors, until approval (or while a deviation waits). */
    canEditPlans: canEditPlans && !frozen,
    /** Approved content is frozen (docs/decisions/034): the page says so and offers only done-marking. */
    frozen,
    /** The action plan and manuals plan pages: to edit, or once frozen to mark items done. */
    planAccess: {
      action: frozen ? (marksItems(doc.action.items) ? "mark" : null) : canEditPlans ? "edit" : null,
      manuals: frozen ? (marksItems(doc.manual_plan.items) ? "mark" : null) : canEditPlans ? "edit" : null,
    } as const,
    canDelete: !doc.isDeleted && canDeleteMoc(user, access),
    deleteNeedsReason: deleteNeedsReason(access),
    /** Who may change each role now, and whether a reason is asked (a pending decision). */
    assign: Object.fromEntries(
      (["implementer", "approver", "verifier", "hseq"] as const).map((role) => {
        const pendingNow = (role === "approver" || role === "hseq") && pending(role);
        const may =
          isMocOpen(access) &&
          (role === "hseq"
            ? canReassignPendingDecider(user)
            : canManageMoc(user, access) || (pendingNow && canReassignPendingDecider(user))) &&
          (!pendingNow || canReassignPendingDecider(user));
        return [role, may ? { needsReason: pendingNow } : null];
      }),
    ) as Record<"implementer" | "approver" | "verifier" | "hseq", { needsReason: boolean } | null>,
    /** Cancelling plan items with a reason (docs/decisions/033-closure-gates.md). */
    canCancelPlanItems: isMocOpen(access) && !doc.isDeleted && mayCancelPlanItems(user, access),
  };
}

/** Active people for the pickers. */
export async function activeUserOptions() {
  return (await listUsers())
    .filter((u) => u.active)
    .map((u) => ({ _id: u._id, name: u.name, department: u.department }));
}
