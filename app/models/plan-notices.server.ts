/**
 * Owners of plan items are told (docs/decisions/029-oidc-and-notifications.md, "Actions"): when a
 * save gives someone an action-plan or manuals-plan item (a new item, or one handed over from
 * another owner), that person gets one `action` notice for the save, listing their items, by their
 * choice for the kind. Saving the same owners again tells nobody; the actor is never told of their
 * own items. The notice goes to the owner named (not a delegate): the item is theirs. Two
 * statements whatever the number of owners (their rows, then the outbox's).
 */
import { and, eq, inArray } from "drizzle-orm";
import { users } from "#db/schema";
import type { Executor } from "~/utils/db.server";
import { queueEmails } from "./email.server";
import { mocLabel } from "./moc-store.server";
import { PUBLIC_USER_COLUMNS } from "./user.server";

type Item = { _id: string; owner: string | null; due: string | null } & (
  { description: string } | { document: string; change: string }
);

const PLAN_WORDS = { "action plan": "the action plan", "manuals plan": "the manuals and drawings plan" } as const;

const itemText = (item: Item) => ("description" in item ? item.description : `${item.document}: ${item.change}`);

/** Queues the `action` notices of one plan save, in the save's transaction. */
export async function notifyNewOwners(
  tx: Executor,
  input: {
    actor: { _id: string; name: string };
    moc: { id: string; serialNum: string };
    plan: keyof typeof PLAN_WORDS;
    before: { _id: string; owner: string | null }[];
    after: Item[];
  },
): Promise<void> {
  const ownerBefore = new Map(input.before.map((item) => [item._id, item.owner]));
  const given = new Map<string, Item[]>();
  for (const item of input.after) {
    if (!item.owner || item.owner === input.actor._id || ownerBefore.get(item._id) === item.owner) continue;
    given.set(item.owner, [...(given.get(item.owner) ?? []), item]);
  }
  if (given.size === 0) return;
  const owners = await tx
    .select(PUBLIC_USER_COLUMNS)
    .from(users)
    .where(and(inArray(users.id, [...given.keys()]), eq(users.active, true)));
  const label = mocLabel(input.moc.serialNum);
  const where = PLAN_WORDS[input.plan];
  await queueEmails(
    tx,
    owners.map((owner) => {
      const items = given.get(owner.id)!;
      const count = `${items.length} ${items.length === 1 ? "item" : "items"}`;
      return {
        to: { id: owner.id, name: owner.name, email: owner.email },
        kind: "action" as const,
        record: { type: "moc" as const, id: input.moc.id },
        content: {
          record: { label, url: `/mocs/${input.moc.id}` },
          event: `${input.actor.name} gave you ${count} of ${where} of ${label}.`,
          expectation: "Carry them out by their due dates; the MOC cannot close while they are open.",
          details: items.map((item, i): [string, string] => [
            items.length === 1 ? "Item" : `Item ${i + 1}`,
            item.due ? `${itemText(item)} (due ${item.due})` : itemText(item),
          ]),
        },
      };
    }),
  );
}
