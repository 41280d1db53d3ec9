/**
 * Cancelling an action-plan or manuals-plan item (docs/decisions/033-closure-gates.md): the
 * implementer or the assigned HSEQ user records why an item will not be done, so it no longer
 * holds up closing the MOC. One transaction with its audit entry; the item keeps who, when and why.
 */
import { eq } from "drizzle-orm";
import { mocs, type ActionPlan, type ManualPlan } from "#db/schema";
import type { Executor } from "~/utils/db.server";
import { Conflict, NotFound } from "~/utils/errors";
import { mayCancelPlanItems } from "../authz/authz.server";
import type { MocDocument } from "./moc-document";
import type { CancelPlanItemInput } from "./moc.schema";
import { changeMoc } from "./moc.server";
import { TRAIL_ACTIONS } from "./moc-four-eyes.server";
import { notifyAboutMoc } from "./moc-store.server";
import type { PublicUser } from "../people/user.server";

const PLAN_WORDS = { action: "action", manual_plan: "manuals and drawings item" } as const;

type PlanKey = "action" | "manual_plan";

/** One of the MOC's two plans as stored, read in the caller's transaction. */
export async function readPlan(tx: Executor, mocId: string, plan: PlanKey): Promise<ActionPlan | ManualPlan> {
  const [stored] = await tx
    .select({ action: mocs.action, manualPlan: mocs.manualPlan })
    .from(mocs)
    .where(eq(mocs.id, mocId));
  return plan === "action" ? stored!.action : stored!.manualPlan;
}

/** Writes one of the MOC's two plans back with its items (one of them changed by the caller). */
export async function writePlan(tx: Executor, mocId: string, plan: PlanKey, items: { _id: string }[]) {
  await tx
    .update(mocs)
    .set(
      plan === "action"
        ? { action: { items: items as ActionPlan["items"] } }
        : { manualPlan: { items: items as ManualPlan["items"] } },
    )
    .where(eq(mocs.id, mocId));
}

/** POST /api/cancelPlanItem and the page: cancel one open item of one plan, with its reason. */
export async function cancelPlanItem(
  actor: PublicUser,
  input: Omit<CancelPlanItemInput, "moc_id"> & { mocId: string },
): Promise<MocDocument> {
  return changeMoc(
    actor,
    input.mocId,
    {
      may: mayCancelPlanItems,
      forbidden: "Only the implementer or the assigned HSEQ user can cancel a plan item",
      requireOpen: true,
    },
    async (tx, moc) => {
      const plan = await readPlan(tx, input.mocId, input.plan);
      const item = plan.items.find((i) => i._id === input.item_id);
      if (!item) throw new NotFound(`No such ${PLAN_WORDS[input.plan]} in this MOC's plan`);
      if (item.cancelled) throw new Conflict(`This ${PLAN_WORDS[input.plan]} is already cancelled`);
      if (item.done) throw new Conflict(`This ${PLAN_WORDS[input.plan]} is already done; it cannot be cancelled`);
      const cancelled = { reason: input.reason, by: actor._id, byName: actor.name, at: new Date().toISOString() };
      await writePlan(
        tx,
        input.mocId,
        input.plan,
        plan.items.map((i) => (i._id === item._id ? { ...i, cancelled } : i)),
      );
      const what =
        input.plan === "action"
          ? `the action “${(item as ActionPlan["items"][number]).description}”`
          : `the manuals and drawings item “${(item as ManualPlan["items"][number]).document}”`;
      // Its owner is told, with the reason (issue 38 item 7): it leaves their "My actions".
      // A notice of the kind that gave it to them (`action`), so one choice covers both.
      if (item.owner && item.owner !== actor._id) {
        await notifyAboutMoc(
          tx,
          moc,
          { userIds: [item.owner] },
          {
            event: `${actor.name} cancelled ${what}, which was yours.`,
            expectation: "Nothing more is needed from you for it; it no longer holds up closing the MOC.",
            details: [["Reason", input.reason]],
          },
          { kind: "action" },
        );
      }
      return { action: `${TRAIL_ACTIONS.cancelledItem}${what.replace(/^the /, "")}`, comment: input.reason };
    },
  );
}
