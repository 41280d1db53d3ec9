/**
 * MOC records apart from the workflow steps: creation, reading, cloning, soft deletion, people,
 * and the plans (impact assessment, risk attachment, action plan, manuals plan). Every change is
 * one transaction with its audit entry and its emails.
 */
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { iso } from "#db/moc-document";
import { getRiskSettings, rerankedMoc } from "./risk-settings.server";
import { mocRiskLevel } from "../risk/risk";
import { mocs, type ActionPlan, type ImpactItem, type ManualPlan, type NoSignificantHazard } from "#db/schema";
import type { MocStatus } from "#db/schema/enums";
import type { z } from "zod";
import { getDb, type Transaction } from "~/utils/db.server";
import { Conflict, Forbidden, Invalid, NotFound } from "~/utils/errors";
import {
  APPROVED_CONTENT_FROZEN,
  approvedContentFrozen,
  canDeleteMoc,
  canManageMoc,
  canMarkPlanItem,
  canReassignPendingDecider,
  canRestoreMoc,
  canSeeDeletedMocs,
  canReadMoc,
  canViewMoc,
  canViewMocAs,
  deleteNeedsReason,
  isDecisionPending,
  isMocApproved,
  isMocOpen,
  isMocPlanEditor,
  mocScopeOf,
  type Actor,
  type MocList,
} from "../authz/authz.server";
import { loadMocAccess, loadMocDocument, loadMocDocumentText, mocListBody, mocListTag } from "./moc-query.server";
import type { MocDocument } from "./moc-document";
import { keepItemTrail, tellNewOwners } from "./action-tasks.server";
import { refId, type NewMocInput, type userRef } from "./moc.schema";
import { STEPS } from "./moc-steps.server";
import {
  addMocUsers,
  appendLog,
  mocLabel,
  notifyAboutMoc,
  handOverRole,
  cloneMocInto,
  insertMoc,
  partAForm,
  temporaryOfPartA,
  requireActiveUsers,
  saveForm,
} from "./moc-store.server";
import { fourEyesAssignment } from "./moc-steps.server";
import type { Companion } from "../sign-in/session.server";
import type { PublicUser } from "../people/user.server";
import { principalsOf } from "../people/delegation.server";
import { linkRecords } from "../records/record-links.server";
import type { RecordRef } from "../records/record-refs.constants";

type Moc = NonNullable<Awaited<ReturnType<typeof loadMocAccess>>>;

/** A person picked on a form, as stored (id and name), from the names `requireActiveUsers` returned. */
const picked = (id: string | null, people: Map<string, { name: string }>) =>
  id ? { _id: id, name: people.get(id)!.name } : null;

// ---------------------------------------------------------------------------------------------
// Reading

/** A MOC the actor may see: 404 for unknown or deleted ids, 403 for one they may not see. */
export async function getMoc(actor: PublicUser, id: string): Promise<MocDocument> {
  const access = await loadMocAccess(id, getDb());
  if (!access || access.isDeleted) throw new NotFound("No MOC with this id");
  if (!canReadMoc(actor, access)) throw new Forbidden("You are not involved in this MOC");
  return (await loadMocDocument(id))!;
}

/** GET /api/singlemoc as JSON text: like getMoc, in one query, without parsing the document. */
export async function getMocJson(actor: PublicUser, id: string): Promise<string> {
  const row = await loadMocDocumentText(id);
  if (!row || row.isDeleted) throw new NotFound("No MOC with this id");
  // The delegates of today are looked up only when the caller may not read it as themselves.
  if (!canReadMoc(actor, row) && !canViewMocAs(actor, row, await principalsOf(getDb(), actor._id))) {
    throw new Forbidden("You are not involved in this MOC");
  }
  return row.doc;
}

/**
 * GET /api/newmoc (the MOCs the actor works on; all for admins and HSEQ) and GET /api/getAllMoc
 * (all for admins, HSEQ and full access; otherwise the completed ones): what to read beside the
 * session, the list's fingerprint (auth's requireApiUserWith)...
 */
export const mocListCompanion =
  (list: MocList) =>
  (actor: Actor): Companion<string | null> => {
    const scope = mocScopeOf[list](actor);
    return { name: `moc_list_tag_${scope}`, sql: (userId) => mocListTag(scope, userId) };
  };

/** ...then the list's body, from memory when that fingerprint was answered before. */
export const listMocs = (list: MocList, actor: PublicUser, tag: string | null) =>
  mocListBody(mocScopeOf[list](actor), actor._id, tag);

// ---------------------------------------------------------------------------------------------
// Creating

/**
 * Part A. `submit` creates it in `b` with the implementer assigned and emailed (POST /api/newmoc);
 * otherwise it is a draft in `a`, which may leave the implementer out.
 */
/** A submitted Part A has every required answer (a draft may be partial). */
function requireCompletePartA(input: NewMocInput) {
  const needs = [
    ["description-of-change", "Describe the change"],
    ["reason-for-change", "Give the reason for the change"],
    ["department-of-change", "Choose the department of the change"],
  ] as const;
  const missing = needs.filter(([key]) => !input[key]);
  if (missing.length)
    throw new Invalid(
      "Part A is not complete",
      missing.map(([path, message]) => ({ path, message })),
    );
}

export async function createMoc(
  actor: PublicUser,
  input: NewMocInput,
  options: {
    submit: boolean;
    /** The MOC this one follows up (issue 42): linked "follow-up of" in the same transaction. */
    followUp?: RecordRef;
  },
): Promise<MocDocument> {
  return getDb().transaction(async (tx) => {
    const implementerId = input.implementer ? refId(input.implementer.value) : null;
    if (options.submit && !implementerId) throw new Conflict("Choose an implementer before submitting Part A");
    if (options.submit) requireCompletePartA(input);
    const people = await requireActiveUsers(tx, [{ path: "implementer", id: implementerId }]);
    const status = options.submit ? "b" : "a";
    const temporary = temporaryOfPartA(input, { submit: options.submit, now: new Date() });
    const moc = await insertMoc(tx, { status, originatorId: actor._id, implementerId, temporary });
    await saveForm(tx, {
      mocId: moc.id,
      kind: "originator",
      actorId: actor._id,
      submitted: options.submit,
      data: await partAForm(tx, input, picked(implementerId, people)),
    });
    await addMocUsers(tx, moc.id, [actor._id, options.submit ? implementerId : null]);
    await appendLog(tx, {
      mocId: moc.id,
      userId: actor._id,
      action: options.submit ? "Created and submitted Part A" : "Saved a draft of Part A",
      from: null,
      to: status,
    });
    if (options.followUp) {
      // A follow-up MOC (docs/decisions/058-effectiveness-review.md): linked to its original, an
      // entry in both trails; 403 for an original the actor may not read.
      await linkRecords(tx, actor, { from: { kind: "moc", id: moc.id }, to: options.followUp, kind: "follow-up of" });
    }
    if (options.submit) {
      await notifyAboutMoc(
        tx,
        moc,
        { userIds: [implementerId], except: actor._id },
        {
          event: `${actor.name} raised ${mocLabel(moc.serialNum)} and assigned you as its implementer.`,
          expectation: "Assess the change (Part B): name the approver and HSEQ user, and set the target date.",
        },
        // The implementer's link opens Part B, where they act.
        { linkFor: () => `/mocs/${moc.id}/${STEPS.implementer.path}` },
      );
    }
    return (await loadMocDocument(moc.id, tx))!;
  });
}

/** Saves a draft's Part A again (originator or admin, status `a` only). */
export async function updateDraft(actor: PublicUser, mocId: string, input: NewMocInput): Promise<MocDocument> {
  return changeMoc(
    actor,
    mocId,
    { may: canManageMoc, forbidden: "Only the originator can edit this draft" },
    async (tx, moc) => {
      if (moc.status !== "a") throw new Conflict("Only a draft can be edited this way");
      const implementerId = input.implementer ? refId(input.implementer.value) : null;
      const people = await requireActiveUsers(tx, [{ path: "implementer", id: implementerId }]);
      await saveForm(tx, {
        mocId,
        kind: "originator",
        actorId: actor._id,
        submitted: false,
        data: await partAForm(tx, input, picked(implementerId, people)),
      });
      const temporary = temporaryOfPartA(input, { submit: false, now: new Date() });
      await tx.update(mocs).set({ implementerId, temporary, updatedAt: new Date() }).where(eq(mocs.id, mocId));
      return { action: "Updated the draft of Part A" };
    },
  );
}

/**
 * POST /api/cloneMoc: a new MOC in `b` with copies of the originator form, implementer form and
 * implementation (new ids); the caller is the new originator. A declined MOC can be cloned too.
 */
export async function cloneMoc(actor: PublicUser, oldId: string): Promise<MocDocument> {
  return getDb().transaction(async (tx) => {
    const old = await loadMocAccess(oldId, tx);
    if (!old || old.isDeleted) throw new NotFound("No MOC with this id");
    if (!canViewMoc(actor, old)) throw new Forbidden("You are not involved in this MOC");
    const moc = await cloneMocInto(tx, actor, old);
    return (await loadMocDocument(moc.id, tx))!;
  });
}

// ---------------------------------------------------------------------------------------------
// Changing

export type ChangeRule = {
  may: (actor: PublicUser, moc: Moc) => boolean;
  forbidden: string;
  /** Refuse (409) a completed or declined MOC. */
  requireOpen?: boolean;
  /** Refuse (409) while approved content is frozen (authz.server.ts `approvedContentFrozen`). */
  frozenAfterApproval?: boolean;
};

/**
 * One management change: lock the MOC, 404/403/409 as the rule says, run `fn`, append the audit
 * entry, return the populated MOC.
 */
export async function changeMoc(
  actor: PublicUser,
  mocId: string,
  rule: ChangeRule,
  fn: (tx: Transaction, moc: Moc) => Promise<{ action: string; comment?: string; to?: MocStatus }>,
): Promise<MocDocument> {
  return getDb().transaction(async (tx) => {
    const moc = await loadMocAccess(mocId, tx, { lock: true });
    if (!moc || moc.isDeleted) throw new NotFound("No MOC with this id");
    if (!rule.may(actor, moc)) throw new Forbidden(rule.forbidden);
    if (rule.requireOpen && !isMocOpen(moc)) {
      throw new Conflict(`This MOC is ${moc.completed ? "completed" : "declined"} and can no longer change`);
    }
    const frozen = rule.frozenAfterApproval ? approvedContentFrozen(moc) : null;
    if (frozen) throw new Conflict(frozen);
    const { action, comment, to } = await fn(tx, moc);
    await tx.update(mocs).set({ updatedAt: new Date() }).where(eq(mocs.id, mocId));
    await appendLog(tx, { mocId, userId: actor._id, action, from: moc.status, to: to ?? moc.status, comment });
    return (await loadMocDocument(mocId, tx))!;
  });
}

export const MOC_DELETED_ACTION = "Deleted";
export const MOC_RESTORED_ACTION = "Restored";

/**
 * DELETE /api/deleteMoC: soft delete (`isDeleted`). The originator while nobody else has decided on
 * it; afterwards an admin, with a reason (400 without). A completed MOC never (409). The trail
 * keeps who, when and why.
 */
export async function deleteMoc(actor: PublicUser, mocId: string, reason?: string | null): Promise<{ _id: string }> {
  const why = reason?.trim() || null;
  await changeMoc(
    actor,
    mocId,
    { may: canManageMoc, forbidden: "Only the originator or an admin can delete a MOC" },
    async (tx, moc) => {
      if (moc.completed) throw new Conflict("A completed MOC cannot be deleted: it is part of the record");
      if (!canDeleteMoc(actor, moc)) {
        throw new Forbidden(
          "Someone else has decided on this MOC, so only an admin can delete it now, giving a reason",
        );
      }
      if (deleteNeedsReason(moc) && !why) {
        throw new Invalid("Give the reason for deleting a MOC someone else has decided on", [
          { path: "reason", message: "Give the reason for deleting this MOC" },
        ]);
      }
      await tx.update(mocs).set({ isDeleted: true }).where(eq(mocs.id, mocId));
      return { action: MOC_DELETED_ACTION, comment: why ?? undefined };
    },
  );
  return { _id: mocId };
}

/** POST /api/restoreMoc: an admin brings a deleted MOC back where it was; the trail says so. */
export async function restoreMoc(actor: PublicUser, mocId: string): Promise<MocDocument> {
  if (!canRestoreMoc(actor)) throw new Forbidden("Only an admin can restore a deleted MOC");
  return getDb().transaction(async (tx) => {
    const moc = await loadMocAccess(mocId, tx, { lock: true });
    if (!moc) throw new NotFound("No MOC with this id");
    if (!moc.isDeleted) throw new Conflict("This MOC is not deleted");
    await tx.update(mocs).set({ isDeleted: false, updatedAt: new Date() }).where(eq(mocs.id, mocId));
    await appendLog(tx, {
      mocId,
      userId: actor._id,
      action: MOC_RESTORED_ACTION,
      from: moc.status,
      to: moc.status,
    });
    return (await loadMocDocument(mocId, tx))!;
  });
}

export type DeletedMoc = {
  _id: string;
  serialNum: string;
  title: string | null;
  status: string;
  deletedBy: string | null;
  deletedAt: string | null;
  reason: string | null;
};

/** The "Deleted" list for admins: each deleted MOC with who deleted it, when and why (its last trail entry of the kind), in one query. */
export async function listDeletedMocs(actor: PublicUser): Promise<DeletedMoc[]> {
  if (!canSeeDeletedMocs(actor)) throw new Forbidden("Only admins see deleted MOCs");
  const rows = await getDb().execute<DeletedMoc>(sql`
    select m.id as "_id", m.serial_num as "serialNum", m.status,
      (select f.data->'title'->>'value' from moc_forms f where f.moc_id = m.id and f.kind = 'originator' limit 1) as title,
      u.name as "deletedBy",
      ${sql.raw(iso("l.at"))} as "deletedAt",
      l.comment as reason
    from mocs m
    left join lateral (select l.user_id, l.at, l.comment from moc_logs l
      where l.moc_id = m.id and l.action = ${MOC_DELETED_ACTION} order by l.seq desc limit 1) l on true
    left join users u on u.id = l.user_id
    where m.is_deleted
    order by l.at desc nulls last, m.serial_num`);
  return [...rows];
}

const ROLE_COLUMN = {
  implementer: "implementerId",
  approver: "approverId",
  verifier: "verifierId",
  hseq: "hseqId",
} as const;
const ROLE_NAME = {
  implementer: "implementer",
  approver: "approver",
  verifier: "verifier",
  hseq: "HSEQ user",
} as const;

/** POST /api/addUser and PUT /api/implementer: put a person in a role, and in all_users. */
export async function assignMocRole(
  actor: PublicUser,
  input: { mocId: string; userId: string; role: keyof typeof ROLE_COLUMN; reason?: string | null },
  /** The body key naming the user, for the 400's issue path (`userId` in /api/addUser). */
  userPath = "userId",
): Promise<MocDocument> {
  const reason = input.reason?.trim() || null;
  return changeMoc(
    actor,
    input.mocId,
    {
      // The HSEQ user is named by the implementer (Part B) and changed by admins and HSEQ; they
      // change the approver too while the approver's decision is pending.
      may: (a, moc) =>
        input.role === "hseq"
          ? canReassignPendingDecider(a)
          : canManageMoc(a, moc) ||
            (input.role === "approver" && canReassignPendingDecider(a) && isDecisionPending("approver", moc)),
      forbidden:
        input.role === "hseq"
          ? "Only an admin or the HSEQ department can change the HSEQ user"
          : "Only the originator or an admin can assign people",
      requireOpen: true,
    },
    async (tx, moc) => {
      // The approver or the HSEQ user whose decision is pending: admins and HSEQ only, with a reason.
      const replacing = input.role === "approver" || input.role === "hseq" ? input.role : null;
      const pending = replacing !== null && moc[ROLE_COLUMN[replacing]] !== null && isDecisionPending(replacing, moc);
      if (pending && !canReassignPendingDecider(actor)) {
        throw new Forbidden(
          `The ${ROLE_NAME[input.role]}'s decision is pending: only an admin or the HSEQ department can change the ${ROLE_NAME[input.role]} now`,
        );
      }
      if (pending && !reason) {
        throw new Invalid(`Give the reason for changing the ${ROLE_NAME[input.role]} while their decision is pending`, [
          { path: "reason", message: "Give the reason for the change" },
        ]);
      }
      const people = await requireActiveUsers(tx, [{ path: userPath, id: input.userId }]);
      if (input.role === "hseq" && people.get(input.userId)!.department !== "hseq") {
        throw new Invalid("The HSEQ user must belong to the HSEQ department", [
          { path: userPath, message: "Choose a member of the HSEQ department" },
        ]);
      }
      const breaks = fourEyesAssignment(moc, input.role, input.userId, people.get(input.userId)!.name);
      if (breaks) throw new Invalid(breaks, [{ path: userPath, message: breaks }]);
      const column = ROLE_COLUMN[input.role];
      const previous = moc[column];
      await tx
        .update(mocs)
        .set({ [column]: input.userId })
        .where(eq(mocs.id, moc.id));
      await handOverRole(tx, moc, column, input.userId);
      const name = people.get(input.userId)!.name;
      if (previous !== input.userId) {
        await notifyAboutMoc(
          tx,
          moc,
          { userIds: [input.userId], except: actor._id },
          {
            event: `${actor.name} made you the ${ROLE_NAME[input.role]} of ${mocLabel(moc.serialNum)}.`,
            expectation:
              input.role === "verifier"
                ? "You will verify the change (Part F) once it is implemented."
                : input.role === "approver"
                  ? "You will decide on the change (Part D) after the HSEQ review."
                  : input.role === "hseq"
                    ? "You review the change (Part C) and decide on its deviations and extensions."
                    : "You are responsible for assessing and implementing the change.",
          },
        );
      }
      return { action: `Assigned ${name} as ${ROLE_NAME[input.role]}`, comment: reason ?? undefined };
    },
  );
}

const planRule = (what: string): ChangeRule => ({
  may: isMocPlanEditor,
  forbidden: `Only the originator, implementer, assigned HSEQ user or an admin can change the ${what}`,
  requireOpen: true,
  frozenAfterApproval: true,
});

/**
 * POST /api/impact and the impact page: the impact assessment, and the implementer's "no
 * significant hazard" declaration (`declaration`: a reason declares, null withdraws, undefined
 * leaves it; issue 38 "the risk gate"). A declaration stands only on a MOC without impact items:
 * items rank the MOC themselves, and saving some clears it.
 */
export async function setImpactAssessment(
  actor: PublicUser,
  mocId: string,
  items: ImpactItem[],
  declaration?: string | null,
): Promise<MocDocument> {
  return changeMoc(actor, mocId, planRule("impact assessment"), async (tx, moc) => {
    if (typeof declaration === "string") {
      if (moc.implementerId !== actor._id) {
        throw new Forbidden("Only the MOC's implementer can declare that the change has no significant hazard");
      }
      if (items.length) {
        throw new Invalid(
          "A MOC with impact items is ranked by them: rank them, or remove them to declare no significant hazard",
          [
            {
              path: "no_significant_hazard",
              message: "Rank the impact items, or remove them to declare no significant hazard",
            },
          ],
        );
      }
    }
    // The MOC's risk follows its items (docs/decisions/037-risk-ranking-and-approvals.md); a change
    // of level is in the trail, with the approvals it adds or drops.
    const settings = await getRiskSettings(tx);
    const [row] = await tx
      .select({ level: mocs.riskLevel, reviewed: mocs.reviewedRiskLevel, declared: mocs.noSignificantHazard })
      .from(mocs)
      .where(eq(mocs.id, mocId));
    const declared: NoSignificantHazard | null =
      typeof declaration === "string"
        ? { reason: declaration, by: actor._id, byName: actor.name, at: new Date().toISOString() }
        : declaration === null || items.length
          ? null
          : (row?.declared ?? null);
    const before = row?.level ?? null;
    const level = mocRiskLevel(items, settings, declared !== null);
    await tx
      .update(mocs)
      .set({ impactAssessment: items, riskLevel: level, noSignificantHazard: declared })
      .where(eq(mocs.id, mocId));
    const declarationWords =
      typeof declaration === "string"
        ? `Declared no significant hazard: ${declaration}`
        : row?.declared && !declared
          ? 'The "no significant hazard" declaration no longer stands'
          : "";
    const action = typeof declaration === "string" ? "Declared no significant hazard" : "Updated the impact assessment";
    if (level === before) return { action, comment: declarationWords || undefined };
    const moved = await rerankedMoc(tx, actor, moc, { before, level, reviewed: row?.reviewed ?? null }, settings);
    return {
      ...moved,
      action: moved.to ? moved.action : action,
      comment: [declarationWords, moved.comment].filter(Boolean).join(". "),
    };
  });
}

export async function setRiskAssessment(actor: PublicUser, mocId: string, url: string): Promise<MocDocument> {
  return changeMoc(actor, mocId, planRule("risk assessment"), async (tx) => {
    await tx.update(mocs).set({ riskAssessment: url }).where(eq(mocs.id, mocId));
    return { action: "Attached the risk assessment" };
  });
}

type PlanItemsInput<T> = { items: (Omit<T, "_id"> & { _id?: string })[] };

const withIds = <T extends { _id?: string }>(items: T[]) =>
  items.map((item) => ({ ...item, _id: item._id || randomUUID() }) as T & { _id: string });

/** What a plan item says, frozen from approval on (everything but the done mark and its notes). */
const FROZEN_ITEM_KEYS = {
  "action plan": ["description", "owner", "due"],
  "manuals plan": ["document", "change", "owner", "due"],
} as const;
type PlanName = keyof typeof FROZEN_ITEM_KEYS;
type StoredItem = { _id: string; owner: string | null; done: boolean } & Record<string, unknown>;

/**
 * On an approved MOC (approved content frozen) a plan may change only in its items' done marks:
 * the same items, each with the same description, owner and due date, and each changed mark by
 * someone who may mark that item (its owner, the implementer, the HSEQ user, an admin).
 */
function checkFrozenPlan(
  actor: PublicUser,
  moc: Moc,
  what: PlanName,
  stored: StoredItem[],
  items: { _id?: string; owner: string | null; done?: boolean }[],
) {
  if (!isMocPlanEditor(actor, moc) && !stored.some((item) => canMarkPlanItem(actor, moc, item))) {
    throw new Forbidden(PLAN_MARKERS);
  }
  const byId = new Map(stored.map((item) => [item._id, item]));
  const same =
    items.length === stored.length &&
    items.every((item) => {
      const before = item._id ? byId.get(item._id) : undefined;
      return (
        before !== undefined &&
        FROZEN_ITEM_KEYS[what].every(
          (key) => ((item as Record<string, unknown>)[key] ?? null) === (before[key] ?? null),
        )
      );
    }) &&
    new Set(items.map((item) => item._id)).size === items.length;
  if (!same) throw new Conflict(APPROVED_CONTENT_FROZEN);
  const marked = items.filter((item) => Boolean(item.done) !== Boolean(byId.get(item._id!)!.done));
  const refused = marked.filter((item) => !canMarkPlanItem(actor, moc, byId.get(item._id!)!));
  if (refused.length) throw new Forbidden(PLAN_MARKERS);
  return marked.length;
}

const PLAN_MARKERS = "Only an item's owner, the implementer, the assigned HSEQ user or an admin can mark it done";

/** A plan's items as stored, read under the MOC's lock. */
const storedItems = (column: "action" | "manualPlan") => async (moc: Moc, tx: Transaction) => {
  const [row] = await tx.select({ plan: mocs[column] }).from(mocs).where(eq(mocs.id, moc.id));
  const items: StoredItem[] = row?.plan.items ?? [];
  return items;
};

/** Replaces a rows plan (action plan or manuals plan); owners must be active users. */
async function setPlan<T extends { _id?: string; owner: string | null; done?: boolean }>(
  actor: PublicUser,
  mocId: string,
  plan: {
    what: PlanName;
    items: T[];
    stored: (moc: Moc, tx: Transaction) => Promise<StoredItem[]>;
    column: (items: (T & { _id: string })[]) => Partial<typeof mocs.$inferInsert>;
  },
): Promise<MocDocument> {
  const rule: ChangeRule = {
    ...planRule(plan.what),
    // From approval on, the items' owners who may see the MOC mark their items done too (checked
    // item by item below); the answer is the whole MOC, so never for someone who may not read it.
    may: (a, moc) => isMocPlanEditor(a, moc) || (isMocApproved(moc) && isMocOpen(moc) && canViewMoc(a, moc)),
    frozenAfterApproval: false,
  };
  return changeMoc(actor, mocId, rule, async (tx, moc) => {
    if (approvedContentFrozen(moc)) {
      const stored = await plan.stored(moc, tx);
      const marked = checkFrozenPlan(actor, moc, plan.what, stored, plan.items);
      await tx
        .update(mocs)
        .set(plan.column(keepItemTrail(stored, withIds(plan.items))))
        .where(eq(mocs.id, mocId));
      return { action: `Marked ${marked === 1 ? "an item" : `${marked} items`} of the ${plan.what}` };
    }
    if (!isMocPlanEditor(actor, moc)) throw new Forbidden(rule.forbidden);
    await requireActiveUsers(
      tx,
      plan.items.map((item, i) => ({ path: `items.${i}.owner`, id: item.owner })),
    );
    const [stored] = await tx
      .select({ action: mocs.action, manualPlan: mocs.manualPlan })
      .from(mocs)
      .where(eq(mocs.id, mocId));
    const column = plan.column(withIds(plan.items));
    // Cancellations and done marks stay as the trail recorded them (docs/decisions/033-closure-gates.md,
    // 038-actions-as-tasks.md); owners newly named are told.
    if (column.action) {
      column.action = { items: keepItemTrail(stored!.action.items, column.action.items) };
      await tellNewOwners(tx, actor, moc, plan.what, stored!.action.items, column.action.items);
    }
    if (column.manualPlan) {
      column.manualPlan = { items: keepItemTrail(stored!.manualPlan.items, column.manualPlan.items) };
      await tellNewOwners(tx, actor, moc, plan.what, stored!.manualPlan.items, column.manualPlan.items);
    }
    await tx.update(mocs).set(column).where(eq(mocs.id, mocId));
    return { action: `Updated the ${plan.what}` };
  });
}

export const setActionPlan = (actor: PublicUser, mocId: string, plan: PlanItemsInput<ActionPlan["items"][number]>) =>
  setPlan(actor, mocId, {
    what: "action plan",
    items: plan.items,
    stored: storedItems("action"),
    column: (items) => ({ action: { items } }),
  });

export const setManualPlan = (actor: PublicUser, mocId: string, plan: PlanItemsInput<ManualPlan["items"][number]>) =>
  setPlan(actor, mocId, {
    what: "manuals plan",
    items: plan.items,
    stored: storedItems("manualPlan"),
    column: (items) => ({ manualPlan: { items } }),
  });

/**
 * POST /api/createImplementer and /api/implementer: the implementer saves Part B as a draft and
 * assigns the approver, without a status change.
 */
export async function saveImplementerDraft(
  actor: PublicUser,
  mocId: string,
  form: Record<string, { value: unknown } | undefined>,
): Promise<MocDocument> {
  return changeMoc(
    actor,
    mocId,
    {
      may: (a, moc) => moc.implementerId === a._id || a.role === "admin",
      forbidden: "Only the assigned implementer can save the implementer form",
      requireOpen: true,
    },
    async (tx, moc) => {
      if (moc.status !== "b")
        throw new Conflict("The implementer form can be saved only while the MOC waits for its assessment");
      const approver = form["approver-name"]?.value as z.infer<typeof userRef> | undefined;
      const hseqUser = form["hseq-name"]?.value as z.infer<typeof userRef> | undefined;
      const approverId = approver ? refId(approver) : null;
      const hseqId = hseqUser ? refId(hseqUser) : null;
      const people = await requireActiveUsers(tx, [
        { path: "approver-name", id: approverId },
        { path: "hseq-name", id: hseqId },
      ]);
      const breaking = [
        { path: "approver-name", id: approverId, role: "approver" as const },
        { path: "hseq-name", id: hseqId, role: "hseq" as const },
      ].flatMap((pick) => {
        const message = pick.id && fourEyesAssignment(moc, pick.role, pick.id, people.get(pick.id)!.name);
        return message ? [{ path: pick.path, message }] : [];
      });
      if (breaking.length) throw new Invalid(breaking[0]!.message, breaking);
      const data = { ...form };
      if (approverId) data["approver-name"] = { value: { _id: approverId, name: people.get(approverId)!.name } };
      if (hseqId) data["hseq-name"] = { value: { _id: hseqId, name: people.get(hseqId)!.name } };
      // A draft's upsert writes the fields only: a Part B submitted before (and returned by HSEQ)
      // keeps its submission time and submitter (app/models/moc/moc-store.server.ts).
      await saveForm(tx, {
        mocId: moc.id,
        kind: "implementer",
        actorId: actor._id,
        submitted: false,
        merge: true,
        data,
      });
      if (approverId) {
        await tx.update(mocs).set({ approverId }).where(eq(mocs.id, moc.id));
        await handOverRole(tx, moc, "approverId", approverId);
      }
      return {
        action: approverId
          ? `Saved Part B as a draft and assigned ${people.get(approverId)!.name} as the approver`
          : "Saved Part B as a draft",
      };
    },
  );
}

/** GET /api/implementer?moc_id=: the implementer form of a MOC the actor may see (null if none yet). */
export async function getImplementerForm(actor: PublicUser, mocId: string): Promise<unknown> {
  const doc = await getMoc(actor, mocId);
  return doc.implementer_form ?? null;
}
