/**
 * Target-date reminders (docs/decisions/008-reminders.md): the MOC's part of the daily run, which
 * app/models/ops/daily-reminders.server.ts runs for every kind that declares `reminders` (the MOC's
 * entry, app/models/kinds/moc.server.ts, points here), for the daily pg-boss job and GET
 * /api/auto_reminder alike. One statement finds the due MOCs, works out their urgency, claims them
 * for the day in `moc_reminders` and returns their recipients; a MOC already claimed that day (by
 * another instance, another call) is skipped by the primary key. The emails are queued in the
 * run's transaction, so a failed run claims nothing. The statement count is fixed and the scan is
 * the partial index on the target date: the cost follows the number of MOCs due, not the number of
 * MOCs (the stage and owner's "Part B submitted" reads the partial index of migration 0041, not
 * every form). `npm run bench:reminder` times it over 100,000 MOCs.
 */
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { ReminderUrgency } from "#db/schema";
import { REMINDER_PREFERENCES, type ReminderPreference } from "#db/schema/enums";
import { getDb, type Executor } from "~/utils/db.server";
import { Invalid, NotFound } from "~/utils/errors";
import { actionDigestLine, actionReminderEmails, claimDueActions, type ActionReminderRow } from "./action-tasks.server";
import {
  acknowledgementReminderEmails,
  claimOverdueAcknowledgements,
  withAcknowledgements,
  type AcknowledgementReminderRow,
} from "../circulations/acknowledgement-reminders.server";
import { queueEmails, type QueuedEmail } from "../messages/email.server";
import { mocOpenSql } from "../authz/authz.server";
import type { ReminderOutcome } from "../record-kind/record-kind";
import { MOC_STAGE_SQL, OWNER_SQL } from "./moc-steps.server";
import { mocEmailName } from "./moc-names";
import { TITLE_SQL, VESSEL_LABEL_SQL } from "./moc-scope.server";
import { sendTemporaryReminders, type TemporaryReminder } from "./temporary.server";
import { effectivenessReviewEmails } from "./effectiveness.server";

export type ReminderResult = { moc_id: string; serial_num: string; urgency: ReminderUrgency; emailsSent: number };
/** GET /api/auto_reminder's answer (the contract's keys, docs/api-contract.md). */
export type ReminderRun = { message: string; totalReminders: number; results: ReminderResult[] };
/** A run's outcome: the answer, and the temporary changes reminded (7 and 1 days before the end) or expired. */
export type ReminderRunOutcome = ReminderRun & { temporaryReminders: TemporaryReminder[] };

// Marks the outcomes of the MOC's part, so a run's answer finds them among the kinds' outcomes
// without naming the kind.
const MOC_PART = Symbol("the MOC's part of the daily run");

/**
 * The MOC's part of a day's run: its summary and emails as every kind reports them, and the MOCs
 * reminded and temporary changes seen to, which GET /api/auto_reminder answers.
 */
export type MocReminderOutcome = ReminderOutcome & {
  [MOC_PART]: true;
  results: ReminderResult[];
  temporaryReminders: TemporaryReminder[];
};

const isMocPart = (outcome: ReminderOutcome): outcome is MocReminderOutcome => MOC_PART in outcome;

/** Days before the target date (negative: overdue) per urgency; MEDIUM and LOW need an old MOC. */
export const URGENCY_WINDOWS: { urgency: ReminderUrgency; from: number; to: number; olderThanDays?: number }[] = [
  { urgency: "CRITICAL", from: -14, to: -1 },
  { urgency: "URGENT", from: 0, to: 1 },
  { urgency: "HIGH", from: 2, to: 7 },
  { urgency: "MEDIUM", from: 8, to: 14, olderThanDays: 30 },
  { urgency: "LOW", from: 15, to: 30, olderThanDays: 30 },
];
const EARLIEST = Math.min(...URGENCY_WINDOWS.map((w) => w.from));
const LATEST = Math.max(...URGENCY_WINDOWS.map((w) => w.to));

/**
 * The `when ... then <urgency>` arms of the urgency table for MOC `m` on `day` (a date parameter),
 * shared by the reminder run and the insight figures' overdue bands (app/models/insights/insights.server.ts).
 */
export function urgencyCases(day: unknown) {
  const d = sql`(m.target_date - ${day}::date)`;
  const ageDays = sql`(${day}::date - (m.created_at at time zone 'UTC')::date)`;
  return sql.join(
    URGENCY_WINDOWS.map(
      (w) =>
        sql`when ${d} between ${sql.raw(String(w.from))} and ${sql.raw(String(w.to))}${
          w.olderThanDays === undefined ? sql`` : sql` and ${ageDays} > ${sql.raw(String(w.olderThanDays))}`
        } then ${w.urgency}::text`,
    ),
    sql` `,
  );
}

/**
 * The due MOCs of `day` with their urgency and days left, as SQL: a range scan of
 * `mocs_target_date_idx` (whose predicate the where clause repeats), then the urgency table.
 */
export function dueMocsQuery(day: string) {
  const d = sql`(m.target_date - ${day}::date)`;
  return sql`
    select m.id as moc_id, ${d} as days_left, case ${urgencyCases(day)} end as urgency
    from mocs m
    where not m.is_deleted and ${mocOpenSql()}
      and m.target_date between ${day}::date + ${sql.raw(String(EARLIEST))} and ${day}::date + ${sql.raw(String(LATEST))}`;
}

type ClaimedRow = {
  mocId: string;
  serialNum: string;
  title: string | null;
  vessel: string | null;
  urgency: ReminderUrgency;
  daysLeft: number;
  targetDate: string;
  status: string;
  /** Where the MOC stands (`mocStage`). */
  stage: string;
  owner: string | null;
  recipients: { id: string; name: string; email: string; digest: boolean }[];
};

/**
 * The statement that claims the due MOCs of `day` not yet reminded that day and returns everything
 * the emails need (exported for the bench, tests/bench/reminder.ts, which explains it). Its cost
 * follows the MOCs claimed (docs/performance.md, "Email at production volume (decision 020)"): the
 * recipients of all of them are gathered in one grouped join (a subquery per MOC rebuilt the same
 * hash of the users ten thousand times), and Part A's title and scope come from one look-up of the
 * originator form per MOC instead of two.
 */
export function claimDueMocsSql(day: string) {
  return sql`
    with due as (${dueMocsQuery(day)}),
    claimed as (
      insert into moc_reminders (moc_id, day, urgency, days_left)
      select moc_id, ${day}::date, urgency, days_left from due where urgency is not null order by moc_id
      on conflict do nothing
      returning moc_id, urgency, days_left
    ),
    recipients as (
      select mu.moc_id, json_agg(json_build_object('id', u.id, 'name', u.name, 'email', u.email,
        'digest', u.reminder_preference = 'digest') order by u.email) as recipients
      from claimed c join moc_users mu on mu.moc_id = c.moc_id join users u on u.id = mu.user_id
      where u.active
      group by mu.moc_id
    )
    select c.moc_id as "mocId", m.serial_num as "serialNum", ${TITLE_SQL} as title, ${VESSEL_LABEL_SQL} as vessel,
      c.urgency, c.days_left as "daysLeft", m.target_date::text as "targetDate", m.status, ${MOC_STAGE_SQL} as stage,
      ${OWNER_SQL} as owner, coalesce(r.recipients, '[]'::json) as recipients
    from claimed c join mocs m on m.id = c.moc_id
      left join moc_forms f on f.moc_id = m.id and f.kind = 'originator'
      left join recipients r on r.moc_id = c.moc_id
    order by c.days_left, m.serial_year, m.serial_count`;
}

/** Claims the due MOCs of `day` not yet reminded that day, with everything the emails need. */
async function claimDueMocs(tx: Executor, day: string): Promise<ClaimedRow[]> {
  return [...(await tx.execute<ClaimedRow>(claimDueMocsSql(day)))];
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** "is 3 days overdue", "is due today", "is due tomorrow", "is due in 5 days". */
export function dueText(daysLeft: number): string {
  if (daysLeft < 0) return `is ${plural(-daysLeft, "day")} overdue`;
  if (daysLeft === 0) return "is due today";
  if (daysLeft === 1) return "is due tomorrow";
  return `is due in ${plural(daysLeft, "day")}`;
}

function reminderContent(row: ClaimedRow): QueuedEmail["content"] {
  const step = row.stage;
  const due = dueText(row.daysLeft);
  const label = mocEmailName(row.serialNum, row.title, row.vessel);
  return {
    record: { label, url: `/mocs/${row.mocId}` },
    subject: `${row.urgency} reminder: ${label} ${due}`,
    event: `${row.urgency}: ${label} ${due} (target date ${row.targetDate}).`,
    expectation: row.owner
      ? `It is waiting for ${step}, owned by ${row.owner}. Finish the open work before the target date, or ask for an extension.`
      : `It is waiting for ${step}. Finish the open work before the target date, or ask for an extension.`,
    details: [
      ["Urgency", row.urgency],
      ["Target date", row.targetDate],
      row.daysLeft < 0 ? ["Days overdue", String(-row.daysLeft)] : ["Days left", String(row.daysLeft)],
      ["Current step", step],
      ["Step owner", row.owner ?? "Not assigned"],
    ],
  };
}

/**
 * One email per person who chose the daily digest, listing all of their MOCs due today, most
 * urgent first (the claimed rows come ordered by days left, which orders the urgencies).
 */
function digestEmails(
  claimed: ClaimedRow[],
  day: string,
  actions: ActionReminderRow[] = [],
  acknowledgements: AcknowledgementReminderRow[] = [],
): QueuedEmail[] {
  type Entry = {
    to: QueuedEmail["to"];
    rows: ClaimedRow[];
    actions: ActionReminderRow[];
    acknowledgements: AcknowledgementReminderRow["items"];
  };
  const byPerson = new Map<string, Entry>();
  const entryOf = (person: QueuedEmail["to"]) => {
    const entry = byPerson.get(person.id) ?? { to: person, rows: [], actions: [], acknowledgements: [] };
    byPerson.set(person.id, entry);
    return entry;
  };
  for (const row of claimed) {
    for (const person of row.recipients) {
      if (person.digest) entryOf({ id: person.id, name: person.name, email: person.email }).rows.push(row);
    }
  }
  // Plan items due or overdue (docs/decisions/038-actions-as-tasks.md) join the same daily digest.
  for (const row of actions) {
    const { id, name, email, digest } = row.owner;
    if (digest) entryOf({ id, name, email }).actions.push(row);
  }
  // Overdue acknowledgements (issue 41) too: one digest a day says everything.
  for (const { to: person, items } of acknowledgements) {
    if (person.digest) entryOf({ id: person.id, name: person.name, email: person.email }).acknowledgements = items;
  }
  return [...byPerson.values()].map(({ to, rows, actions: items, acknowledgements: acks }) => {
    const content =
      rows.length === 0 && items.length === 0
        ? null
        : items.length === 0
          ? digestContent(rows, day)
          : withActions(digestContent(rows, day), rows, items, day);
    return {
      to,
      content: acks.length === 0 ? content! : withAcknowledgements(content, acks, day),
      kind: "reminder" as const,
    };
  });
}

/** A digest that also lists the person's plan items due within 3 days or overdue. */
function withActions(
  content: QueuedEmail["content"],
  rows: ClaimedRow[],
  items: ActionReminderRow[],
  day: string,
): QueuedEmail["content"] {
  const actions = plural(items.length, "action");
  if (rows.length === 0) {
    return {
      record: { label: "My actions", url: "/" },
      subject: `${actions} due soon or overdue`,
      event: `Your daily reminder for ${day}: ${actions} you own ${items.length === 1 ? "is" : "are"} due within 3 days or overdue.`,
      expectation:
        "Carry them out, then mark each done under My actions on your dashboard. You chose one daily digest on your profile; you can switch back to one email each there.",
      details: items.map(actionDigestLine),
    };
  }
  return {
    ...content,
    subject: `${content.subject}; ${actions} due soon or overdue`,
    details: [...(content.details ?? []), ...items.map(actionDigestLine)],
  };
}

function digestContent(rows: ClaimedRow[], day: string): QueuedEmail["content"] {
  const counts = URGENCY_WINDOWS.map((w) => [w.urgency, rows.filter((r) => r.urgency === w.urgency).length] as const)
    .filter(([, n]) => n > 0)
    .map(([urgency, n]) => `${n} ${urgency}`);
  return {
    record: { label: "MOC reminders", url: "/mocs" },
    subject: `${plural(rows.length, "MOC")} near or past the target date (${counts.join(", ")})`,
    event: `Your daily reminder for ${day}: ${plural(rows.length, "MOC")} you are involved in ${rows.length === 1 ? "is" : "are"} near or past the target date, most urgent first.`,
    expectation:
      "Finish the open work before each target date, or ask for an extension. You chose one daily digest on your profile; you can switch back to one email per MOC there.",
    details: rows.map((row) => {
      const step = row.stage;
      return [
        `${row.urgency} · ${mocEmailName(row.serialNum, row.title, row.vessel)}`,
        `${dueText(row.daysLeft)} (target date ${row.targetDate}); waiting for ${step}${row.owner ? `, owned by ${row.owner}` : ""}`,
      ];
    }),
  };
}

/** Reads a person's reminder preference. */
export async function reminderPreferenceOf(userId: string): Promise<ReminderPreference> {
  const rows = await getDb().execute<{ preference: ReminderPreference }>(
    sql`select reminder_preference as preference from users where id = ${userId}`,
  );
  if (!rows[0]) throw new NotFound("No user with this id");
  return rows[0].preference;
}

/** Sets one's own reminder preference: one email per MOC, or one daily digest. */
export async function setReminderPreference(actor: { _id: string }, preference: unknown): Promise<ReminderPreference> {
  const parsed = z.enum(REMINDER_PREFERENCES).safeParse(preference);
  if (!parsed.success) {
    throw new Invalid("Choose one email per MOC or one daily digest", [
      { path: "reminderPreference", message: "Choose one email per MOC or one daily digest" },
    ]);
  }
  const rows = await getDb().execute(
    sql`update users set reminder_preference = ${parsed.data}, updated_at = now() where id = ${actor._id} returning id`,
  );
  if (rows.length === 0) throw new NotFound("No user with this id");
  return parsed.data;
}

/** What the MOC's part says when no MOC was due but something else was (the run's own words for nothing due). */
const noRemindersDue = (day: string) => `No reminders due for ${day} (nothing due, or already reminded today)`;

/**
 * Today's target-date reminders, the MOC kind's `reminders`: each due MOC at most once per UTC
 * day, to every active MOC user, in an email of its own or in that person's daily digest (their
 * choice on /profile), with the plan items due, the overdue acknowledgements, the temporary changes
 * ending or expired and the effectiveness reviews due. In the run's transaction `tx`, which holds
 * the run's lock. `emails` counts the people reminded of each MOC either way (`emailsSent` per
 * MOC, the reminder metric's emails); the summary is null when nothing was due.
 */
export async function remindMocs(
  tx: Executor,
  day: string,
  /** Filled with the milliseconds spent finding and claiming, and queueing the emails (the benches). */
  timings?: { claimMs?: number; queueMs?: number },
): Promise<MocReminderOutcome> {
  let t = performance.now();
  const claimed = await claimDueMocs(tx, day);
  if (timings) timings.claimMs = performance.now() - t;
  t = performance.now();
  // One email per MOC to those who want that (the default); one digest for the rest.
  const emails: QueuedEmail[] = claimed.flatMap((row) => {
    const content = reminderContent(row);
    return row.recipients
      .filter((to) => !to.digest)
      .map(({ id, name, email }) => ({
        to: { id, name, email },
        content,
        record: { type: "moc" as const, id: row.mocId },
        kind: "reminder" as const,
      }));
  });
  // Plan items due within 3 days or overdue, to their owners (docs/decisions/038-actions-as-tasks.md).
  const actions = await claimDueActions(tx, day);
  emails.push(...actionReminderEmails(actions));
  // Overdue acknowledgements, one reminder per person per day (acknowledgement-reminders.server.ts).
  const acknowledgements = await claimOverdueAcknowledgements(tx, day);
  emails.push(...acknowledgementReminderEmails(acknowledgements, day));
  emails.push(...digestEmails(claimed, day, actions, acknowledgements));
  await queueEmails(tx, emails);
  const counts = claimed.map((row) => ({ moc_id: row.mocId, n: row.recipients.length }));
  if (counts.some((c) => c.n > 0)) {
    await tx.execute(sql`
      update moc_reminders r set emails_sent = c.n
      from jsonb_to_recordset(${JSON.stringify(counts)}::jsonb) as c(moc_id uuid, n int)
      where r.moc_id = c.moc_id and r.day = ${day}::date`);
  }
  const temporary = await sendTemporaryReminders(tx, day);
  // Effectiveness reviews come due or overdue, to the HSEQ department (issue 42, effectiveness.server.ts).
  const reviews = await effectivenessReviewEmails(tx, day);
  if (timings) timings.queueMs = performance.now() - t;
  const results = claimed.map((row) => ({
    moc_id: row.mocId,
    serial_num: row.serialNum,
    urgency: row.urgency,
    emailsSent: row.recipients.length,
  }));
  const actionText = actions.length ? `; ${plural(actions.length, "action")} due soon or overdue reminded` : "";
  const acknowledgementText = acknowledgements.length
    ? `; ${acknowledgements.length === 1 ? "1 person" : `${acknowledgements.length} people`} reminded of overdue acknowledgements`
    : "";
  const temporaryText = temporary.results.length
    ? `; ${plural(temporary.emails, "email")} about ${plural(temporary.results.length, "temporary change")}`
    : "";
  const reviewText =
    reviews.due + reviews.overdue
      ? `; ${plural(reviews.due, "effectiveness review")} due, ${reviews.overdue} overdue`
      : "";
  const rest = actionText + acknowledgementText + temporaryText + reviewText;
  return {
    [MOC_PART]: true,
    // With nothing else done, the run says that nothing was due (app/models/ops/daily-reminders.server.ts).
    summary:
      results.length || rest
        ? (results.length
            ? `Sent ${plural(emails.length, "reminder email")} about ${plural(results.length, "MOC")} for ${day}`
            : noRemindersDue(day)) + rest
        : null,
    emails: results.reduce((sum, r) => sum + r.emailsSent, 0),
    results,
    temporaryReminders: temporary.results,
  };
}

/**
 * A day's run (app/models/ops/daily-reminders.server.ts) as GET /api/auto_reminder answers it: the
 * run's message, and the MOCs the MOC's part reminded (none when it did not run).
 */
export function reminderRunAnswer(run: {
  message: string;
  outcomes: readonly { outcome: ReminderOutcome }[];
}): ReminderRunOutcome {
  const part = run.outcomes.map((o) => o.outcome).find(isMocPart);
  const results = part?.results ?? [];
  return {
    message: run.message,
    totalReminders: results.length,
    results,
    temporaryReminders: part?.temporaryReminders ?? [],
  };
}
