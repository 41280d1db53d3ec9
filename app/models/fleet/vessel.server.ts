/**
 * The vessel register and crew assignments (docs/decisions/036-vessels-and-crew-access.md). Anyone
 * signed in reads the register (Part A's scope picker); admins write it (`canManageVessels`).
 * Every write is one transaction with its audit entry (kind `vessel`).
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { users, vesselAssignments, vessels } from "#db/schema";
import { getDb, type Executor } from "~/utils/db.server";
import { Conflict, Forbidden, Invalid, NotFound, databaseErrorCode } from "~/utils/errors";
import { appendAudit } from "../audit/audit.server";
import { canManageVessels, isAdmin, isAssignmentCurrent, type Actor } from "../authz/authz.server";
import { addJoinerToCirculations } from "../circulations/circulations.server";
import type { AssignmentInput, Scope, VesselInput } from "./vessel.schema";

export type VesselJson = {
  _id: string;
  name: string;
  imo: string;
  ship_type: string;
  flag: string;
  active: boolean;
  createdAt: string;
  updatedAt: string;
};

export type AssignmentJson = {
  _id: string;
  vessel: { _id: string; name: string };
  user: { _id: string; name: string };
  from: string;
  to: string | null;
  /** The period holds today (UTC). */
  current: boolean;
};

type VesselRow = typeof vessels.$inferSelect;

const toJson = (row: VesselRow): VesselJson => ({
  _id: row.id,
  name: row.name,
  imo: row.imo,
  ship_type: row.shipType,
  flag: row.flag,
  active: row.active,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const todayUtc = (now = new Date()) => now.toISOString().slice(0, 10);

function requireManager(actor: Actor) {
  if (!canManageVessels(actor)) throw new Forbidden("Only admins keep the vessel register");
}

/** The register, by name (every signed-in user; inactive ones included unless `activeOnly`). */
export async function listVessels(
  options: { activeOnly?: boolean } = {},
  db: Executor = getDb(),
): Promise<VesselJson[]> {
  const rows = await db
    .select()
    .from(vessels)
    .where(options.activeOnly ? eq(vessels.active, true) : undefined)
    .orderBy(asc(vessels.name), asc(vessels.id));
  return rows.map(toJson);
}

export async function getVessel(id: string, db: Executor = getDb()): Promise<VesselJson> {
  const [row] = await db.select().from(vessels).where(eq(vessels.id, id));
  if (!row) throw new NotFound("No vessel with this id");
  return toJson(row);
}

/** A duplicate IMO number is a 409 naming the field. */
async function uniqueImo<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (databaseErrorCode(error) === "23505") {
      throw new Conflict("A vessel with this IMO number is already in the register");
    }
    throw error;
  }
}

export async function createVessel(actor: Actor, input: VesselInput): Promise<VesselJson> {
  requireManager(actor);
  return uniqueImo(() =>
    getDb().transaction(async (tx) => {
      const [row] = await tx
        .insert(vessels)
        .values({
          name: input.name,
          imo: input.imo,
          shipType: input.ship_type ?? "",
          flag: input.flag ?? "",
          active: input.active ?? true,
        })
        .returning();
      await appendAudit(tx, { kind: "vessel", recordId: row!.id, actorId: actor._id, action: "Added", to: row!.name });
      return toJson(row!);
    }),
  );
}

/**
 * PUT: changes what it names. A new name is written into the Part A of the MOCs naming the vessel
 * (they store its name beside its id, as they store a person's), so lists and records read it.
 */
export async function updateVessel(actor: Actor, id: string, input: Partial<VesselInput>): Promise<VesselJson> {
  requireManager(actor);
  return uniqueImo(() =>
    getDb().transaction(async (tx) => {
      const [before] = await tx.select().from(vessels).where(eq(vessels.id, id)).for("update");
      if (!before) throw new NotFound("No vessel with this id");
      const [row] = await tx
        .update(vessels)
        .set({
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.imo !== undefined ? { imo: input.imo } : {}),
          ...(input.ship_type !== undefined ? { shipType: input.ship_type } : {}),
          ...(input.flag !== undefined ? { flag: input.flag } : {}),
          ...(input.active !== undefined ? { active: input.active } : {}),
          updatedAt: new Date(),
        })
        .where(eq(vessels.id, id))
        .returning();
      if (row!.name !== before.name) {
        await tx.execute(sql`update moc_forms set data = jsonb_set(data, '{vessel,value,name}', to_jsonb(${row!.name}::text))
          where kind = 'originator' and data->'vessel'->'value'->>'_id' = ${id}`);
      }
      const changed = (["name", "imo", "shipType", "flag", "active"] as const).filter((k) => before[k] !== row![k]);
      if (changed.length) {
        await appendAudit(tx, {
          kind: "vessel",
          recordId: id,
          actorId: actor._id,
          action: "Edited",
          comment: changed.map((k) => `${k}: ${String(before[k])} -> ${String(row![k])}`).join("; "),
        });
      }
      return toJson(row!);
    }),
  );
}

/** DELETE: a vessel no MOC or circulation names (409 otherwise: deactivate it instead); its assignments go with it. */
export async function deleteVessel(actor: Actor, id: string): Promise<{ _id: string }> {
  requireManager(actor);
  return getDb().transaction(async (tx) => {
    const [row] = await tx.select().from(vessels).where(eq(vessels.id, id)).for("update");
    if (!row) throw new NotFound("No vessel with this id");
    const [named] = await tx.execute<{ n: number }>(sql`select count(*)::int as n from moc_forms
      where kind = 'originator' and data->'vessel'->'value'->>'_id' = ${id}`);
    if ((named?.n ?? 0) > 0) {
      throw new Conflict(`${named!.n} MOC(s) name this vessel; deactivate it instead of deleting it`);
    }
    // A circulation's tracking names it too (issue 41): kept, like the MOCs.
    const [circulated] = await tx.execute<{ n: number }>(
      sql`select count(*)::int as n from circulations where ${id}::uuid = any(vessel_ids)`,
    );
    if ((circulated?.n ?? 0) > 0) {
      throw new Conflict(`${circulated!.n} circulation(s) name this vessel; deactivate it instead of deleting it`);
    }
    await tx.delete(vessels).where(eq(vessels.id, id));
    await appendAudit(tx, { kind: "vessel", recordId: id, actorId: actor._id, action: "Deleted", from: row.name });
    return { _id: id };
  });
}

// ---------------------------------------------------------------------------------------------
// Crew assignments

const ASSIGNMENT_COLUMNS = {
  id: vesselAssignments.id,
  vesselId: vessels.id,
  vesselName: vessels.name,
  userId: users.id,
  userName: users.name,
  from: vesselAssignments.fromDate,
  to: vesselAssignments.toDate,
};

const assignmentJson = (
  r: {
    id: string;
    vesselId: string;
    vesselName: string;
    userId: string;
    userName: string;
    from: string;
    to: string | null;
  },
  today: string,
): AssignmentJson => ({
  _id: r.id,
  vessel: { _id: r.vesselId, name: r.vesselName },
  user: { _id: r.userId, name: r.userName },
  from: r.from,
  to: r.to,
  current: isAssignmentCurrent(r, today),
});

/**
 * Assignments, latest start first: of one vessel or one person. Admins read any; others read
 * their own only (403 otherwise).
 */
export async function listAssignments(
  actor: Actor,
  query: { vessel_id?: string; user_id?: string },
  db: Executor = getDb(),
): Promise<AssignmentJson[]> {
  if (!isAdmin(actor) && query.user_id !== actor._id) {
    throw new Forbidden("Only admins read other people's vessel assignments; ask for your own with user_id");
  }
  const conditions = [
    query.vessel_id ? eq(vesselAssignments.vesselId, query.vessel_id) : undefined,
    query.user_id ? eq(vesselAssignments.userId, query.user_id) : undefined,
  ].filter(Boolean);
  const rows = await db
    .select(ASSIGNMENT_COLUMNS)
    .from(vesselAssignments)
    .innerJoin(vessels, eq(vessels.id, vesselAssignments.vesselId))
    .innerJoin(users, eq(users.id, vesselAssignments.userId))
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(sql`${vesselAssignments.fromDate} desc`, asc(users.name), asc(vesselAssignments.id));
  const today = todayUtc();
  return rows.map((r) => assignmentJson(r, today));
}

/** POST: a person (active) on a vessel for a period. An overlapping period of the same pair is a 409. */
export async function addAssignment(actor: Actor, input: AssignmentInput): Promise<AssignmentJson> {
  requireManager(actor);
  return getDb().transaction(async (tx) => {
    const [vessel] = await tx.select().from(vessels).where(eq(vessels.id, input.vessel_id)).for("update");
    const [user] = await tx
      .select({ id: users.id, active: users.active })
      .from(users)
      .where(eq(users.id, input.user_id));
    const issues = [
      ...(vessel ? [] : [{ path: "vessel_id", message: "No vessel with this id" }]),
      ...(user?.active ? [] : [{ path: "user_id", message: "No active user with this id" }]),
    ];
    if (issues.length) throw new Invalid("The assignment names a vessel or a person that is not there", issues);
    const to = input.to ?? null;
    const [overlap] = await tx.execute<{ id: string }>(sql`select id from vessel_assignments
      where vessel_id = ${input.vessel_id} and user_id = ${input.user_id}
        and from_date <= coalesce(${to}::date, 'infinity'::date) and coalesce(to_date, 'infinity'::date) >= ${input.from}::date
      limit 1`);
    if (overlap) {
      throw new Conflict("This person is already assigned to this vessel for part of that period");
    }
    const [row] = await tx
      .insert(vesselAssignments)
      .values({
        vesselId: input.vessel_id,
        userId: input.user_id,
        fromDate: input.from,
        toDate: to,
        createdBy: actor._id,
      })
      .returning({ id: vesselAssignments.id });
    await appendAudit(tx, {
      kind: "vessel",
      recordId: input.vessel_id,
      actorId: actor._id,
      action: "Crew assigned",
      comment: `${input.user_id} from ${input.from} to ${to ?? "(open)"}`,
    });
    // A crew change: the joiner gets the vessel's open circulations to acknowledge (issue 41).
    await addJoinerToCirculations(tx, {
      userId: input.user_id,
      vesselId: input.vessel_id,
      fromDate: input.from,
      toDate: to,
    });
    const [full] = await tx
      .select(ASSIGNMENT_COLUMNS)
      .from(vesselAssignments)
      .innerJoin(vessels, eq(vessels.id, vesselAssignments.vesselId))
      .innerJoin(users, eq(users.id, vesselAssignments.userId))
      .where(eq(vesselAssignments.id, row!.id));
    return assignmentJson(full!, todayUtc());
  });
}

/** DELETE: an assignment, whatever its period (an admin ending one early edits `to` by adding it again). */
export async function removeAssignment(actor: Actor, id: string): Promise<{ _id: string }> {
  requireManager(actor);
  return getDb().transaction(async (tx) => {
    const [row] = await tx.delete(vesselAssignments).where(eq(vesselAssignments.id, id)).returning();
    if (!row) throw new NotFound("No vessel assignment with this id");
    await appendAudit(tx, {
      kind: "vessel",
      recordId: row.vesselId,
      actorId: actor._id,
      action: "Crew assignment removed",
      comment: `${row.userId} from ${row.fromDate} to ${row.toDate ?? "(open)"}`,
    });
    return { _id: id };
  });
}

// ---------------------------------------------------------------------------------------------
// Part A's scope

/** Part A's `vessel` as stored: a vessel by id and name (at the time, kept current on rename), or a scope. */
export type StoredScope = { _id: string; name: string } | Scope;

/**
 * Part A's `vessel` input as stored: an active vessel's id and name, or "office"/"fleet". An
 * unknown or inactive vessel is a 400 on `path`.
 */
export async function resolveScope(
  tx: Executor,
  value: { _id: string } | Scope,
  path = "vessel",
): Promise<StoredScope> {
  if (typeof value === "string") return value;
  const [row] = await tx
    .select({ name: vessels.name, active: vessels.active })
    .from(vessels)
    .where(eq(vessels.id, value._id));
  if (!row?.active) {
    throw new Invalid("Part A names a vessel that is not in the register or no longer active", [
      { path, message: "No active vessel with this id" },
    ]);
  }
  return { _id: value._id, name: row.name };
}
