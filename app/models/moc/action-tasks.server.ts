/**
 * Actions as tasks (docs/decisions/038-actions-as-tasks.md): the owners of action-plan and
 * manuals-plan items are told when they are named, see their open items on the dashboard ("My
 * actions"), mark them done with a note and an optional evidence file, and are reminded by the
 * daily run of items due within 3 days or overdue.
 */
import { sql } from "drizzle-orm";
import type { ActionPlan, ManualPlan, PlanItemCompletion } from "#db/schema";
import { getDb, type Executor, type Transaction } from "~/utils/db.server";
import { Conflict, Forbidden, Invalid, NotFound } from "~/utils/errors";
import { storeMocFileIn, type IncomingFile } from "../records/attachments.server";
import {
  canMarkPlanItem,
  canViewMoc,
  mayMarkItemDone,
  mocApprovedSql,
  mocOpenSql,
  type Actor,
} from "../authz/authz.server";
import { openItemSql } from "./moc-closure";
import { notify, type QueuedEmail } from "../messages/email.server";
import type { MocDocument } from "./moc-document";
import { MOC_STAGE_SQL } from "./moc-steps.server";
import { addMocUsers, mocEmailNameOf } from "./moc-store.server";
import { mocEmailName } from "./moc-names";
import { TITLE_AND_VESSEL_OF_M } from "./moc-scope.server";
import { changeMoc } from "./moc.server";
import { readPlan, writePlan } from "./plan-items.server";
import type { PLAN_KINDS } from "./moc.schema";
import type { PublicUser } from "../people/user.server";

/** How many days ahead the daily run reminds an owner of an item (and every day once it is overdue). */
export const ACTION_REMINDER_DAYS = 3;

export type PlanKind = (typeof PLAN_KINDS)[number];

type AnyItem = (ActionPlan["items"][number] | ManualPlan["items"][number]) & Record<string, unknown>;

/** An item in words: the action's description, or the document and its change. */
export const itemWords = (item: { description?: unknown; document?: unknown; change?: unknown }) =>
  typeof item.description === "string" ? item.description : `${String(item.document)} — ${String(item.change)}`;

const PLAN_WORDS = { action: "action", manual_plan: "manuals and drawings item" } as const;

// ---------------------------------------------------------------------------------------------
// Owners told when they are named

/**
 * The items of a saved plan whose owner is new (an item that did not exist, or had another
 * owner), grouped by that owner. A re-save that keeps an owner names nobody.
 */
export function newlyOwned<T extends { _id: string; owner: string | null }>(
  stored: { _id: string; owner: string | null }[],
  items: T[],
): Map<string, T[]> {
  const before = new Map(stored.map((item) => [item._id, item.owner]));
  const named = new Map<string, T[]>();
  for (const item of items) {
    if (!item.owner || before.get(item._id) === item.owner) continue;
    named.set(item.owner, [...(named.get(item.owner) ?? []), item]);
  }
  return named;
}

/**
 * In the plan's transaction: each newly named owner joins the MOC's people (so they can open the
 * MOC their item belongs to) and gets one notice (kind `action`) listing their new items; the
 * person saving the plan is never told of their own assignment.
 */
export async function tellNewOwners(
  tx: Executor,
  actor: Pick<PublicUser, "_id" | "name">,
  moc: { id: string; serialNum: string },
  what: "action plan" | "manuals plan",
  stored: { _id: string; owner: string | null }[],
  items: (AnyItem & { _id: string })[],
): Promise<void> {
  const named = newlyOwned(stored, items);
  if (named.size === 0) return;
  await addMocUsers(tx, moc.id, [...named.keys()]);
  const label = await mocEmailNameOf(tx, moc);
  for (const [owner, owned] of named) {
    if (owner === actor._id) continue;
    await notify(tx, {
      to: { userIds: [owner], except: actor._id },
      record: { type: "moc", id: moc.id },
      kind: "action",
      content: {
        record: { label, url: `/mocs/${moc.id}` },
        subject: `${owned.length === 1 ? "An item" : `${owned.length} items`} of the ${what} assigned to you`,
        event: `${actor.name} made you the owner of ${owned.length === 1 ? "an item" : `${owned.length} items`} of the ${what} of ${label}.`,
        expectation:
          "Carry it out by its due date, then mark it done under My actions on your dashboard, with a note and, if you have one, an evidence file.",
        details: owned.map((item) => [itemWords(item), item.due ? `due ${item.due}` : "no due date"]),
      },
    });
  }
}

/**
 * A plan written through its editor keeps what the trail recorded on its items: the cancellation
 * (docs/decisions/033-closure-gates.md) and, while the item stays done, how it was marked done
 * under My actions. (An item ticked in the table has no `completion`: the trail says who saved it.)
 */
export function keepItemTrail<T extends { _id: string; done?: boolean }>(
  stored: { _id: string; done?: boolean; cancelled?: unknown; completion?: PlanItemCompletion | null }[],
  items: T[],
): T[] {
  const before = new Map(stored.map((item) => [item._id, item]));
  return items.map((item) => {
    const { cancelled: _c, completion: _d, ...rest } = item as T & { cancelled?: unknown; completion?: unknown };
    const old = before.get(item._id) as (typeof stored)[number] & { training?: unknown };
    const kept: Record<string, unknown> = { ...rest };
    if (old?.cancelled) kept.cancelled = old.cancelled;
    if (item.done && old?.done && old.completion) kept.completion = old.completion;
    // A training stays one, done exactly as its attendance says (docs/decisions/056-training.md).
    if (old?.training) Object.assign(kept, { training: old.training, done: old.done, completion: old.completion });
    return kept as T;
  });
}

// ---------------------------------------------------------------------------------------------
// My actions

export type MyAction = {
  mocId: string;
  serialNum: string;
  /** The MOC's state in words ("Implementation", "Approval"). */
  mocState: string;
  plan: PlanKind;
  itemId: string;
  what: string;
  due: string | null;
  /** Days until the due date (negative: overdue), or null without one. */
  daysLeft: number | null;
  /** The owner may mark it done now (from approval on; before, only a plan editor marks items). */
  mayMarkDone: boolean;
};

/** The open items of one plan column owned by `$owner` on open MOCs: the owner index, then the items. */
const ownedItems = (column: "action" | "manual_plan", owner: string) => sql`
  select m.id as moc_id, ${column}::text as plan, e.item
  from mocs m cross join lateral jsonb_array_elements(m.${sql.raw(column)}->'items') e(item)
  where not m.is_deleted and ${mocOpenSql()}
    and (m.${sql.raw(column)}->'items') @> jsonb_build_array(jsonb_build_object('owner', ${owner}::text))
    and e.item->>'owner' = ${owner}::text
    and ${openItemSql(sql`e.item`)}`;

/**
 * The actor's open action-plan and manuals-plan items across MOCs, soonest due first (undated
 * last), with how many there are. One statement whatever the number of items.
 */
export async function myActions(
  actor: Actor,
  options: { limit?: number; today?: string } = {},
): Promise<{ actions: MyAction[]; total: number }> {
  const today = options.today ?? new Date().toISOString().slice(0, 10);
  const rows = await getDb().execute<{
    moc_id: string;
    serial_num: string;
    status: string;
    stage: string;
    approved: boolean;
    plan: PlanKind;
    item: AnyItem;
    days_left: number | null;
    total: number;
  }>(sql`
    with owned as (${ownedItems("action", actor._id)} union all ${ownedItems("manual_plan", actor._id)})
    select o.moc_id, m.serial_num, m.status, ${MOC_STAGE_SQL} as stage, o.plan, o.item,
      ${mocApprovedSql()} as approved,
      (nullif(o.item->>'due', '')::date - ${today}::date) as days_left,
      count(*) over ()::int as total
    from owned o join mocs m on m.id = o.moc_id
    order by nullif(o.item->>'due', '')::date nulls last, m.serial_year, m.serial_count, o.plan, o.item->>'_id'
    limit ${options.limit ?? null}`);
  return {
    total: rows[0]?.total ?? 0,
    actions: rows.map((r) => ({
      mocId: r.moc_id,
      serialNum: r.serial_num,
      mocState: r.stage,
      plan: r.plan,
      itemId: r.item._id,
      what: itemWords(r.item),
      due: r.item.due ?? null,
      daysLeft: r.days_left,
      mayMarkDone: r.approved,
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Marking an item done

export type MarkDoneInput = {
  mocId: string;
  plan: PlanKind;
  itemId: string;
  note: string | null;
  /** A new file (the page), or a file already attached to the MOC (the API), or none. */
  evidence?: { file: IncomingFile } | { attachmentId: string } | null;
};

const MARKERS = "Only the item's owner, the implementer, the assigned HSEQ user or an admin can mark it done";

/** A file of this MOC, not removed, as evidence (its name, size and SHA-256 go with the item). */
async function existingEvidence(tx: Transaction, mocId: string, attachmentId: string) {
  const [row] = await tx.execute<{ id: string; name: string; sha256: string; size: number }>(sql`
    select id, name, sha256, size::float8 as size from attachments
    where id = ${attachmentId} and moc_id = ${mocId} and removed_at is null`);
  if (!row) {
    throw new Invalid("The evidence must be a file attached to this MOC", [
      { path: "evidence_id", message: "No file of this MOC has this id" },
    ]);
  }
  return { _id: row.id, name: row.name, sha256: row.sha256, size: Number(row.size) };
}

/**
 * Marks one open item done with a note and optional evidence, in one transaction with its trail
 * entry: the owner, the implementer, the assigned HSEQ user or an admin (canMarkPlanItem), from
 * approval on; before approval only a plan editor, who could tick it in the plan anyway.
 */
export async function markItemDone(actor: PublicUser, input: MarkDoneInput): Promise<MocDocument> {
  return changeMoc(
    actor,
    input.mocId,
    { may: (a, moc) => canViewMoc(a, moc), forbidden: MARKERS, requireOpen: true },
    async (tx, moc) => {
      const plan = (await readPlan(tx, moc.id, input.plan)) as { items: AnyItem[] };
      const item = plan.items.find((i) => i._id === input.itemId);
      if (!item) throw new NotFound(`No such ${PLAN_WORDS[input.plan]} in this MOC's plan`);
      if (!canMarkPlanItem(actor, moc, item)) throw new Forbidden(MARKERS);
      if (!mayMarkItemDone(actor, moc, item)) {
        throw new Conflict(
          `This MOC is not approved yet: its ${PLAN_WORDS[input.plan]}s are carried out after approval`,
        );
      }
      if (item.cancelled) throw new Conflict(`This ${PLAN_WORDS[input.plan]} is cancelled; it cannot be done`);
      if (item.training) {
        throw new Conflict(
          "This action is a training: it is done when everyone who must attend has attended (record the attendance)",
        );
      }
      if (item.done) throw new Conflict(`This ${PLAN_WORDS[input.plan]} is already done`);
      const evidence = !input.evidence
        ? null
        : "file" in input.evidence
          ? await storeMocFileIn(tx, actor, moc, input.evidence.file)
          : await existingEvidence(tx, moc.id, input.evidence.attachmentId);
      const completion: PlanItemCompletion = {
        by: actor._id,
        byName: actor.name,
        at: new Date().toISOString(),
        note: input.note,
        evidence,
      };
      await writePlan(
        tx,
        moc.id,
        input.plan,
        plan.items.map((i) => (i._id === item._id ? { ...i, done: true, completion } : i)),
      );
      const comment = [
        input.note,
        evidence ? `Evidence: ${evidence.name}, ${evidence.size} bytes, SHA-256 ${evidence.sha256}` : null,
      ]
        .filter(Boolean)
        .join("\n");
      return {
        action: `Marked the ${PLAN_WORDS[input.plan]} “${itemWords(item)}” done`,
        comment: comment || undefined,
      };
    },
  );
}

// ---------------------------------------------------------------------------------------------
// The daily reminders

export type ActionReminderRow = {
  mocId: string;
  serialNum: string;
  title: string | null;
  vessel: string | null;
  plan: PlanKind;
  itemId: string;
  what: string;
  due: string;
  daysLeft: number;
  owner: { id: string; name: string; email: string; digest: boolean };
};

/**
 * Claims the open items of open MOCs due within ACTION_REMINDER_DAYS of `day` or overdue, not yet
 * reminded that day, whose owner is active; in the reminder run's transaction.
 */
export async function claimDueActions(tx: Executor, day: string): Promise<ActionReminderRow[]> {
  const rows = await tx.execute<ActionReminderRow>(sql`
    with items as (
      select m.id as moc_id, p.plan, e.item, (e.item->>'due')::date - ${day}::date as days_left
      from mocs m
      cross join lateral (values ('action', m.action->'items'), ('manual_plan', m.manual_plan->'items')) p(plan, items)
      cross join lateral jsonb_array_elements(p.items) e(item)
      where not m.is_deleted and ${mocOpenSql()}
        and nullif(e.item->>'owner', '') is not null and nullif(e.item->>'due', '') is not null
        and ${openItemSql(sql`e.item`)}
    ),
    due as (
      select i.* from items i join users u on u.id = (i.item->>'owner')::uuid and u.active
      where i.days_left <= ${ACTION_REMINDER_DAYS}
    ),
    claimed as (
      insert into action_reminders (moc_id, item_id, day, owner_id, days_left)
      select moc_id, item->>'_id', ${day}::date, (item->>'owner')::uuid, days_left from due
      order by moc_id, item->>'_id'
      on conflict do nothing
      returning moc_id, item_id
    )
    select d.moc_id as "mocId", m.serial_num as "serialNum", ${TITLE_AND_VESSEL_OF_M}, d.plan, c.item_id as "itemId",
      coalesce(d.item->>'description', (d.item->>'document') || ' — ' || (d.item->>'change')) as what,
      d.item->>'due' as due, d.days_left as "daysLeft",
      json_build_object('id', u.id, 'name', u.name, 'email', u.email, 'digest', u.reminder_preference = 'digest') as owner
    from claimed c
    join due d on d.moc_id = c.moc_id and d.item->>'_id' = c.item_id
    join mocs m on m.id = c.moc_id
    join users u on u.id = (d.item->>'owner')::uuid
    order by d.days_left, m.serial_year, m.serial_count, d.plan, c.item_id`);
  return [...rows];
}

/** A description cut for a subject line. */
const short = (text: string) => (text.length > 60 ? `${text.slice(0, 59)}…` : text);

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** "is 3 days overdue", "is due today", "is due tomorrow", "is due in 3 days". */
export function itemDueText(daysLeft: number): string {
  if (daysLeft < 0) return `is ${plural(-daysLeft, "day")} overdue`;
  if (daysLeft === 0) return "is due today";
  if (daysLeft === 1) return "is due tomorrow";
  return `is due in ${plural(daysLeft, "day")}`;
}

/** One line of a digest about an item: its MOC and what, then when it is due. */
export const actionDigestLine = (row: ActionReminderRow): [string, string] => [
  `Action · ${mocEmailName(row.serialNum, row.title, row.vessel)}: ${row.what}`,
  `${itemDueText(row.daysLeft)} (due ${row.due}); mark it done under My actions on your dashboard`,
];

/** The emails of the owners who want one email each (the others get the lines in their digest). */
export function actionReminderEmails(rows: ActionReminderRow[]): QueuedEmail[] {
  return rows
    .filter((row) => !row.owner.digest)
    .map((row) => {
      const label = mocEmailName(row.serialNum, row.title, row.vessel);
      const due = itemDueText(row.daysLeft);
      return {
        to: { id: row.owner.id, name: row.owner.name, email: row.owner.email },
        record: { type: "moc" as const, id: row.mocId },
        kind: "reminder" as const,
        content: {
          record: { label, url: `/mocs/${row.mocId}` },
          subject: `Reminder: your ${PLAN_WORDS[row.plan]} “${short(row.what)}” ${due}`,
          event: `Your ${PLAN_WORDS[row.plan]} “${row.what}” on ${label} ${due} (due ${row.due}).`,
          expectation:
            "Carry it out, then mark it done under My actions on your dashboard, with a note and, if you have one, an evidence file.",
          details: [
            ["Item", row.what],
            ["Due", row.due],
            row.daysLeft < 0 ? ["Days overdue", String(-row.daysLeft)] : ["Days left", String(row.daysLeft)],
          ],
        },
      };
    });
}

// ---------------------------------------------------------------------------------------------
// Insight: overdue actions

/** SQL over a plan item `e.item`: neither done nor cancelled, and due before `asOf`. */
export const overdueItem = (asOf: string) => sql`nullif(e.item->>'due', '') is not null
  and (e.item->>'due')::date < ${asOf}::date
  and ${openItemSql(sql`e.item`)}`;
