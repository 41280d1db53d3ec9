/**
 * Delegation while someone is away (docs/decisions/023-temporary-changes-and-delegation.md): a
 * person (or an admin for them) names a delegate and a period. In that period the delegate may take
 * the MOC steps waiting on the absent person, recorded as "A on behalf of B", and gets the emails
 * that go to them. No chains: only the absent person's own delegation counts, never one the
 * delegate gave in turn. Creating, changing and ending one is audited in the
 * delegation's chain of the audit trail (`audit_entries`, kind `delegation`).
 */
import type { SqlRow } from "#db/schema/rows";
import { sql, type Placeholder } from "drizzle-orm";
import { z } from "zod";
import { users } from "#db/schema";
import { getDb, type Executor } from "~/utils/db.server";
import { Conflict, Forbidden, Invalid, NotFound } from "~/utils/errors";
import { appendAudit, historyOf } from "../audit/audit.server";
import { isAdmin, type Actor } from "../authz/authz.server";
import { isoDate, uuid } from "../shared/fields.schema";
import type { PublicUser } from "./user.server";

export type Delegation = {
  id: string;
  userId: string;
  userName: string;
  delegateId: string;
  delegateName: string;
  startsOn: string;
  endsOn: string;
  createdBy: string;
  createdByName: string;
  /** Ended early (it no longer counts). */
  ended: boolean;
};

export const delegationSchema = z.object({
  userId: uuid("user id"),
  delegateId: uuid("user id"),
  startsOn: isoDate,
  endsOn: isoDate,
});
export type DelegationInput = z.infer<typeof delegationSchema>;

const utcDay = (now: Date) => now.toISOString().slice(0, 10);

/** A delegation `d` in force on `day`: within its period and not ended early. */
const ACTIVE_ON = (day: string | Placeholder) =>
  sql`d.ended_at is null and d.starts_on <= ${day}::date and d.ends_on >= ${day}::date`;

const SELECT = sql`select d.id, d.user_id as "userId", u.name as "userName", d.delegate_id as "delegateId",
    g.name as "delegateName", d.starts_on::text as "startsOn", d.ends_on::text as "endsOn",
    d.created_by as "createdBy", c.name as "createdByName", d.ended_at is not null as ended
  from delegations d join users u on u.id = d.user_id join users g on g.id = d.delegate_id
  join users c on c.id = d.created_by`;

/** The delegations a person gave or received (the profile), latest first. */
export async function delegationsOf(userId: string): Promise<Delegation[]> {
  const rows = await getDb().execute<Delegation>(
    sql`${SELECT} where d.user_id = ${userId} or d.delegate_id = ${userId} order by d.starts_on desc, d.id`,
  );
  return [...rows];
}

/** Every delegation (the admin page), current and future first. */
export async function allDelegations(today = utcDay(new Date())): Promise<Delegation[]> {
  const rows = await getDb().execute<Delegation>(
    sql`${SELECT} order by d.ends_on < ${today}::date, d.starts_on desc, d.id limit 500`,
  );
  return [...rows];
}

/**
 * The people `delegateId` stands in for on `day` (today, in UTC, unless given): the absent people
 * whose own delegation to them covers the day. Only direct delegations (no chains); inactive absent
 * people are left out.
 */
export async function principalsOf(
  db: Executor,
  delegateId: string,
  day: string = utcDay(new Date()),
): Promise<PublicUser[]> {
  const rows = await db.execute<PublicUser>(sql`
    select u.id as "_id", u.name, u.email, u.role, u.department, u.access, u.position, u.active, u.onboarded
    from delegations d join users u on u.id = d.user_id
    where d.delegate_id = ${delegateId} and ${ACTIVE_ON(day)} and u.active
    order by u.name, u.id`);
  return [...rows];
}

/**
 * SQL: the delegates standing in on `day` for any of the users whose ids `idsJson` lists as a JSON
 * array (emails go to them too). Either may be a placeholder of a statement built once.
 */
export const delegatesOfSql = (idsJson: string | Placeholder, day: string | Placeholder) => sql`(select d.delegate_id
  from delegations d where d.user_id in (select jsonb_array_elements_text(${idsJson}::jsonb)::uuid) and ${ACTIVE_ON(day)})`;

/** One entry of the delegation's own chain in the audit trail (docs/decisions/021-records-people-can-trust.md). */
async function audit(tx: Executor, delegationId: string, actorId: string, action: string) {
  await appendAudit(tx, { kind: "delegation", recordId: delegationId, actorId, action });
}

async function requireUser(tx: Executor, id: string, path: string) {
  const [row] = await tx.execute<Pick<SqlRow<"users">, "id" | "name" | "active">>(
    sql`select id, name, active from ${users} where id = ${id} for update`,
  );
  if (!row) throw new Invalid("No user with this id", [{ path, message: "No such user" }]);
  if (!row.active) throw new Invalid(`${row.name} is deactivated`, [{ path, message: "Choose an active user" }]);
  return row;
}

/** Checks a period and that it overlaps no other delegation of the same person; returns an issue or null. */
async function checkPeriod(
  tx: Executor,
  input: DelegationInput,
  options: { except?: string; today: string },
): Promise<void> {
  if (input.userId === input.delegateId) {
    throw new Invalid("Nobody can be their own delegate", [{ path: "delegateId", message: "Choose someone else" }]);
  }
  if (input.endsOn < input.startsOn) {
    throw new Invalid("The period ends before it starts", [
      { path: "endsOn", message: "Choose the start date or later" },
    ]);
  }
  if (input.endsOn < options.today) {
    throw new Invalid("The period is already over", [{ path: "endsOn", message: "Choose today or a later date" }]);
  }
  const overlapping = await tx.execute<{ name: string; startsOn: string; endsOn: string }>(sql`
    select g.name, d.starts_on::text as "startsOn", d.ends_on::text as "endsOn"
    from delegations d join users g on g.id = d.delegate_id
    where d.user_id = ${input.userId} and d.ended_at is null
      and d.starts_on <= ${input.endsOn}::date and d.ends_on >= ${input.startsOn}::date
      ${options.except ? sql`and d.id <> ${options.except}` : sql``}
    limit 1`);
  const clash = overlapping[0];
  if (clash) {
    throw new Conflict(
      `This overlaps the delegation to ${clash.name} from ${clash.startsOn} to ${clash.endsOn}; change or end that one first`,
    );
  }
}

const mayManage = (actor: Actor, userId: string) => isAdmin(actor) || actor._id === userId;

/** A person (or an admin for them) names a delegate and a period. */
export async function createDelegation(actor: PublicUser, raw: unknown, now = new Date()): Promise<Delegation> {
  const parsed = delegationSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Invalid(
      "Check the delegation",
      parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    );
  }
  const input = parsed.data;
  if (!mayManage(actor, input.userId)) throw new Forbidden("Only an admin can name a delegate for someone else");
  return getDb().transaction(async (tx) => {
    // Locks both people's rows: two overlapping delegations of one person cannot pass together.
    const absent = await requireUser(tx, input.userId, "userId");
    const delegate = await requireUser(tx, input.delegateId, "delegateId");
    await checkPeriod(tx, input, { today: utcDay(now) });
    const [row] = await tx.execute<{ id: string }>(sql`
      insert into delegations (user_id, delegate_id, starts_on, ends_on, created_by)
      values (${input.userId}, ${input.delegateId}, ${input.startsOn}, ${input.endsOn}, ${actor._id}) returning id`);
    await audit(
      tx,
      row!.id,
      actor._id,
      `Delegated ${absent.name}'s steps to ${delegate.name} from ${input.startsOn} to ${input.endsOn}`,
    );
    return (await delegationById(tx, row!.id))!;
  });
}

async function delegationById(db: Executor, id: string): Promise<Delegation | null> {
  const rows = await db.execute<Delegation>(sql`${SELECT} where d.id = ${id}`);
  return rows[0] ?? null;
}

async function lockDelegation(tx: Executor, actor: Actor, id: string): Promise<Delegation> {
  const [locked] = await tx.execute<{ user_id: string }>(
    sql`select user_id from delegations where id = ${id} for update`,
  );
  if (!locked) throw new NotFound("No delegation with this id");
  if (!mayManage(actor, locked.user_id))
    throw new Forbidden("Only the absent person or an admin can change this delegation");
  await requireUser(tx, locked.user_id, "userId");
  return (await delegationById(tx, id))!;
}

/** Changes the period of a delegation not yet over. */
export async function changeDelegation(
  actor: PublicUser,
  id: string,
  period: { startsOn: unknown; endsOn: unknown },
  now = new Date(),
): Promise<Delegation> {
  const parsed = z.object({ startsOn: isoDate, endsOn: isoDate }).safeParse(period);
  if (!parsed.success) {
    throw new Invalid(
      "Check the period",
      parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    );
  }
  return getDb().transaction(async (tx) => {
    const current = await lockDelegation(tx, actor, id);
    const today = utcDay(now);
    if (current.ended || current.endsOn < today) throw new Conflict("This delegation is over and can no longer change");
    const input = { userId: current.userId, delegateId: current.delegateId, ...parsed.data };
    await checkPeriod(tx, input, { except: id, today });
    await tx.execute(sql`update delegations set starts_on = ${input.startsOn}, ends_on = ${input.endsOn},
      updated_at = now() where id = ${id}`);
    await audit(tx, id, actor._id, `Changed the period to ${input.startsOn} – ${input.endsOn}`);
    return (await delegationById(tx, id))!;
  });
}

/** Ends a delegation now: from this moment it counts for nothing; the row stays for the record. */
export async function endDelegation(actor: PublicUser, id: string, now = new Date()): Promise<Delegation> {
  return getDb().transaction(async (tx) => {
    const current = await lockDelegation(tx, actor, id);
    const today = utcDay(now);
    if (current.ended || current.endsOn < today) throw new Conflict("This delegation is already over");
    await tx.execute(sql`update delegations set ended_at = ${now.toISOString()}, updated_at = now() where id = ${id}`);
    await audit(tx, id, actor._id, `Ended the delegation to ${current.delegateName} on ${today}`);
    return (await delegationById(tx, id))!;
  });
}

/** The audit entries of a delegation, oldest first. */
export async function delegationEventsOf(id: string) {
  return (await historyOf("delegation", id)).map((e) => ({ action: e.action, by: e.actorName, at: e.at }));
}
