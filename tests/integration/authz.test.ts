/**
 * Who may do what, as the predicates in app/models/authz/authz.server.ts decide it:
 * a table of actors x predicates. Plus the same-origin rule for redirectTo.
 */
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import {
  canEditMocPlans,
  canListUsers,
  canManageMoc,
  canReadRecords,
  canRunReminders,
  canSeeInsights,
  canWriteArchive,
  canWriteReviews,
  canManageUsers,
  canSeeOutbox,
  canManageDelegations,
  canViewMoc,
  canReadMoc,
  isCrewOf,
  canManageVessels,
  canManageRanks,
  canAnswerEffectivenessReview,
  canSeeCrewList,
  canDeleteMoc,
  canReassignPendingDecider,
  canRestoreMoc,
  canSeeDeletedMocs,
  deleteNeedsReason,
  hasFullAccess,
  isAdmin,
  isHseq,
  isInvolved,
  isMocOpen,
  isOthersDraft,
  mocOpenSql,
  mayCancelPlanItems,
  mayMarkItemDone,
  canRecordAttendance,
  canSetTrainingAttendees,
  mocListScope,
  type Actor,
  type MocAccess,
} from "~/models/authz/authz.server";
import {
  canAcknowledge,
  canCirculate,
  canSeeCirculation,
  canViewPcr,
  pcrListScope,
  type PcrAccess,
} from "~/models/authz/authz.server";
import { canLinkRecords, canUnlinkRecords, type LinkEnd } from "~/models/authz/authz.server";
import { canManageReferences, canManageReferenceTypes, type ReferencedRecord } from "~/models/authz/authz.server";
import { pendingActions } from "~/models/moc/actions.server";
import { createPcrOk } from "../helpers/pcr";
import { isOpenItem, openItemSql } from "~/models/moc/moc-closure";
import { searchMocs } from "~/models/moc/moc-list.server";
import { loadMocAccess } from "~/models/moc/moc-query.server";
import { loadMocDocument } from "~/models/moc/moc-query.server";
import {
  currentOwner,
  waitsOnActor,
  MOC_STEPS,
  OWNER_SQL,
  stateOfDocument,
  STEPS,
  stepWaiting,
  WAITING_STEP_SQL,
} from "~/models/moc/moc-steps.server";
import { loadMocState } from "~/models/moc/moc-workflow.server";
import type { PublicUser } from "~/models/people/user.server";
import { safeRedirect } from "~/web/auth.server";
import { getDb } from "~/utils/db.server";
import * as deleteMocRoute from "~/routes/api+/deleteMoC";
import * as addUserRoute from "~/routes/api+/addUser";
import { api } from "../helpers/api";
import { makeAdmin, makeUser } from "../helpers/factories";
import type { Cast } from "../helpers/moc";
import {
  defaultStepBody,
  makeCast,
  mocAt,
  post,
  stepOk,
  temporaryMocAt,
  tokenOf,
  type Stage,
} from "../helpers/moc-flow";

const actor = (overrides: Partial<Actor>): Actor => ({
  _id: crypto.randomUUID(),
  role: "user",
  department: "engineering",
  access: "standard",
  position: null,
  ...overrides,
});

const ACTORS = {
  admin: actor({ role: "admin", department: "operations" }),
  "hseq user": actor({ department: "hseq" }),
  "full-access user": actor({ access: "full" }),
  "standard user": actor({}),
  "position holder": actor({ position: "President" }),
} as const;

type ActorName = keyof typeof ACTORS;

const PREDICATES = {
  canManageUsers,
  canListUsers,
  canSeeOutbox,
  canManageDelegations,
  canReadRecords,
  canWriteArchive,
  canWriteReviews,
  canRunReminders,
  canSeeInsights,
  canSeeDeletedMocs,
  canRestoreMoc,
  canReassignPendingDecider,
  canManageRanks,
  canAnswerEffectivenessReview,
} as const;

/** Expected answer per predicate, per actor. */
const TABLE: Record<keyof typeof PREDICATES, Record<ActorName, boolean>> = {
  canManageUsers: {
    admin: true,
    "hseq user": false,
    "full-access user": false,
    "standard user": false,
    "position holder": false,
  },
  canListUsers: {
    admin: true,
    "hseq user": true,
    "full-access user": true,
    "standard user": true,
    "position holder": true,
  },
  canManageDelegations: {
    admin: true,
    "hseq user": false,
    "full-access user": false,
    "standard user": false,
    "position holder": false,
  },
  canSeeOutbox: {
    admin: true,
    "hseq user": false,
    "full-access user": false,
    "standard user": false,
    "position holder": false,
  },
  canReadRecords: {
    admin: true,
    "hseq user": true,
    "full-access user": true,
    "standard user": true,
    "position holder": true,
  },
  canWriteArchive: {
    admin: true,
    "hseq user": true,
    "full-access user": false,
    "standard user": false,
    "position holder": false,
  },
  canWriteReviews: {
    admin: true,
    "hseq user": true,
    "full-access user": false,
    "standard user": false,
    "position holder": false,
  },
  canRunReminders: {
    admin: true,
    "hseq user": false,
    "full-access user": false,
    "standard user": false,
    "position holder": false,
  },
  // A closed MOC's effectiveness review (issue 42): the HSEQ department's turn, or an admin.
  canAnswerEffectivenessReview: {
    admin: true,
    "hseq user": true,
    "full-access user": false,
    "standard user": false,
    "position holder": false,
  },
  // /insights and GET /api/insights: figures over every MOC, so those who see every MOC.
  canSeeInsights: {
    admin: true,
    "hseq user": true,
    "full-access user": true,
    "standard user": false,
    "position holder": false,
  },
  // The "Deleted" list and restoring (docs/decisions/034-approved-content-and-deleting.md).
  canSeeDeletedMocs: {
    admin: true,
    "hseq user": false,
    "full-access user": false,
    "standard user": false,
    "position holder": false,
  },
  canRestoreMoc: {
    admin: true,
    "hseq user": false,
    "full-access user": false,
    "standard user": false,
    "position holder": false,
  },
  // A pending approver or HSEQ user is changed by admins and the HSEQ department, with a reason.
  canReassignPendingDecider: {
    admin: true,
    "hseq user": true,
    "full-access user": false,
    "standard user": false,
    "position holder": false,
  },
  // The list of ranks on board (/admin/ranks, issue 41).
  canManageRanks: {
    admin: true,
    "hseq user": false,
    "full-access user": false,
    "standard user": false,
    "position holder": false,
  },
};

const CASES = Object.entries(TABLE).flatMap(([predicate, row]) =>
  Object.entries(row).map(([who, expected]) => ({
    predicate: predicate as keyof typeof PREDICATES,
    who: who as ActorName,
    expected,
  })),
);

describe("authz predicates", () => {
  it.each(CASES)("$predicate($who) is $expected", ({ predicate, who, expected }) => {
    expect(PREDICATES[predicate](ACTORS[who])).toBe(expected);
  });

  it("an hseq admin with full access is still an admin (the grounds do not cancel out)", () => {
    const everything = actor({ role: "admin", department: "hseq", access: "full", position: "Director HSEQ" });
    expect(canManageUsers(everything)).toBe(true);
    expect(canSeeOutbox(everything)).toBe(true);
  });
});

describe("safeRedirect", () => {
  it.each([
    ["/", "/"],
    ["/mocs", "/mocs"],
    ["/mocs/123?tab=chat#latest", "/mocs/123?tab=chat#latest"],
    ["/admin/users?search=a%20b", "/admin/users?search=a%20b"],
  ])("keeps the same-origin path %j", (to, expected) => {
    expect(safeRedirect(to)).toBe(expected);
  });

  it.each([
    ["//evil.com", "protocol-relative"],
    ["///evil.com", "protocol-relative with three slashes"],
    ["/\\evil.com", "backslash (browsers read it as //)"],
    ["/\t/evil.com", "tab (browsers drop it, leaving //)"],
    ["/\n/evil.com", "newline (browsers drop it, leaving //)"],
    ["https://evil.com", "absolute"],
    ["http://localhost:3000/mocs", "absolute, even our own origin"],
    ["javascript:alert(1)", "javascript: URL"],
    ["mocs", "relative path"],
    ["", "empty"],
    [" /mocs", "leading space"],
  ])("falls back to / for %j (%s)", (to) => {
    expect(safeRedirect(to)).toBe("/");
  });

  it.each([null, undefined])("falls back to / for %s", (to) => {
    expect(safeRedirect(to)).toBe("/");
  });

  it("falls back to a File form value and uses the given fallback", () => {
    expect(safeRedirect(new File(["/mocs"], "x.txt"), "/home")).toBe("/home");
    expect(safeRedirect("//evil.com", "/dashboard")).toBe("/dashboard");
    expect(safeRedirect("/mocs", "/dashboard")).toBe("/mocs");
  });
});

// ---------------------------------------------------------------------------------------------
// MOC predicates (app/models/authz/authz.server.ts, docs/decisions/004-moc-workflow.md): a role x action table on in-memory records

const PEOPLE = {
  admin: actor({ role: "admin", department: "operations", access: "full" }),
  "hseq user": actor({ department: "hseq" }),
  "full-access user": actor({ access: "full" }),
  "standard user": actor({}),
  originator: actor({}),
  implementer: actor({ department: "operations" }),
  approver: actor({ department: "fleet" }),
  verifier: actor({}),
  "assigned hseq": actor({ department: "hseq" }),
  watcher: actor({ department: "fleet" }), // in all_users only (added with /api/addUser)
} as const;
type Person = keyof typeof PEOPLE;
const EVERYONE = Object.keys(PEOPLE) as Person[];

function record(overrides: Partial<MocAccess>, verifier = true): MocAccess {
  const roles = {
    originatorId: PEOPLE.originator._id,
    implementerId: PEOPLE.implementer._id,
    approverId: PEOPLE.approver._id,
    verifierId: verifier ? PEOPLE.verifier._id : null,
    hseqId: PEOPLE["assigned hseq"]._id,
  };
  const involved = [roles.originatorId, roles.implementerId, roles.approverId, roles.verifierId, roles.hseqId];
  return {
    status: "d",
    completed: false,
    ...roles,
    allUserIds: [...involved.filter((id): id is string => Boolean(id)), PEOPLE.watcher._id],
    acted: { makerIds: [], reviewerIds: [], approverIds: [] },
    // Every record of the table is past Part B's first submission (docs/decisions/034).
    implementerSubmitted: true,
    deviations: null,
    ...overrides,
  } as MocAccess;
}

const MOCS = {
  open: record({ status: "d" }),
  "open, no verifier": record({ status: "f" }, false),
  completed: record({ status: "f", completed: true }),
  declined: record({ status: "decline" }),
} as const;
type MocState = keyof typeof MOCS;

const MOC_PREDICATES: Record<string, (a: Actor, m: MocAccess) => boolean> = {
  canViewMoc,
  canManageMoc,
  canEditMocPlans,
  mayCancelPlanItems,
  canDeleteMoc: (a, m) => canDeleteMoc(a, m as Parameters<typeof canDeleteMoc>[1]),
  // An item the watcher owns (docs/decisions/038-actions-as-tasks.md), before and after approval.
  "mayMarkItemDone, before approval": (a, m) => mayMarkItemDone(a, m, { owner: PEOPLE.watcher._id }),
  "mayMarkItemDone, approved": (a, m) =>
    mayMarkItemDone(
      a,
      { ...m, acted: { ...m.acted!, approverIds: [PEOPLE.approver._id], approved: true } },
      { owner: PEOPLE.watcher._id },
    ),
  // Trainings (docs/decisions/056-training.md): a training item the watcher owns.
  canSetTrainingAttendees,
  canRecordAttendance: (a, m) => canRecordAttendance(a, m, { owner: PEOPLE.watcher._id }),
  ...Object.fromEntries(MOC_STEPS.map((step) => [`mayActOnStep.${step}`, STEPS[step].who.may])),
};

const EDITORS: Person[] = ["admin", "originator", "implementer", "assigned hseq"];
const VIEW_OPEN: Person[] = EVERYONE.filter((p) => p !== "standard user");
const VIEW_NO_VERIFIER: Person[] = VIEW_OPEN.filter((p) => p !== "verifier");

/** Who gets `true`, per predicate and per record. */
const MOC_TABLE: Record<string, Record<MocState, Person[]>> = {
  canViewMoc: { open: VIEW_OPEN, "open, no verifier": VIEW_NO_VERIFIER, completed: EVERYONE, declined: VIEW_OPEN },
  canManageMoc: {
    open: ["admin", "originator"],
    "open, no verifier": ["admin", "originator"],
    completed: ["admin", "originator"],
    declined: ["admin", "originator"],
  },
  canEditMocPlans: { open: EDITORS, "open, no verifier": EDITORS, completed: [], declined: [] },
  // Cancelling plan items with a reason (docs/decisions/033-closure-gates.md; whether the MOC is open is checked beside it).
  mayCancelPlanItems: {
    open: ["implementer", "assigned hseq"],
    "open, no verifier": ["implementer", "assigned hseq"],
    completed: ["implementer", "assigned hseq"],
    declined: ["implementer", "assigned hseq"],
  },
  // Marking an item done ("My actions"): before approval the plan editors who may mark it; from
  // approval on its owner too (whether the MOC is open is checked beside it).
  "mayMarkItemDone, before approval": {
    open: ["admin", "implementer", "assigned hseq"],
    "open, no verifier": ["admin", "implementer", "assigned hseq"],
    completed: ["admin", "implementer", "assigned hseq"],
    declined: ["admin", "implementer", "assigned hseq"],
  },
  "mayMarkItemDone, approved": {
    open: ["admin", "implementer", "assigned hseq", "watcher"],
    "open, no verifier": ["admin", "implementer", "assigned hseq", "watcher"],
    completed: ["admin", "implementer", "assigned hseq", "watcher"],
    // A declined MOC is not approved, whoever said yes before.
    declined: ["admin", "implementer", "assigned hseq"],
  },
  // Who must attend a training: the plan editors (open and approval are checked beside it).
  canSetTrainingAttendees: { open: EDITORS, "open, no verifier": EDITORS, completed: EDITORS, declined: EDITORS },
  // Recording attendance: the item's owner (the watcher), the implementer, the assigned HSEQ user and
  // the HSEQ department, if they may read the MOC; not an admin as such.
  canRecordAttendance: {
    open: ["hseq user", "implementer", "assigned hseq", "watcher"],
    "open, no verifier": ["hseq user", "implementer", "assigned hseq", "watcher"],
    completed: ["hseq user", "implementer", "assigned hseq", "watcher"],
    declined: ["hseq user", "implementer", "assigned hseq", "watcher"],
  },
  // Someone else has decided on each of these: only an admin deletes, and never a completed MOC.
  canDeleteMoc: { open: ["admin"], "open, no verifier": ["admin"], completed: [], declined: ["admin"] },
  "mayActOnStep.originator": {
    open: ["admin", "originator"],
    "open, no verifier": ["admin", "originator"],
    completed: ["admin", "originator"],
    declined: ["admin", "originator"],
  },
  "mayActOnStep.implementer": {
    open: ["implementer"],
    "open, no verifier": ["implementer"],
    completed: ["implementer"],
    declined: ["implementer"],
  },
  "mayActOnStep.hseq": {
    open: ["hseq user", "assigned hseq"],
    "open, no verifier": ["hseq user", "assigned hseq"],
    completed: ["hseq user", "assigned hseq"],
    declined: ["hseq user", "assigned hseq"],
  },
  "mayActOnStep.approver": {
    open: ["approver"],
    "open, no verifier": ["approver"],
    completed: ["approver"],
    declined: ["approver"],
  },
  "mayActOnStep.implementation": {
    open: ["implementer"],
    "open, no verifier": ["implementer"],
    completed: ["implementer"],
    declined: ["implementer"],
  },
  "mayActOnStep.deviation-extension": {
    open: ["approver", "assigned hseq"],
    "open, no verifier": ["approver", "assigned hseq"],
    completed: ["approver", "assigned hseq"],
    declined: ["approver", "assigned hseq"],
  },
  "mayActOnStep.completion-report": {
    open: ["implementer"],
    "open, no verifier": ["implementer"],
    completed: ["implementer"],
    declined: ["implementer"],
  },
  "mayActOnStep.verifier": {
    open: ["verifier"],
    "open, no verifier": ["assigned hseq"],
    completed: ["verifier"],
    declined: ["verifier"],
  },
  // Returning to implementation: the same people as the verification.
  "mayActOnStep.verifier-return": {
    open: ["verifier"],
    "open, no verifier": ["assigned hseq"],
    completed: ["verifier"],
    declined: ["verifier"],
  },
  // The end of a temporary change: the assigned people only (whether it is open is the state's business).
  "mayActOnStep.temporary-restored": {
    open: ["implementer"],
    "open, no verifier": ["implementer"],
    completed: ["implementer"],
    declined: ["implementer"],
  },
  "mayActOnStep.temporary-confirm": {
    open: ["assigned hseq"],
    "open, no verifier": ["assigned hseq"],
    completed: ["assigned hseq"],
    declined: ["assigned hseq"],
  },
  "mayActOnStep.temporary-extension": {
    open: ["implementer"],
    "open, no verifier": ["implementer"],
    completed: ["implementer"],
    declined: ["implementer"],
  },
  "mayActOnStep.temporary-extension-decision": {
    open: ["approver"],
    "open, no verifier": ["approver"],
    completed: ["approver"],
    declined: ["approver"],
  },
  "mayActOnStep.temporary-permanent": {
    open: ["implementer"],
    "open, no verifier": ["implementer"],
    completed: ["implementer"],
    declined: ["implementer"],
  },
};

const MOC_CASES = Object.entries(MOC_TABLE).flatMap(([predicate, states]) =>
  (Object.keys(states) as MocState[]).flatMap((state) =>
    EVERYONE.map((who) => ({ predicate, state, who, expected: states[state].includes(who) })),
  ),
);

describe("MOC predicates", () => {
  it("the table covers every MOC predicate, record and person", () => {
    expect(Object.keys(MOC_TABLE).sort()).toEqual(Object.keys(MOC_PREDICATES).sort());
    expect(MOC_CASES).toHaveLength(Object.keys(MOC_PREDICATES).length * 4 * EVERYONE.length);
  });

  it.each(MOC_CASES)("$predicate($who, $state MOC) is $expected", ({ predicate, state, who, expected }) => {
    expect(MOC_PREDICATES[predicate]!(PEOPLE[who], MOCS[state])).toBe(expected);
  });

  it.each([
    [{ done: false }, true],
    [{ done: false, cancelled: null }, true],
    [{}, true],
    [{ done: true }, false],
    [{ done: false, cancelled: { reason: "Not needed", by: "x", at: "2026-11-29T00:00:00.000Z" } }, false],
    [{ done: true, cancelled: null }, false],
  ] as const)("isOpenItem(%j) is %s, as its SQL twin says", async (item, expected) => {
    expect(isOpenItem({ done: false, ...item })).toBe(expected);
    const [row] = await getDb().execute<{ open: boolean }>(
      sql`select ${openItemSql(sql`${JSON.stringify(item)}::jsonb`)} as open`,
    );
    expect(row!.open).toBe(expected);
  });

  it.each([
    ["a", false, true],
    ["b", false, true],
    ["c", false, true],
    ["d", false, true],
    ["e", false, true],
    ["f", false, true],
    ["f", true, false],
    ["decline", false, false],
  ] as const)("isMocOpen(status %s, completed %s) is %s, as its SQL twin says", async (status, completed, expected) => {
    expect(isMocOpen({ status, completed })).toBe(expected);
    const [row] = await getDb().execute<{ open: boolean }>(
      sql`select ${mocOpenSql("x")} as open from (values (${status}, ${completed})) x(status, completed)`,
    );
    expect(row!.open).toBe(expected);
  });

  it("a draft is its author's alone (and admins'): not HSEQ's, full access's, the named implementer's or the crew's (issue 38 item 9)", () => {
    const draft = record({ status: "a", crewIds: [PEOPLE["standard user"]._id] });
    const readers = EVERYONE.filter((p) => canReadMoc(PEOPLE[p], draft));
    expect(readers).toEqual(["admin", "originator"]);
    expect(EVERYONE.filter((p) => canViewMoc(PEOPLE[p], draft))).toEqual(["admin", "originator"]);
    // Submitted, the same people read it as any open MOC, the crew included.
    const submitted = { ...draft, status: "b" };
    expect(EVERYONE.filter((p) => canReadMoc(PEOPLE[p], submitted))).toEqual(EVERYONE);
  });

  it.each([
    ["a draft", { status: "a", implementerSubmitted: false }, ["admin", "originator"], false],
    ["waiting at Part B, nobody decided", { status: "b", implementerSubmitted: false }, ["admin", "originator"], false],
    ["back at Part B after a submission", { status: "b", implementerSubmitted: true }, ["admin"], true],
  ] as const)("canDeleteMoc on %s: %j; a reason needed: %s", (_what, state, deleters, needsReason) => {
    const moc = record(state as Partial<MocAccess>) as Parameters<typeof canDeleteMoc>[1];
    expect(EVERYONE.filter((who) => canDeleteMoc(PEOPLE[who], moc))).toEqual(deleters);
    expect(deleteNeedsReason(moc)).toBe(needsReason);
  });

  it("an admin in HSEQ is both: may do the HSEQ review and edit plans, but not approve", () => {
    const boss = actor({ role: "admin", department: "hseq" });
    expect(STEPS.hseq.who.may(boss, MOCS.open)).toBe(true);
    expect(canEditMocPlans(boss, MOCS.open)).toBe(true);
    expect(STEPS.approver.who.may(boss, MOCS.open)).toBe(false);
    expect(STEPS.verifier.who.may(boss, MOCS["open, no verifier"])).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Crew read access (docs/decisions/036-vessels-and-crew-access.md): people assigned today to the MOC's vessel read it,
// nothing more. The SQL twin is checked person by person in tests/integration/vessels.test.ts.

const CREW = {
  admin: PEOPLE.admin,
  "standard user": PEOPLE["standard user"],
  "crew on board": actor({ department: "fleet" }),
  "crew ashore": actor({ department: "fleet" }), // assigned before or after today: not in crewIds
  originator: PEOPLE.originator,
} as const;
type CrewPerson = keyof typeof CREW;
const CREW_MOCS = {
  "open, vessel": record({ status: "d", crewIds: [CREW["crew on board"]._id] }),
  "completed, vessel": record({ status: "f", completed: true, crewIds: [CREW["crew on board"]._id] }),
  "open, office": record({ status: "d", crewIds: [] }),
} as const;
type CrewMoc = keyof typeof CREW_MOCS;
const CREW_PREDICATES: Record<string, (a: Actor, m: MocAccess) => boolean> = {
  isCrewOf,
  canReadMoc,
  canViewMoc,
  canManageMoc,
  canEditMocPlans,
  canManageVessels: (a) => canManageVessels(a),
  // The vessel's crew list with ranks (the vessel page, "My vessel"): the MOC's crew stands for the vessel's.
  canSeeCrewList: (a, m) => canSeeCrewList(a, { crewIds: m.crewIds ?? [] }),
};
const CREW_TABLE: Record<string, Record<CrewMoc, CrewPerson[]>> = {
  isCrewOf: { "open, vessel": ["crew on board"], "completed, vessel": ["crew on board"], "open, office": [] },
  canReadMoc: {
    "open, vessel": ["admin", "crew on board", "originator"],
    "completed, vessel": ["admin", "standard user", "crew on board", "crew ashore", "originator"],
    "open, office": ["admin", "originator"],
  },
  // Read only: crew access adds nothing to the rest.
  canViewMoc: {
    "open, vessel": ["admin", "originator"],
    "completed, vessel": ["admin", "standard user", "crew on board", "crew ashore", "originator"],
    "open, office": ["admin", "originator"],
  },
  canManageMoc: {
    "open, vessel": ["admin", "originator"],
    "completed, vessel": ["admin", "originator"],
    "open, office": ["admin", "originator"],
  },
  canEditMocPlans: {
    "open, vessel": ["admin", "originator"],
    "completed, vessel": [],
    "open, office": ["admin", "originator"],
  },
  canManageVessels: { "open, vessel": ["admin"], "completed, vessel": ["admin"], "open, office": ["admin"] },
  canSeeCrewList: {
    "open, vessel": ["admin", "crew on board"],
    "completed, vessel": ["admin", "crew on board"],
    "open, office": ["admin"],
  },
};
const CREW_CASES = Object.entries(CREW_TABLE).flatMap(([predicate, records]) =>
  (Object.keys(records) as CrewMoc[]).flatMap((state) =>
    (Object.keys(CREW) as CrewPerson[]).map((who) => ({
      predicate,
      state,
      who,
      expected: records[state].includes(who),
    })),
  ),
);

describe("crew read access", () => {
  it("the table covers every predicate, record and person", () => {
    expect(Object.keys(CREW_TABLE).sort()).toEqual(Object.keys(CREW_PREDICATES).sort());
    expect(CREW_CASES).toHaveLength(Object.keys(CREW_PREDICATES).length * 3 * Object.keys(CREW).length);
  });
  it.each(CREW_CASES)("$predicate($who, $state MOC) is $expected", ({ predicate, state, who, expected }) => {
    expect(CREW_PREDICATES[predicate]!(CREW[who], CREW_MOCS[state])).toBe(expected);
  });
  it("the office that runs the fleet sees a vessel's crew list it is not on; a standard user does not", () => {
    const vessel = { crewIds: [CREW["crew on board"]._id] };
    const seeing = (Object.keys(ACTORS) as ActorName[]).filter((who) => canSeeCrewList(ACTORS[who], vessel));
    expect(seeing).toEqual(["admin", "hseq user", "full-access user"]);
  });
});

// ---------------------------------------------------------------------------------------------
// mocListScope: each SQL filter selects exactly what its predicate allows, on real records

describe("mocListScope matches the predicates", () => {
  let cast: Cast;
  let actors: Record<string, PublicUser>;

  beforeAll(async () => {
    cast = await makeCast();
    const [admin, hseqUser, fullUser, stranger, watcher, hseqAdmin] = await Promise.all([
      makeAdmin({ name: "Ada Admin", department: "operations", access: "standard" }),
      makeUser({ name: "Hal Hseq", department: "hseq" }),
      makeUser({ name: "Fay Full", department: "fleet", access: "full" }),
      makeUser({ name: "Sam Stranger" }),
      makeUser({ name: "Wes Watcher", department: "operations" }),
      makeAdmin({ name: "Hank Hseq-Admin" }),
    ]);
    actors = { admin, hseqUser, fullUser, stranger, watcher, hseqAdmin, ...cast };

    const stages: Stage[] = [
      "a",
      "b",
      "c",
      "d",
      "e",
      "f",
      "b-deviation",
      "f-report",
      "decline-b",
      "decline-d",
      "completed",
    ];
    for (const stage of stages) await mocAt(stage, cast);
    await mocAt("f", cast, { verifier: true });
    // Temporary changes, closed: in effect, and waiting on HSEQ and on the approver.
    for (const stage of ["in-effect", "restoration-reported", "extension-requested"] as const) {
      await temporaryMocAt(stage, cast);
    }
    // And one past its end with nothing recorded: expired, waiting on its people and the HSEQ department.
    const expired = await temporaryMocAt("in-effect", cast);
    await getDb().execute(
      sql`update mocs set temporary = jsonb_set(temporary, '{until}', '"2020-01-01"'::jsonb) where id = ${expired._id}`,
    );
    // The watcher is in all_users of one open and one completed MOC.
    for (const stage of ["c", "completed"] as const) {
      const moc = await mocAt(stage === "completed" ? "f" : stage, cast);
      const res = await post(addUserRoute, "/api/addUser", cast.originator, {
        body: { userId: watcher._id, mocId: moc._id, role: "verifier" },
      });
      expect(res.status, res.text).toBe(200);
      if (stage === "completed") {
        await stepOk("verifier", watcher, defaultStepBody("verifier", moc, cast));
      }
    }
    // Soft-deleted ones, open and completed, with the watcher in one.
    // (A completed MOC can no longer be deleted through the app; one deleted before that rule stays so.)
    for (const stage of ["b", "completed"] as const) {
      const moc = await mocAt(stage, cast);
      if (stage === "completed") {
        await getDb().execute(sql`update mocs set is_deleted = true where id = ${moc._id}`);
        continue;
      }
      const res = await api(deleteMocRoute, {
        method: "DELETE",
        path: "/api/deleteMoC",
        query: { id: moc._id },
        token: await tokenOf(cast.originator),
      });
      expect(res.status, res.text).toBe(200);
    }
  }, 60_000);

  async function everyMoc() {
    const rows = await getDb().execute<{ id: string }>(sql`select id from mocs order by id`);
    return Promise.all([...rows].map(async (r) => (await loadMocAccess(r.id, getDb()))!));
  }

  const SCOPES = {
    /** GET /api/newmoc: admin and HSEQ all; others where listed in all_users. */
    newmoc: (a: Actor, m: MocAccess) => !isOthersDraft(a, m) && (isAdmin(a) || isHseq(a) || isInvolved(a, m)),
    /** GET /api/getAllMoc: admin, HSEQ and full access all; others completed ones. Another's draft: never. */
    getAllMoc: (a: Actor, m: MocAccess) =>
      !isOthersDraft(a, m) && (isAdmin(a) || isHseq(a) || hasFullAccess(a) || m.completed),
    /** Pages' lists: whatever canReadMoc allows (canViewMoc, and crew access: none of these MOCs names a vessel). */
    visible: canReadMoc,
  } as const;

  const ACTOR_NAMES = [
    "admin",
    "hseqAdmin",
    "hseqUser",
    "fullUser",
    "stranger",
    "watcher",
    "originator",
    "implementer",
    "approver",
    "hseq",
    "verifier",
  ];

  it.each(
    (Object.keys(SCOPES) as (keyof typeof SCOPES)[]).flatMap((scope) => ACTOR_NAMES.map((who) => ({ scope, who }))),
  )("mocListScope.$scope for $who", async ({ scope, who }) => {
    const person = actors[who]!;
    const all = await everyMoc();
    expect(all).toHaveLength(20);
    const expected = all
      .filter((m) => !m.isDeleted && SCOPES[scope](person, m))
      .map((m) => m.id)
      .sort();
    const rows = await getDb().execute<{ id: string }>(
      sql`select m.id from mocs m where ${mocListScope[scope](person)} order by m.id`,
    );
    expect([...rows].map((r) => r.id)).toEqual(expected);
    // Never vacuous: deleted MOCs exist and are never selected.
    expect(all.some((m) => m.isDeleted)).toBe(true);
  });

  it("the scopes differ where the rules differ", async () => {
    const count = async (scope: keyof typeof SCOPES, who: string) =>
      (
        await getDb().execute<{ n: number }>(
          sql`select count(*)::int as n from mocs m where ${mocListScope[scope](actors[who]!)}`,
        )
      )[0]!.n;
    // Full access widens getAllMoc and visible, not newmoc.
    expect(await count("newmoc", "fullUser")).toBe(0);
    // ...to all but other people's drafts (the admin sees those too: issue 38 item 9).
    expect(await count("getAllMoc", "fullUser")).toBe(
      (await count("getAllMoc", "admin")) -
        (await getDb().execute(sql`select 1 from mocs where status = 'a' and not is_deleted`)).length,
    );
    // A stranger sees completed MOCs only, and is listed nowhere.
    expect(await count("newmoc", "stranger")).toBe(0);
    expect(await count("getAllMoc", "stranger")).toBe(await count("visible", "stranger"));
    expect(await count("getAllMoc", "stranger")).toBeGreaterThan(0);
    // The watcher sees the open MOC they were added to in newmoc and visible, not in getAllMoc.
    expect(await count("visible", "watcher")).toBeGreaterThan(await count("getAllMoc", "watcher"));
  });

  // pendingActions (SQL) against the step definitions: a step waits on an actor when the MOC is
  // open, the step is open in the MOC's state (status and conditions), and its `who.may` allows the actor.
  it.each(ACTOR_NAMES)("pendingActions for %s are exactly the steps the workflow lets them take now", async (who) => {
    const person = actors[who]!;
    const expected: string[] = [];
    for (const moc of await everyMoc()) {
      if (moc.isDeleted || moc.status === "decline") continue;
      const state = await loadMocState(getDb(), moc);
      for (const step of MOC_STEPS) {
        if (waitsOnActor(step, person, moc, state)) expected.push(`${moc.serialNum} ${step}`);
      }
    }
    const actual = (await pendingActions(person)).actions.map((action) => `${action.moc.serial_num} ${action.type}`);
    expect(actual.sort()).toEqual(expected.sort());
  });

  it.each(ACTOR_NAMES)("the MOC list's 'waiting on me' filter for %s holds exactly their pending MOCs", async (who) => {
    const person = actors[who]!;
    const { actions } = await pendingActions(person);
    const { rows, total } = await searchMocs(person, { waiting: true, pageSize: 100 });
    expect(rows.map((r) => r.id).sort()).toEqual(actions.map((a) => a.moc._id).sort());
    expect(total).toBe(actions.length);
  });

  // The SQL twins of the step definitions, against the definitions, for every MOC here.
  it.each(ACTOR_NAMES)("each step's who.sql for %s holds exactly where who.may does", async (who) => {
    const person = actors[who]!;
    for (const step of MOC_STEPS) {
      const rows = await getDb().execute<{ id: string }>(
        sql`select m.id from mocs m where ${STEPS[step].who.sql(person)} order by m.id`,
      );
      const expected = (await everyMoc()).filter((moc) => STEPS[step].who.may(person, moc)).map((moc) => moc.id);
      expect(
        [...rows].map((r) => r.id),
        step,
      ).toEqual(expected.sort());
    }
  });

  it("the waiting step, its owner and the outstanding deviation read the same in SQL as from the document", async () => {
    const rows = await getDb().execute<{ id: string; waiting: string | null; owner: string | null }>(
      sql`select m.id, ${WAITING_STEP_SQL} as waiting, ${OWNER_SQL} as owner from mocs m order by m.id`,
    );
    const kinds = new Set<string | null>();
    for (const row of rows) {
      const doc = (await loadMocDocument(row.id))!;
      const state = stateOfDocument(doc);
      expect(await loadMocState(getDb(), { id: row.id, ...state })).toEqual(state);
      expect(row.waiting, doc.serial_num).toBe(stepWaiting(state));
      expect(row.owner, doc.serial_num).toBe(currentOwner(doc));
      kinds.add(row.waiting);
    }
    // Never vacuous: every kind of wait is among the MOCs here, and MOCs that wait on nobody.
    expect([...kinds].sort()).toEqual([...MOC_STEPS.filter((step) => !STEPS[step].open.notWaiting), null].sort());
  });

  it("pendingActions with a limit: the longest-waiting ones, in the same order, and the total", async () => {
    const all = await pendingActions(actors.hseqUser!);
    expect(all.total).toBeGreaterThan(1);
    expect(all.total).toBe(all.actions.length);
    const first = await pendingActions(actors.hseqUser!, { limit: 1 });
    expect(first).toEqual({ actions: all.actions.slice(0, 1), total: all.total });
    const stamps = all.actions.map((a) => a.waitingSince);
    expect(stamps).toEqual([...stamps].sort());
  });

  it("pendingActions are never vacuous here: every kind of action waits on someone", async () => {
    const kinds = new Set<string>();
    for (const who of ACTOR_NAMES)
      for (const action of (await pendingActions(actors[who]!)).actions) kinds.add(action.type);
    // Drafts too (a draft waits on its originator); a temporary change in effect waits on nobody
    // until its end is recorded, or until it expires.
    expect([...kinds].sort()).toEqual(MOC_STEPS.filter((step) => !STEPS[step].open.notWaiting).sort());
  });
});

// ---------------------------------------------------------------------------------------------
// Circulations for "read and understood" (issue 41, docs/decisions/055-circulations.md)

const CIRCULATION_PEOPLE = {
  admin: actor({ role: "admin", department: "operations" }),
  "hseq user": actor({ department: "hseq" }),
  "full-access user": actor({ access: "full" }),
  "standard user": actor({}),
  "position holder": actor({ position: "President" }),
  originator: actor({}),
  recipient: actor({ department: "fleet" }),
} as const;
type CirculationPerson = keyof typeof CIRCULATION_PEOPLE;
const CIRCULATION_EVERYONE = Object.keys(CIRCULATION_PEOPLE) as CirculationPerson[];
const P = CIRCULATION_PEOPLE;

const finishedPcr: PcrAccess = {
  originatorId: P.originator._id,
  status: "finished",
  partyIds: [],
  substitutes: [],
  circulatedTo: [P.recipient._id],
};
const completedMoc = record({ status: "f", completed: true, originatorId: P.originator._id });
const CIRCULATION_RECORDS = { "finished PCR": finishedPcr, "completed MOC": completedMoc } as const;
type CirculationRecordName = keyof typeof CIRCULATION_RECORDS;
const circulated = (name: CirculationRecordName) =>
  name === "finished PCR"
    ? ({ kind: "pcr", pcr: finishedPcr } as const)
    : ({ kind: "moc", moc: completedMoc } as const);

const CIRCULATION_PREDICATES: Record<string, (a: Actor, r: CirculationRecordName) => boolean> = {
  canCirculate: (a, r) => canCirculate(a, { originatorId: CIRCULATION_RECORDS[r].originatorId }),
  canAcknowledge: (a) => canAcknowledge(a, { recipientIds: [P.recipient._id] }),
  canSeeCirculation: (a, r) => canSeeCirculation(a, circulated(r)),
};
const CIRCULATION_TABLE: Record<string, Record<CirculationRecordName, CirculationPerson[]>> = {
  // Its originator, the HSEQ department or an admin (whether it is finished is checked beside it).
  canCirculate: {
    "finished PCR": ["admin", "hseq user", "originator"],
    "completed MOC": ["admin", "hseq user", "originator"],
  },
  // Its recipients, nobody else (not an admin, not HSEQ).
  canAcknowledge: { "finished PCR": ["recipient"], "completed MOC": ["recipient"] },
  // Whoever reads the record: a PCR's recipients through `circulatedTo`; a completed MOC everyone.
  canSeeCirculation: {
    "finished PCR": ["admin", "hseq user", "full-access user", "position holder", "originator", "recipient"],
    "completed MOC": CIRCULATION_EVERYONE,
  },
};
const CIRCULATION_CASES = Object.entries(CIRCULATION_TABLE).flatMap(([predicate, records]) =>
  (Object.keys(records) as CirculationRecordName[]).flatMap((state) =>
    CIRCULATION_EVERYONE.map((who) => ({ predicate, state, who, expected: records[state].includes(who) })),
  ),
);

describe("circulation predicates", () => {
  it("the table covers every predicate, record and person", () => {
    expect(Object.keys(CIRCULATION_TABLE).sort()).toEqual(Object.keys(CIRCULATION_PREDICATES).sort());
    expect(CIRCULATION_CASES).toHaveLength(3 * 2 * CIRCULATION_EVERYONE.length);
  });
  it.each(CIRCULATION_CASES)("$predicate($who, $state) is $expected", ({ predicate, state, who, expected }) => {
    expect(CIRCULATION_PREDICATES[predicate]!(CIRCULATION_PEOPLE[who], state)).toBe(expected);
  });
  it("without its circulation the recipient does not read the PCR", () => {
    expect(canViewPcr(P.recipient, { ...finishedPcr, circulatedTo: [] })).toBe(false);
  });
  it("pcrListScope lists a circulated PCR to its recipients (the SQL twin of `circulatedTo`)", async () => {
    const [originator, recipient, other] = await Promise.all([makeUser(), makeUser(), makeUser()]);
    const pcr = { id: (await createPcrOk(originator))._id as string };
    const [circulation] = await getDb().execute<{ id: string }>(sql`insert into circulations (pcr_id, departments, due,
        note, created_by) values (${pcr.id}, '{fleet}', '2099-01-01', 'note', ${originator._id}) returning id`);
    await getDb().execute(sql`insert into circulation_recipients (circulation_id, user_id, due)
      values (${circulation!.id}, ${recipient._id}, '2099-01-01')`);
    const listed = async (who: PublicUser) =>
      (await getDb().execute(sql`select 1 from pcrs p where p.id = ${pcr.id} and ${pcrListScope(who)}`)).length === 1;
    expect(await listed(recipient)).toBe(true);
    expect(await listed(other)).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Links between records (issue 42, docs/decisions/057-record-links-and-references.md)

const LINK_ENDS: Record<string, [LinkEnd, LinkEnd]> = {
  "reads both, works on neither": [
    { readable: true, worksOn: false },
    { readable: true, worksOn: false },
  ],
  "reads both, works on one": [
    { readable: true, worksOn: false },
    { readable: true, worksOn: true },
  ],
  "reads one only (works on it)": [
    { readable: true, worksOn: true },
    { readable: false, worksOn: false },
  ],
};
type LinkSituation = keyof typeof LINK_ENDS;
const LINK_CREATOR = actor({});
const LINK_PEOPLE = { ...ACTORS, "the link's creator": LINK_CREATOR } as const;
type LinkPerson = keyof typeof LINK_PEOPLE;
const LINK_PREDICATES: Record<string, (a: Actor, s: LinkSituation) => boolean> = {
  canLinkRecords: (a, s) => canLinkRecords(a, ...LINK_ENDS[s]!),
  canUnlinkRecords: (a, s) => canUnlinkRecords(a, { createdBy: LINK_CREATOR._id }, ...LINK_ENDS[s]!),
};
const ALL_LINK_PEOPLE = Object.keys(LINK_PEOPLE) as LinkPerson[];
const LINK_TABLE: Record<string, Record<LinkSituation, LinkPerson[]>> = {
  // Reads both ends, and is an admin, in HSEQ, or works on one of them.
  canLinkRecords: {
    "reads both, works on neither": ["admin", "hseq user"],
    "reads both, works on one": ALL_LINK_PEOPLE,
    "reads one only (works on it)": [],
  },
  // The same, or the link's creator while they read both ends.
  canUnlinkRecords: {
    "reads both, works on neither": ["admin", "hseq user", "the link's creator"],
    "reads both, works on one": ALL_LINK_PEOPLE,
    "reads one only (works on it)": [],
  },
};
const LINK_CASES = Object.entries(LINK_TABLE).flatMap(([predicate, situations]) =>
  (Object.keys(situations) as LinkSituation[]).flatMap((situation) =>
    ALL_LINK_PEOPLE.map((who) => ({ predicate, situation, who, expected: situations[situation]!.includes(who) })),
  ),
);

describe("link predicates", () => {
  it("the table covers every predicate, situation and person", () => {
    expect(Object.keys(LINK_TABLE).sort()).toEqual(Object.keys(LINK_PREDICATES).sort());
    expect(LINK_CASES).toHaveLength(2 * 3 * ALL_LINK_PEOPLE.length);
  });
  it.each(LINK_CASES)("$predicate($who, $situation) is $expected", ({ predicate, situation, who, expected }) => {
    expect(LINK_PREDICATES[predicate]!(LINK_PEOPLE[who], situation)).toBe(expected);
  });
});

// ---------------------------------------------------------------------------------------------
// External references (issue 42, docs/decisions/057-record-links-and-references.md)

const REFERENCE_PEOPLE = {
  admin: actor({ role: "admin", department: "operations" }),
  "hseq user": actor({ department: "hseq" }),
  "full-access user": actor({ access: "full" }),
  "standard user": actor({}),
  "position holder": actor({ position: "President" }),
  originator: actor({}),
  "MOC implementer": actor({ department: "operations" }),
} as const;
type ReferencePerson = keyof typeof REFERENCE_PEOPLE;
const REFERENCE_EVERYONE = Object.keys(REFERENCE_PEOPLE) as ReferencePerson[];
const R = REFERENCE_PEOPLE;
const referencedMoc = (status: string, completed = false): MocAccess => ({
  status,
  completed,
  originatorId: R.originator._id,
  implementerId: R["MOC implementer"]._id,
  approverId: null,
  verifierId: null,
  hseqId: null,
  allUserIds: [R.originator._id, R["MOC implementer"]._id],
  acted: { makerIds: [], reviewerIds: [], approverIds: [] },
});
const REFERENCED_RECORDS = {
  "open MOC": { kind: "moc", moc: referencedMoc("c") },
  "completed MOC": { kind: "moc", moc: referencedMoc("f", true) },
  "draft MOC": { kind: "moc", moc: referencedMoc("a") },
  "finished PCR": {
    kind: "pcr",
    pcr: { originatorId: R.originator._id, status: "finished", partyIds: [R["MOC implementer"]._id] },
  },
  "archive record": { kind: "archive-moc" },
  "year-end review": { kind: "review" },
} as const satisfies Record<string, ReferencedRecord>;
type ReferencedName = keyof typeof REFERENCED_RECORDS;

const REFERENCE_PREDICATES: Record<string, (a: Actor, r: ReferencedName) => boolean> = {
  canManageReferenceTypes: (a) => canManageReferenceTypes(a),
  canManageReferences: (a, r) => canManageReferences(a, REFERENCED_RECORDS[r]),
};
const REFERENCE_TABLE: Record<string, Record<ReferencedName, ReferencePerson[]>> = {
  // The list of types: admins only, whatever the record.
  canManageReferenceTypes: {
    "open MOC": ["admin"],
    "completed MOC": ["admin"],
    "draft MOC": ["admin"],
    "finished PCR": ["admin"],
    "archive record": ["admin"],
    "year-end review": ["admin"],
  },
  // Admins and HSEQ, and those who keep the record: a MOC's people (in any state; another's draft
  // stays its author's), a PCR's originator (not its parties), the archive's and reviews' writers.
  canManageReferences: {
    "open MOC": ["admin", "hseq user", "originator", "MOC implementer"],
    "completed MOC": ["admin", "hseq user", "originator", "MOC implementer"],
    "draft MOC": ["admin", "originator"],
    "finished PCR": ["admin", "hseq user", "originator"],
    "archive record": ["admin", "hseq user"],
    "year-end review": ["admin", "hseq user"],
  },
};
const REFERENCE_CASES = Object.entries(REFERENCE_TABLE).flatMap(([predicate, records]) =>
  (Object.keys(records) as ReferencedName[]).flatMap((situation) =>
    REFERENCE_EVERYONE.map((who) => ({ predicate, situation, who, expected: records[situation].includes(who) })),
  ),
);

describe("external reference predicates", () => {
  it("the table covers every predicate, record and person", () => {
    expect(Object.keys(REFERENCE_TABLE).sort()).toEqual(Object.keys(REFERENCE_PREDICATES).sort());
    expect(REFERENCE_CASES).toHaveLength(2 * 6 * REFERENCE_EVERYONE.length);
  });
  it.each(REFERENCE_CASES)("$predicate($who, $situation) is $expected", ({ predicate, situation, who, expected }) => {
    expect(REFERENCE_PREDICATES[predicate]!(REFERENCE_PEOPLE[who], situation)).toBe(expected);
  });
});
