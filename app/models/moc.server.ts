/**
 * MOC records apart from the workflow steps: creation, reading, cloning, soft deletion, people,
 * and the plans (impact assessment, risk attachment, action plan, manuals plan). Every change is
 * one transaction with its audit entry and its emails.
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { mocForms, mocs, type ActionPlan, type ImpactItem, type ManualPlan } from "#db/schema";
import type { z } from "zod";
import { getDb, type Transaction } from "~/utils/db.server";
import { Conflict, Forbidden, Invalid, NotFound } from "~/utils/errors";
import {
  canManageMoc,
  canViewMoc,
  canViewMocAs,
  isMocOpen,
  isMocPlanEditor,
  mocScopeOf,
  type Actor,
  type MocAccess,
  type MocList,
} from "./authz.server";
import {
  loadForm,
  loadMocAccess,
  loadMocDocument,
  loadMocDocumentText,
  mocListBody,
  mocListPage,
  mocListTag,
} from "./moc-query.server";
import type { MocDocument } from "./moc-document";
import { keepCancellations } from "./moc-closure";
import type { PageRequest } from "./keyset";
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
import type { Companion } from "./session.server";
import type { PublicUser } from "./user.server";
import { principalsOf } from "./delegation.server";

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
  if (!canViewMoc(actor, access)) throw new Forbidden("You are not involved in this MOC");
  return (await loadMocDocument(id))!;
}

/** GET /api/singlemoc as JSON text: like getMoc, in one query, without parsing the document. */
export async function getMocJson(actor: PublicUser, id: string): Promise<string> {
  const row = await loadMocDocumentText(id);
  if (!row || row.isDeleted) throw new NotFound("No MOC with this id");
  // The delegates of today are looked up only when the caller may not read it as themselves.
  if (!canViewMoc(actor, row) && !canViewMocAs(actor, row, await principalsOf(getDb(), actor._id))) {
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

/** One page of the same list (keyset: app/models/keyset.ts). */
export const listMocsPage = (list: MocList, actor: PublicUser, page: PageRequest) =>
  mocListPage(mocScopeOf[list](actor), actor._id, page);

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
  options: { submit: boolean },
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
      data: partAForm(input, picked(implementerId, people)),
    });
    await addMocUsers(tx, moc.id, [actor._id, options.submit ? implementerId : null]);
    await appendLog(tx, {
      mocId: moc.id,
      userId: actor._id,
      action: options.submit ? "Created and submitted Part A" : "Saved a draft of Part A",
      from: null,
      to: status,
    });
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
        () => `/mocs/${moc.id}/${STEPS.implementer.path}`,
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
        data: partAForm(input, picked(implementerId, people)),
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
  may: (actor: PublicUser, moc: MocAccess) => boolean;
  forbidden: string;
  /** Refuse (409) a completed or declined MOC. */
  requireOpen?: boolean;
};

/**
 * One management change: lock the MOC, 404/403/409 as the rule says, run `fn`, append the audit
 * entry, return the populated MOC.
 */
export async function changeMoc(
  actor: PublicUser,
  mocId: string,
  rule: ChangeRule,
  fn: (tx: Transaction, moc: Moc) => Promise<{ action: string; comment?: string }>,
): Promise<MocDocument> {
  return getDb().transaction(async (tx) => {
    const moc = await loadMocAccess(mocId, tx, { lock: true });
    if (!moc || moc.isDeleted) throw new NotFound("No MOC with this id");
    if (!rule.may(actor, moc)) throw new Forbidden(rule.forbidden);
    if (rule.requireOpen && !isMocOpen(moc)) {
      throw new Conflict(`This MOC is ${moc.completed ? "completed" : "declined"} and can no longer change`);
    }
    const { action, comment } = await fn(tx, moc);
    await tx.update(mocs).set({ updatedAt: new Date() }).where(eq(mocs.id, mocId));
    await appendLog(tx, { mocId, userId: actor._id, action, from: moc.status, to: moc.status, comment });
    return (await loadMocDocument(mocId, tx))!;
  });
}

/** DELETE /api/deleteMoC: soft delete by the originator or an admin. */
export async function deleteMoc(actor: PublicUser, mocId: string): Promise<{ _id: string }> {
  await changeMoc(
    actor,
    mocId,
    { may: canManageMoc, forbidden: "Only the originator or an admin can delete a MOC" },
    async (tx) => {
      await tx.update(mocs).set({ isDeleted: true }).where(eq(mocs.id, mocId));
      return { action: "Deleted" };
    },
  );
  return { _id: mocId };
}

const ROLE_COLUMN = { implementer: "implementerId", approver: "approverId", verifier: "verifierId" } as const;

/** POST /api/addUser and PUT /api/implementer: put a person in a role, and in all_users. */
export async function assignMocRole(
  actor: PublicUser,
  input: { mocId: string; userId: string; role: keyof typeof ROLE_COLUMN },
  /** The body key naming the user, for the 400's issue path (`userId` in /api/addUser). */
  userPath = "userId",
): Promise<MocDocument> {
  return changeMoc(
    actor,
    input.mocId,
    { may: canManageMoc, forbidden: "Only the originator or an admin can assign people", requireOpen: true },
    async (tx, moc) => {
      const people = await requireActiveUsers(tx, [{ path: userPath, id: input.userId }]);
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
            event: `${actor.name} made you the ${input.role} of ${mocLabel(moc.serialNum)}.`,
            expectation:
              input.role === "verifier"
                ? "You will verify the change (Part F) once it is implemented."
                : input.role === "approver"
                  ? "You will decide on the change (Part D) after the HSEQ review."
                  : "You are responsible for assessing and implementing the change.",
          },
        );
      }
      return { action: `Assigned ${name} as ${input.role}` };
    },
  );
}

const planRule = (what: string): ChangeRule => ({
  may: isMocPlanEditor,
  forbidden: `Only the originator, implementer, assigned HSEQ user or an admin can change the ${what}`,
  requireOpen: true,
});

export async function setImpactAssessment(actor: PublicUser, mocId: string, items: ImpactItem[]): Promise<MocDocument> {
  return changeMoc(actor, mocId, planRule("impact assessment"), async (tx) => {
    await tx.update(mocs).set({ impactAssessment: items }).where(eq(mocs.id, mocId));
    return { action: "Updated the impact assessment" };
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

/** Replaces a rows plan (action plan or manuals plan); owners must be active users. */
async function setPlan<T extends { _id?: string; owner: string | null }>(
  actor: PublicUser,
  mocId: string,
  plan: {
    what: string;
    items: T[];
    column: (items: (T & { _id: string })[]) => Partial<typeof mocs.$inferInsert>;
  },
): Promise<MocDocument> {
  return changeMoc(actor, mocId, planRule(plan.what), async (tx) => {
    await requireActiveUsers(
      tx,
      plan.items.map((item, i) => ({ path: `items.${i}.owner`, id: item.owner })),
    );
    const [stored] = await tx
      .select({ action: mocs.action, manualPlan: mocs.manualPlan })
      .from(mocs)
      .where(eq(mocs.id, mocId));
    const column = plan.column(withIds(plan.items));
    // Cancellations stay as the trail recorded them (docs/decisions/033-closure-gates.md).
    if (column.action) column.action = { items: keepCancellations(stored!.action.items, column.action.items) };
    if (column.manualPlan) {
      column.manualPlan = { items: keepCancellations(stored!.manualPlan.items, column.manualPlan.items) };
    }
    await tx.update(mocs).set(column).where(eq(mocs.id, mocId));
    return { action: `Updated the ${plan.what}` };
  });
}

export const setActionPlan = (actor: PublicUser, mocId: string, plan: PlanItemsInput<ActionPlan["items"][number]>) =>
  setPlan(actor, mocId, {
    what: "action plan",
    items: plan.items,
    column: (items) => ({ action: { items } }),
  });

export const setManualPlan = (actor: PublicUser, mocId: string, plan: PlanItemsInput<ManualPlan["items"][number]>) =>
  setPlan(actor, mocId, {
    what: "manuals plan",
    items: plan.items,
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
      const existing = await loadForm(moc.id, "implementer", tx);
      await saveForm(tx, {
        mocId: moc.id,
        kind: "implementer",
        actorId: actor._id,
        submitted: false,
        merge: true,
        data,
      });
      if (existing?.submittedAt) {
        // Keep the earlier submission's mark: a saved draft does not un-submit Part B.
        await tx.update(mocForms).set({ submittedAt: existing.submittedAt }).where(eq(mocForms.id, existing.id));
      }
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
