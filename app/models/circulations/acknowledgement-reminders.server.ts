/**
 * Reminders of overdue acknowledgements in the daily run (issue 41, docs/decisions/055-circulations.md):
 * a person whose acknowledgements are past their due date gets one reminder a day at most, however
 * many circulations wait for them: one email listing them all, or lines in the daily digest for
 * those who chose it on their profile (`reminder_preference`, as MOC and action reminders;
 * docs/decisions/029). Who is still chased is `pendingRecipientSql` (circulations.server.ts): not
 * acknowledged, not left the vessel, the circulation open. `acknowledgement_reminders`' primary key
 * (person, day) makes a second run of the same day send nothing.
 */
import { sql } from "drizzle-orm";
import type { Executor } from "~/utils/db.server";
import { circulatedLabelSql, circulatedTitleSql, pendingRecipientSql } from "./circulations.server";
import type { QueuedEmail } from "../messages/email.server";

export type OverdueAcknowledgement = {
  circulationId: string;
  /** "MOC 12-2026" or "PCR 3-2026". */
  label: string;
  title: string | null;
  note: string;
  due: string;
  daysOverdue: number;
  vessel: string | null;
};

export type AcknowledgementReminderRow = {
  to: { id: string; name: string; email: string; digest: boolean };
  items: OverdueAcknowledgement[];
};

/**
 * Claims `day` for every active person with an acknowledgement past its due date on `day` and not
 * reminded that day yet, and returns each with their overdue acknowledgements (oldest due first).
 * One statement.
 */
export async function claimOverdueAcknowledgements(tx: Executor, day: string): Promise<AcknowledgementReminderRow[]> {
  const rows = await tx.execute<{
    to: AcknowledgementReminderRow["to"];
    items: OverdueAcknowledgement[];
  }>(sql`
    with overdue as (
      select r.circulation_id, r.user_id, r.vessel_id, r.due
      from circulation_recipients r
        join circulations c on c.id = r.circulation_id
        join users u on u.id = r.user_id and u.active
        left join acknowledgements a on a.circulation_id = r.circulation_id and a.user_id = r.user_id
      where r.due < ${day}::date and ${pendingRecipientSql("r", "a", "c")}
    ),
    claimed as (
      insert into acknowledgement_reminders (user_id, day, circulations)
      select user_id, ${day}::date, count(*)::int from overdue group by user_id order by user_id
      on conflict do nothing
      returning user_id
    )
    select json_build_object('id', u.id, 'name', u.name, 'email', u.email,
        'digest', u.reminder_preference = 'digest') as "to",
      json_agg(json_build_object(
        'circulationId', c.id,
        'label', ${circulatedLabelSql()},
        'title', ${circulatedTitleSql()},
        'note', c.note, 'due', o.due::text, 'daysOverdue', ${day}::date - o.due, 'vessel', v.name)
        order by o.due, c.created_at, c.id) as items
    from claimed cl
      join users u on u.id = cl.user_id
      join overdue o on o.user_id = cl.user_id
      join circulations c on c.id = o.circulation_id
      left join vessels v on v.id = o.vessel_id
    group by u.id, u.name, u.email, u.reminder_preference
    order by u.email`);
  return [...rows];
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const named = (item: OverdueAcknowledgement) => (item.title ? `${item.label} — ${item.title}` : item.label);

/** One line of an email's details: what to read, and how late. */
export const acknowledgementLine = (item: OverdueAcknowledgement): [string, string] => [
  `To acknowledge · ${named(item)}${item.vessel ? ` (${item.vessel})` : ""}`,
  `${plural(item.daysOverdue, "day")} overdue (due ${item.due}): ${item.note}`,
];

const EXPECTATION =
  "Open each one, read what changed and acknowledge it as read and understood (with a question for the author if you have one).";

/** One email per person who wants one email each, listing all of their overdue acknowledgements. */
export function acknowledgementReminderEmails(rows: AcknowledgementReminderRow[], day: string): QueuedEmail[] {
  return rows
    .filter((row) => !row.to.digest)
    .map(({ to, items }) => ({
      to: { id: to.id, name: to.name, email: to.email },
      kind: "reminder" as const,
      content: {
        record: { label: "To read and acknowledge", url: "/acknowledgements" },
        // The email's subject begins "[To read and acknowledge]" (its record label).
        subject:
          items.length === 1
            ? `Reminder: ${named(items[0]!)} is overdue`
            : `Reminder: ${plural(items.length, "change")} overdue`,
        event: `Your reminder for ${day}: ${items.length === 1 ? "a change you were asked to read is" : `${plural(items.length, "change")} you were asked to read are`} past the due date, not yet acknowledged.`,
        expectation: EXPECTATION,
        details: items.map(acknowledgementLine),
      },
    }));
}

/**
 * The daily digest with a person's overdue acknowledgements added (`content` null: they had nothing
 * else that day, so the digest is theirs alone).
 */
export function withAcknowledgements(
  content: QueuedEmail["content"] | null,
  items: OverdueAcknowledgement[],
  day: string,
): QueuedEmail["content"] {
  const what = `${plural(items.length, "acknowledgement")} overdue`;
  if (!content) {
    return {
      record: { label: "To read and acknowledge", url: "/acknowledgements" },
      subject: what,
      event: `Your daily reminder for ${day}: ${items.length === 1 ? "a change you were asked to read is" : `${plural(items.length, "change")} you were asked to read are`} past the due date, not yet acknowledged.`,
      expectation: `${EXPECTATION} You chose one daily digest on your profile; you can switch back to one email each there.`,
      details: items.map(acknowledgementLine),
    };
  }
  return {
    ...content,
    subject: `${content.subject}; ${what}`,
    details: [...(content.details ?? []), ...items.map(acknowledgementLine)],
  };
}
