/**
 * Ranks on board (issue 41, docs/decisions/055-circulations.md): the list admins keep, in order, and
 * the check that a person's rank names one of it. Each change is one transaction with its entry in
 * the settings chain (record RANKS_RECORD), as the risk matrix's are. A rename follows to the
 * people holding the rank (the foreign key's on update cascade) and to the open circulations
 * addressed to it; a deactivated rank stays with those who hold it but is no longer offered.
 */
import { asc, eq, sql } from "drizzle-orm";
import { ranks } from "#db/schema";
import { getDb, type Executor } from "~/utils/db.server";
import { databaseErrorCode, Forbidden, Invalid, NotFound } from "~/utils/errors";
import { appendAudit } from "../audit/audit.server";
import { movedText, moveInList } from "../shared/ordered-list";
import { canManageRanks, type Actor } from "../authz/authz.server";
import { rankNameSchema, RANKS_RECORD, type RankAction } from "./ranks.schema";

export { RANKS_RECORD };

export type RankRow = { name: string; sort: number; active: boolean; holders: number };

/** Every rank in the list's order, with how many people hold it (one query). */
export async function listRanks(db: Executor = getDb()): Promise<RankRow[]> {
  const rows = await db.execute<RankRow>(sql`select r.name, r.sort, r.active,
      (select count(*)::int from users u where u.rank = r.name) as holders
    from ranks r order by r.sort, r.name`);
  return [...rows];
}

/** The ranks offered when setting someone's rank: the active ones, in order. */
export async function offeredRanks(db: Executor = getDb()): Promise<string[]> {
  const rows = await db
    .select({ name: ranks.name })
    .from(ranks)
    .where(eq(ranks.active, true))
    .orderBy(asc(ranks.sort), asc(ranks.name));
  return rows.map((r) => r.name);
}

/**
 * A rank a person may be given: one of the active ranks, or the one they already hold (a
 * deactivated rank stays theirs). 400 on `rank` otherwise, naming the offered ones.
 */
export async function checkRankOffered(db: Executor, rank: string | null | undefined, holds: string | null = null) {
  if (rank === undefined || rank === null || rank === holds) return;
  const offered = await offeredRanks(db);
  if (offered.includes(rank)) return;
  const message = `Rank must be one of: ${offered.join(", ")} (or null for none)`;
  throw new Invalid(message, [{ path: "rank", message }]);
}

const audit = (db: Executor, actor: Actor, action: string, from: string | null, to: string | null) =>
  appendAudit(db, { kind: "settings", recordId: RANKS_RECORD, actorId: actor._id, action, from, to });

const taken = (name: string) => {
  const message = `There is already a rank named “${name}”`;
  return new Invalid(message, [{ path: "name", message }]);
};

/**
 * An admin's change to the list: add (at the end), rename, move up or down, deactivate or
 * reactivate. One transaction under the list's lock, with its audit entry; a change that changes
 * nothing (moving the first up, deactivating an inactive rank) writes nothing. Returns what it did.
 */
export async function changeRanks(actor: Actor, input: RankAction): Promise<string> {
  if (!canManageRanks(actor)) throw new Forbidden("Only an admin can change the list of ranks");
  return getDb().transaction(async (tx) => {
    // The whole list, locked: two admins reordering at once take turns.
    const list = [
      ...(await tx.execute<{ name: string; sort: number; active: boolean }>(
        sql`select name, sort, active from ranks order by sort, name for update`,
      )),
    ];
    if (input.intent === "add") {
      const name = rankNameSchema.parse(input.name);
      if (list.some((r) => r.name.toLowerCase() === name.toLowerCase())) throw taken(name);
      const sort = (list.at(-1)?.sort ?? 0) + 10;
      await tx.insert(ranks).values({ name, sort });
      await audit(tx, actor, "Added a rank", null, name);
      return `${name} is added at the end of the list.`;
    }
    const index = list.findIndex((r) => r.name === input.rank);
    const row = list[index];
    if (!row) throw new NotFound("There is no such rank; the list may have changed, reload it");
    switch (input.intent) {
      case "rename": {
        const name = rankNameSchema.parse(input.name);
        if (name === row.name) return `${row.name} is unchanged.`;
        if (list.some((r) => r !== row && r.name.toLowerCase() === name.toLowerCase())) throw taken(name);
        try {
          await tx.transaction(async (sp) => {
            await sp.update(ranks).set({ name }).where(eq(ranks.name, row.name));
          });
        } catch (error) {
          if (databaseErrorCode(error) === "23505") throw taken(name);
          throw error;
        }
        // Circulations still waiting address ranks by name: they follow the rename.
        await tx.execute(sql`update circulations set ranks = array_replace(ranks, ${row.name}, ${name})
          where closed_at is null and ${row.name} = any(ranks)`);
        await audit(tx, actor, "Renamed a rank", row.name, name);
        return `${row.name} is now ${name}, for everyone who holds it.`;
      }
      case "up":
      case "down": {
        const moved = moveInList(list, index, input.intent);
        if (!moved) return `${row.name} is already ${input.intent === "up" ? "first" : "last"}.`;
        for (const [r, sort] of moved.sorts) await tx.update(ranks).set({ sort }).where(eq(ranks.name, r.name));
        await audit(
          tx,
          actor,
          `Moved a rank ${input.intent}`,
          null,
          movedText(row.name, input.intent, moved.other.name),
        );
        return `${row.name} is moved ${input.intent}.`;
      }
      case "deactivate":
      case "activate": {
        const active = input.intent === "activate";
        if (row.active === active) return `${row.name} is already ${active ? "offered" : "deactivated"}.`;
        await tx.update(ranks).set({ active }).where(eq(ranks.name, row.name));
        await audit(tx, actor, active ? "Reactivated a rank" : "Deactivated a rank", null, row.name);
        return active
          ? `${row.name} is offered again.`
          : `${row.name} is no longer offered; the people who hold it keep it.`;
      }
    }
  });
}
