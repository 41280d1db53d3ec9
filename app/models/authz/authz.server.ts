import { sql, type SQL } from "drizzle-orm";
import { PCR_ROLES } from "#db/schema/enums";
import type { ExtentionsAndDeviations } from "#db/schema";
import type { ApprovalState } from "./risk-approval.server";
import { APPROVAL_STAGE_ACTION } from "../risk/risk";

/**
 * Who may do what: one module of small named predicates, used by pages, lists and the API alike.
 * Tested as a table of role x action in tests/integration/authz.test.ts.
 * No I/O here: callers pass the records they already loaded; list filters are SQL fragments.
 */
export type Actor = {
  _id: string;
  role: string;
  department: string;
  access: string;
  position: string | null;
};

export const isAdmin = (actor: Actor) => actor.role === "admin";
export const isHseq = (actor: Actor) => actor.department === "hseq";
export const hasFullAccess = (actor: Actor) => actor.access === "full";

/** Create, edit, deactivate and delete users. */
export const canManageUsers = (actor: Actor) => isAdmin(actor);
/** Read the user directory (GET /api/users): any signed-in user. */
export const canListUsers = (_actor: Actor) => true;
/** The admin outbox page and retrying failed email. */
export const canSeeOutbox = (actor: Actor) => isAdmin(actor);
/** Name, change and end anyone's delegation (the admin page); everyone manages their own. */
export const canManageDelegations = (actor: Actor) => isAdmin(actor);
/** The operations overview (/admin: backups): admins. */
export const canSeeOperations = (actor: Actor) => isAdmin(actor);
/** The audit trail check (/admin/audit): admins. */
export const canVerifyAudit = (actor: Actor) => isAdmin(actor);

// ---------------------------------------------------------------------------------------------
// MOCs (docs/decisions/004-moc-workflow.md)

/** What the MOC predicates need to know about a record. */
export type MocAccess = {
  status: string;
  completed: boolean;
  originatorId: string;
  implementerId: string | null;
  approverId: string | null;
  verifierId: string | null;
  hseqId: string | null;
  allUserIds: readonly string[];
  /**
   * Everyone who acted on the MOC so far, from its trail and signature manifestations (the four-eyes
   * rule judges independence against them: moc-steps.server.ts `isIndependentOf`): the authors of
   * Parts A, B and E and of a temporary change's ends, who took the HSEQ review, who the approval.
   */
  acted: {
    makerIds: readonly string[];
    reviewerIds: readonly string[];
    approverIds: readonly string[];
    /** Who cancelled a plan item of it (they do not also close it: moc-four-eyes.server.ts). */
    cancellerIds?: readonly string[];
    /** Every approval its risk needs was given (`isMocApproved`). */
    approved?: boolean;
  };
  /** The MOC's risk and the approvals given at `d` (docs/decisions/037); absent: not ranked, none given. */
  approval?: ApprovalState | null;
  /**
   * The people assigned today (UTC) to the vessel Part A names (docs/decisions/036-vessels-and-crew-access.md);
   * empty for an office or fleet-wide MOC, or one without a scope.
   */
  crewIds?: readonly string[];
};

export const isInvolved = (actor: Actor, moc: MocAccess) => moc.allUserIds.includes(actor._id);

/**
 * A draft (status `a`: Part A saved, not submitted) is its author's own until submitted: nobody but
 * its originator and admins reads it, in lists or on its own (issue 38 item 9). SQL twin: `mocScopeSql`'s `notOthersDraft`.
 */
export const isOthersDraft = (actor: Actor, moc: Pick<MocAccess, "status" | "originatorId">) =>
  moc.status === "a" && moc.originatorId !== actor._id && !isAdmin(actor);

/** singlemoc, chat, clone: admin, HSEQ, full access, anyone involved, or anyone once completed; a draft its author (and admins). */
export const canViewMoc = (actor: Actor, moc: MocAccess) =>
  !isOthersDraft(actor, moc) &&
  (isAdmin(actor) || isHseq(actor) || hasFullAccess(actor) || isInvolved(actor, moc) || moc.completed);

/**
 * Read a MOC as someone standing in for `principals` today (docs/decisions/023): the MOCs naming
 * one of them. A delegate takes over the absent person's own assignments, never their
 * department-wide or account-wide powers (HSEQ's, an admin's, full access: docs/decisions/026-four-eyes-by-record.md).
 */
export const canViewMocAs = (actor: Actor, moc: MocAccess, principals: readonly Actor[]) =>
  canViewMoc(actor, moc) || (moc.status !== "a" && principals.some((p) => isInvolved(p, moc)));

/**
 * Assigned today to the MOC's vessel (docs/decisions/036-vessels-and-crew-access.md): reads the record, its
 * files, print and PDF, and finds it in the pages' lists; nothing more (no chat, clone or step).
 */
export const isCrewOf = (actor: Actor, moc: Pick<MocAccess, "crewIds">) => (moc.crewIds ?? []).includes(actor._id);

/**
 * A crew assignment holds on `today` (UTC): from its first day to its last, open-ended without one
 * (docs/decisions/036-vessels-and-crew-access.md). `currentAssignmentSql` is its twin; who is
 * "crew of the vessel" (`crewIds`, `crewOfSql`) reads it.
 */
export const isAssignmentCurrent = (a: { from: string; to: string | null }, today: string) =>
  a.from <= today && (a.to === null || a.to >= today);

/** `isAssignmentCurrent` over the `vessel_assignments` row `alias`, on today's UTC date. */
export const currentAssignmentSql = (alias: string): SQL =>
  sql.raw(
    `(${alias}.from_date <= (now() at time zone 'UTC')::date and (${alias}.to_date is null or ${alias}.to_date >= (now() at time zone 'UTC')::date))`,
  );

/** Read a MOC (record page, GET /api/singlemoc, files, print, PDF): `canViewMoc`, or its vessel's crew. */
export const canReadMoc = (actor: Actor, moc: MocAccess) =>
  canViewMoc(actor, moc) || (!isOthersDraft(actor, moc) && isCrewOf(actor, moc));

/** The vessel register and crew assignments (/admin/vessels, writes of /api/vessels): admins. */
export const canManageVessels = (actor: Actor) => isAdmin(actor);

/** The list of ranks on board (/admin/ranks: add, rename, reorder, deactivate; issue 41): admins. */
export const canManageRanks = (actor: Actor) => isAdmin(actor);

/**
 * Who is on board a vessel today, with their ranks (the vessel page, "My vessel"): admins, the
 * HSEQ department and full access (the office that runs the fleet), and the vessel's own crew.
 */
export const canSeeCrewList = (actor: Actor, vessel: { crewIds: readonly string[] }) =>
  isAdmin(actor) || isHseq(actor) || hasFullAccess(actor) || vessel.crewIds.includes(actor._id);

/** Soft delete, add people, re-assign the implementer: the originator or an admin. */
export const canManageMoc = (actor: Actor, moc: MocAccess) => isAdmin(actor) || moc.originatorId === actor._id;

/** A MOC still open to changes: neither completed nor declined. Its SQL twin is `mocOpenSql`. */
export const isMocOpen = (moc: Pick<MocAccess, "status" | "completed">) => !moc.completed && moc.status !== "decline";
/** Completed: verified and closed, not declined (a MOC finished, as circulations ask: decision 055). */
export const isMocCompleted = (moc: Pick<MocAccess, "status" | "completed">) =>
  moc.completed && moc.status !== "decline";

/** `isMocCompleted` over the MOC row `alias` (`m` unless named). */
export const mocCompletedSql = (alias = "m"): SQL => sql.raw(`(${alias}.completed and ${alias}.status <> 'decline')`);

/** `isMocOpen` over the MOC row `alias` (`m` unless named): the one SQL spelling of "open" (issue 38). */
export const mocOpenSql = (alias = "m"): SQL => sql.raw(`(not ${alias}.completed and ${alias}.status <> 'decline')`);

/** Who edits impact assessment, risk attachment, action plan and manuals plan. */
export const isMocPlanEditor = (actor: Actor, moc: MocAccess) =>
  isAdmin(actor) || [moc.originatorId, moc.implementerId, moc.hseqId].includes(actor._id);

/**
 * Who cancels an action-plan or manuals-plan item with a reason (docs/decisions/033-closure-gates.md):
 * the implementer, who carries the plans out, and the assigned HSEQ user, who checks them.
 */
export const mayCancelPlanItems = (actor: Actor, moc: Pick<MocAccess, "implementerId" | "hseqId">) =>
  actor._id === moc.implementerId || actor._id === moc.hseqId;

/** Impact assessment, risk attachment, action plan, manuals plan: editors, while the MOC is open. */
export const canEditMocPlans = (actor: Actor, moc: MocAccess) => isMocOpen(moc) && isMocPlanEditor(actor, moc);

// ---------------------------------------------------------------------------------------------
// Approved content and deleting (docs/decisions/034-approved-content-and-deleting.md)

/** What the rules on approved content, pending decisions and deleting read besides `MocAccess`. */
export type MocProgress = {
  /** Part B has been submitted at least once. */
  implementerSubmitted: boolean;
  /** The deviation and extension reported with the implementation, and their decisions. */
  deviations: ExtentionsAndDeviations | null;
};

/**
 * An approval of the MOC is given: the approver's yes, or on a High or Extreme MOC any approval of
 * its round (docs/decisions/037). Its content is frozen from then on (decision 034), so the later
 * approvers approve what the first did. `approvalGivenSql` is its twin.
 */
export const isApprovalGiven = (moc: Pick<MocAccess, "status" | "acted">) =>
  moc.status !== "decline" && (moc.acted?.approverIds.length ?? 0) > 0;

/** `isApprovalGiven` over the MOC row `m`. */
export const approvalGivenSql = (): SQL => sql`(m.status <> 'decline' and exists (select 1 from moc_logs l
  where l.moc_id = m.id and l.from_status = 'd'
    and (l.to_status = 'e' or (l.to_status = 'd' and l.action like ${`${APPROVAL_STAGE_ACTION}%`}))))`;

/**
 * The MOC is approved: every approval its risk needs is given (it left `d` for `e`, read from the
 * trail) and it was not declined. Plan items are marked done from then on (My actions, the plan
 * pages, the API alike). `mocApprovedSql` is its twin (issue 38: one definition of "approved").
 */
export const isMocApproved = (moc: Pick<MocAccess, "status" | "acted">) =>
  moc.status !== "decline" && Boolean(moc.acted?.approved);

/** `isMocApproved` over the MOC row `m`. */
export const mocApprovedSql = (): SQL => sql`(m.status <> 'decline' and exists (select 1 from moc_logs l
  where l.moc_id = m.id and l.from_status = 'd' and l.to_status = 'e'))`;

/** A deviation reported with the implementation waits for its decision. */
export const isDeviationPending = (moc: Pick<MocProgress, "deviations">) =>
  Boolean(moc.deviations?.deviation?.requested && !moc.deviations.deviation.resolved);

/** A deviation or an extension waits for the approver's or the HSEQ user's decision. */
const isDeviationOrExtensionPending = (moc: Pick<MocProgress, "deviations">) =>
  isDeviationPending(moc) || Boolean(moc.deviations?.extension?.requested && !moc.deviations.extension.resolved);

export const APPROVED_CONTENT_FROZEN =
  "This MOC is approved: its Part A, impact assessment, risk assessment and plan items (description, owner and due date) change only through a deviation reported with the implementation (Part E), which goes back for decision";

/**
 * Approved content is frozen (docs/decisions/034-approved-content-and-deleting.md): from approval on, Part A, the impact assessment,
 * the risk assessment file and the plan items' description, owner and due date change only while
 * a deviation waits for its decision. The 409 message, or null while they may change.
 */
export const approvedContentFrozen = (moc: Pick<MocAccess, "status" | "acted"> & Pick<MocProgress, "deviations">) =>
  isApprovalGiven(moc) && !isDeviationPending(moc) ? APPROVED_CONTENT_FROZEN : null;

/**
 * Trainings (issue 41, docs/decisions/056-training.md). Naming who must attend a training item:
 * the plan editors (from approval on they may only add people). Whether the MOC is open is
 * checked beside it.
 */
export const canSetTrainingAttendees = (actor: Actor, moc: MocAccess) => isMocPlanEditor(actor, moc);

/**
 * Recording who attended a training: someone who may read the MOC and is the item's owner, the
 * implementer, the assigned HSEQ user or of the HSEQ department (not an admin as such: the record
 * says who witnessed it). Whether the MOC is open and approved is checked beside it (409).
 */
export const canRecordAttendance = (actor: Actor, moc: MocAccess, item: { owner: string | null }) =>
  canViewMoc(actor, moc) &&
  (item.owner === actor._id || actor._id === moc.implementerId || actor._id === moc.hseqId || isHseq(actor));

/** Marking a plan item done (or open again) on an approved MOC: its owner, the implementer, the assigned HSEQ user, an admin. */
export const canMarkPlanItem = (actor: Actor, moc: MocAccess, item: { owner: string | null }) =>
  isAdmin(actor) || actor._id === moc.implementerId || actor._id === moc.hseqId || item.owner === actor._id;

/**
 * Marking one plan item done with a note and evidence (docs/decisions/038-actions-as-tasks.md):
 * someone who may read the MOC and mark the item, from approval on; before it, only a plan
 * editor. Whether the MOC is open is checked beside it.
 */
export const mayMarkItemDone = (actor: Actor, moc: MocAccess, item: { owner: string | null }) =>
  canViewMoc(actor, moc) && canMarkPlanItem(actor, moc, item) && (isMocApproved(moc) || isMocPlanEditor(actor, moc));

/** The person whose decision a role stands for, and whether the MOC waits on it now. */
export const isDecisionPending = (role: "approver" | "hseq", moc: MocAccess & MocProgress) =>
  role === "approver"
    ? moc.status === "d" || (moc.status === "b" && isDeviationOrExtensionPending(moc))
    : moc.status === "c" ||
      (moc.status === "b" && isDeviationOrExtensionPending(moc)) ||
      (moc.status === "f" && !moc.completed && moc.verifierId === null);

/** Change the approver or the HSEQ user while their decision is pending: admins and the HSEQ department, with a reason. */
export const canReassignPendingDecider = (actor: Actor) => isAdmin(actor) || isHseq(actor);

/**
 * Nobody but the originator has decided on the MOC yet: a draft, or waiting at Part B before the
 * implementer's first submission (an HSEQ return, an approval or a decline are decisions).
 */
export const isUndecided = (moc: Pick<MocAccess, "status" | "acted"> & Pick<MocProgress, "implementerSubmitted">) =>
  moc.status === "a" ||
  (moc.status === "b" &&
    !moc.implementerSubmitted &&
    (moc.acted?.reviewerIds.length ?? 0) === 0 &&
    (moc.acted?.approverIds.length ?? 0) === 0);

/**
 * Soft delete: the originator while nobody else has decided on it; afterwards an admin, with a
 * reason. Never a completed MOC (the caller answers 409 for that, whoever asks).
 */
export const canDeleteMoc = (actor: Actor, moc: MocAccess & Pick<MocProgress, "implementerSubmitted">) =>
  !moc.completed && (isAdmin(actor) || (moc.originatorId === actor._id && isUndecided(moc)));

/** An admin deleting a MOC someone else has decided on gives a reason. */
export const deleteNeedsReason = (moc: MocAccess & Pick<MocProgress, "implementerSubmitted">) => !isUndecided(moc);

/** The "Deleted" list of MOCs and restoring one: admins. */
export const canSeeDeletedMocs = (actor: Actor) => isAdmin(actor);
export const canRestoreMoc = (actor: Actor) => isAdmin(actor);

// Who may act on each MOC step is declared with the step: moc-steps.server.ts.

/**
 * Which MOCs a list shows: every one (not deleted), the ones naming the actor in all_users, the
 * completed ones, or those two together. Named, so a hot list can build its query once per scope.
 */
export type MocScope = "everything" | "all" | "involved" | "completed" | "involvedOrCompleted";

/** The scope of each list for an actor. */
export const mocScopeOf = {
  /** GET /api/newmoc: admin and HSEQ see all; others the MOCs listing them in all_users. */
  newmoc: (actor: Actor): MocScope => (isAdmin(actor) ? "everything" : isHseq(actor) ? "all" : "involved"),
  /** GET /api/getAllMoc: admin, HSEQ and full access see all; others the completed ones. */
  getAllMoc: (actor: Actor): MocScope =>
    isAdmin(actor) ? "everything" : isHseq(actor) || hasFullAccess(actor) ? "all" : "completed",
  /** Everything `canReadMoc` allows (pages' lists): `canViewMoc`'s MOCs and the crew's vessel's. */
  visible: (actor: Actor): MocScope =>
    isAdmin(actor) ? "everything" : isHseq(actor) || hasFullAccess(actor) ? "all" : "involvedOrCompleted",
};

export type MocList = keyof typeof mocScopeOf;

const involves = (actorId: unknown) =>
  sql`exists (select 1 from moc_users mu where mu.moc_id = m.id and mu.user_id = ${actorId})`;

/**
 * `isCrewOf` as SQL on `mocs m`: the actor is assigned today (UTC) to the vessel Part A names.
 * (Read by the pages' lists, `visible`; the spec's own list, GET /api/newmoc, is unchanged.)
 */
export const crewOfSql = (actorId: unknown) =>
  // The actor's vessels of today once (an uncorrelated subquery), then each MOC's Part A against them.
  sql`exists (select 1 from moc_forms cf where cf.moc_id = m.id and cf.kind = 'originator'
    and (cf.data->'vessel'->'value'->>'_id') = any(array(select va.vessel_id::text from vessel_assignments va
      where va.user_id = ${actorId}::uuid and ${currentAssignmentSql("va")})))`;

/**
 * A scope as an SQL condition on `mocs m`, for the actor whose id is `actorId`: a value, or a
 * placeholder in a query prepared once.
 */
export function mocScopeSql(scope: MocScope, actorId: unknown): SQL {
  // Another person's draft is never listed (`isOthersDraft`); admins' scope is `everything`.
  const notOthersDraft = sql`(m.status <> 'a' or m.originator_id = (select ${actorId}::uuid))`;
  switch (scope) {
    case "everything":
      return sql`not m.is_deleted`;
    case "all":
      return sql`not m.is_deleted and ${notOthersDraft}`;
    case "involved":
      // The actor's MOC ids first, then those MOCs by primary key; the id behind `select` so the
      // plan does not depend on it: PostgreSQL then plans this once per connection rather than on
      // every call, where planning cost as much as running (docs/performance.md).
      return sql`not m.is_deleted and m.id = any(array(select mu.moc_id from moc_users mu
        where mu.user_id = (select ${actorId}::uuid))) and ${notOthersDraft}`;
    case "completed":
      return sql`not m.is_deleted and m.completed`;
    case "involvedOrCompleted":
      return sql`not m.is_deleted and (m.completed or ${involves(actorId)} or ${crewOfSql(actorId)}) and ${notOthersDraft}`;
  }
}

/**
 * The same rules as SQL conditions on `mocs m`, for lists that filter in the database. Each mirrors
 * a predicate above and is tested against it.
 */
export const mocListScope = Object.fromEntries(
  Object.entries(mocScopeOf).map(([list, scopeOf]) => [list, (actor: Actor) => mocScopeSql(scopeOf(actor), actor._id)]),
) as Record<MocList, (actor: Actor) => SQL>;

// ---------------------------------------------------------------------------------------------
// PCRs (who reads a PCR: docs/api-contract.md, "PCR"; docs/decisions/005-pcr-signatures.md)

/** The positions that may read every PCR (docs/api-contract.md, "PCR"). */
export const PCR_AUTHORIZED_POSITIONS = [
  "VP Fleet Management",
  "HSEQ Coordinator",
  "Group HSEQ Manager",
  "Director HSEQ",
  "President",
] as const;

export type PcrAccess = {
  originatorId: string;
  status: string;
  partyIds: readonly string[];
  /** People an admin named to sign a position's slot of this PCR (docs/decisions/026-four-eyes-by-record.md). */
  substitutes?: readonly { role: string; userId: string }[];
  /**
   * Recipients of a circulation of this PCR (issue 41, docs/decisions/055-circulations.md): they
   * read what they are asked to acknowledge. A loader may list only the reader, when they are one.
   */
  circulatedTo?: readonly string[];
};

const hasPcrPosition = (actor: Actor) =>
  actor.position !== null && (PCR_AUTHORIZED_POSITIONS as readonly string[]).includes(actor.position);

/** Sees every PCR: an authorized position, admin, HSEQ department, or full access. */
export const seesAllPcrs = (actor: Actor) =>
  hasPcrPosition(actor) || isAdmin(actor) || isHseq(actor) || hasFullAccess(actor);

export const canViewPcr = (actor: Actor, pcr: PcrAccess) =>
  seesAllPcrs(actor) ||
  pcr.originatorId === actor._id ||
  pcr.partyIds.includes(actor._id) ||
  (pcr.substitutes ?? []).some((s) => s.userId === actor._id) ||
  (pcr.circulatedTo ?? []).includes(actor._id);

/**
 * `canViewPcr`, or through an absent person the actor stands in for today: a PCR that is theirs to
 * sign (they raised it, are an affected party, or hold a position of the chain), never through
 * their department's or account's powers (docs/decisions/026-four-eyes-by-record.md).
 */
export const canViewPcrAs = (actor: Actor, pcr: PcrAccess, principals: readonly Actor[]) =>
  canViewPcr(actor, pcr) ||
  principals.some((p) => pcr.originatorId === p._id || pcr.partyIds.includes(p._id) || hasPcrPosition(p));

/** PUT and DELETE /api/pcr: the originator while pending, or an admin. */
export const canEditPcr = (actor: Actor, pcr: PcrAccess) =>
  isAdmin(actor) || (pcr.originatorId === actor._id && pcr.status === "pending");

/**
 * Holds a slot of the chain: `Change Originator` is the PCR's originator, the rest are positions,
 * or the substitute an admin named for that slot of this PCR.
 */
export const holdsPcrRole = (actor: Actor, pcr: PcrAccess, role: string) =>
  role === "Change Originator"
    ? pcr.originatorId === actor._id
    : actor.position === role || (pcr.substitutes ?? []).some((s) => s.role === role && s.userId === actor._id);

/** Name substitutes for a PCR's position slots: admins. */
export const canNamePcrSubstitutes = (actor: Actor) => isAdmin(actor);

/**
 * Whether the person is a recipient of a circulation of the PCR (`PcrAccess.circulatedTo`), as SQL:
 * the lists read it over `p.id`, a single PCR's page and its files with the id itself.
 */
export const pcrRecipientSql = (pcrId: SQL | string, actorId: string): SQL =>
  sql`exists (select 1 from circulation_recipients cr join circulations c on c.id = cr.circulation_id
    where c.pcr_id = ${pcrId} and cr.user_id = ${actorId}::uuid)`;

/** The PCR lists as SQL over `p`, mirroring `canViewPcr`. */
export const pcrListScope = (actor: Actor) =>
  seesAllPcrs(actor)
    ? sql`true`
    : sql`(p.originator_id = ${actor._id} or ${actor._id}::uuid = any(p.party_ids)
        or p.substitutes @> ${JSON.stringify([{ userId: actor._id }])}::jsonb
        or ${pcrRecipientSql(sql`p.id`, actor._id)})`;

// ---------------------------------------------------------------------------------------------
// Circulations for "read and understood" (issue 41, docs/decisions/055-circulations.md)

/**
 * Circulate a finished record for acknowledgement, and close its circulation: the record's
 * originator, the HSEQ department or an admin. Whether it is finished is checked beside it (409).
 */
export const canCirculate = (actor: Actor, record: { originatorId: string }) =>
  isAdmin(actor) || isHseq(actor) || record.originatorId === actor._id;

/** Acknowledge a circulation: its recipients (whom it reached, or a crew change added), nobody else. */
export const canAcknowledge = (actor: Actor, circulation: { recipientIds: readonly string[] }) =>
  circulation.recipientIds.includes(actor._id);

/** The record a circulation belongs to, as its read rule sees it. */
export type CirculatedRecord = { kind: "moc"; moc: MocAccess } | { kind: "pcr"; pcr: PcrAccess };

/**
 * A circulation's tracking: whoever may read its record (`canReadMoc`, `canViewPcr`). A recipient
 * reads a circulated PCR (`circulatedTo`); a circulated MOC is completed, which everyone reads.
 */
export const canSeeCirculation = (actor: Actor, record: CirculatedRecord) =>
  record.kind === "moc" ? canReadMoc(actor, record.moc) : canViewPcr(actor, record.pcr);

// ---------------------------------------------------------------------------------------------
// External references (issue 42, docs/decisions/057-record-links-and-references.md)

/** Keep the list of reference types (/admin/references): admins. */
export const canManageReferenceTypes = (actor: Actor) => isAdmin(actor);

/** A record carrying references, as the rule below sees it. */
export type ReferencedRecord =
  | { kind: "moc"; moc: MocAccess }
  | { kind: "pcr"; pcr: PcrAccess }
  | { kind: "archive-moc" | "archive-pcr" | "review" };

/**
 * Add or remove a record's external references (in any state: an incident or a work order is often
 * known after the change): admins and the HSEQ department, and per kind those who keep the record —
 * a MOC's people (anyone it names, not its vessel's crew; another's draft stays its author's), a
 * PCR's originator, the archive's and the year-end reviews' writers. Reading them is reading the record.
 */
export const canManageReferences = (actor: Actor, record: ReferencedRecord) => {
  switch (record.kind) {
    case "moc":
      return !isOthersDraft(actor, record.moc) && (isAdmin(actor) || isHseq(actor) || isInvolved(actor, record.moc));
    case "pcr":
      return isAdmin(actor) || isHseq(actor) || record.pcr.originatorId === actor._id;
    case "archive-moc":
    case "archive-pcr":
      return canWriteArchive(actor);
    case "review":
      return canWriteReviews(actor);
  }
};

// ---------------------------------------------------------------------------------------------
// Legacy archive and year-end reviews

/** Read legacy records and year-end reviews: any signed-in user. */
export const canReadRecords = (_actor: Actor) => true;
/** Create, edit, delete and import legacy records: admins and the HSEQ department. */
export const canWriteArchive = (actor: Actor) => isAdmin(actor) || isHseq(actor);
/** Create and edit year-end reviews: admins and the HSEQ department. */
export const canWriteReviews = (actor: Actor) => isAdmin(actor) || isHseq(actor);

// ---------------------------------------------------------------------------------------------
// Links between records (issue 42, docs/decisions/057-record-links-and-references.md)

/**
 * One end of a link as the link rules see it (record-ref-kinds.server.ts works both out per kind in
 * SQL): `readable`, the reader may read the record by its kind's rule (`canReadMoc`, `canViewPcr`,
 * `canReadRecords`); `worksOn`, the reader works on it (a MOC's people `isInvolved` or its
 * originator, a PCR's originator, `canWriteArchive` for archive records, `canWriteReviews` for reviews).
 */
export type LinkEnd = { readable: boolean; worksOn: boolean };

/** Link two records: whoever may read both ends and is an admin, in HSEQ, or works on one of them. */
export const canLinkRecords = (actor: Actor, from: LinkEnd, to: LinkEnd) =>
  from.readable && to.readable && (isAdmin(actor) || isHseq(actor) || from.worksOn || to.worksOn);

/** Remove a link: whoever may make it between its ends, or its creator while they may read both ends. */
export const canUnlinkRecords = (actor: Actor, link: { createdBy: string }, from: LinkEnd, to: LinkEnd) =>
  canLinkRecords(actor, from, to) || (from.readable && to.readable && link.createdBy === actor._id);

/** The /insights page and GET /api/insights (KPIs over every MOC and PCR): admins, HSEQ, full access. */
export const canSeeInsights = (actor: Actor) => isAdmin(actor) || isHseq(actor) || hasFullAccess(actor);

/**
 * Answer a closed MOC's effectiveness review (/mocs/:id/effectiveness, POST /api/effectivenessReview;
 * issue 42, docs/decisions/058-effectiveness-review.md): the HSEQ department, whose turn it is, or an admin.
 * Its list twin: the daily run and "Waiting on me" ask the HSEQ department (`users.department = 'hseq'`).
 */
export const canAnswerEffectivenessReview = (actor: Actor) => isAdmin(actor) || isHseq(actor);

// ---------------------------------------------------------------------------------------------
// Operations

/** Run the daily reminder by hand (GET /api/auto_reminder with a session): admins. */
export const canRunReminders = (actor: Actor) => isAdmin(actor);

/** MOC files: anyone involved, or an admin, while the MOC is open (docs/decisions/022-records-out.md). */
export const canAttachToMoc = (actor: Actor, moc: MocAccess) =>
  isMocOpen(moc) && (isAdmin(actor) || isInvolved(actor, moc));

/** PCR files: its originator, an admin, the holders of its signature slots and its affected parties, while pending. */
export const canAttachToPcr = (actor: Actor, pcr: PcrAccess) =>
  pcr.status === "pending" &&
  (canEditPcr(actor, pcr) ||
    pcr.partyIds.includes(actor._id) ||
    PCR_ROLES.some((role) => holdsPcrRole(actor, pcr, role)));
