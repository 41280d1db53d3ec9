/**
 * The effectiveness review of a closed MOC (issue 42, docs/decisions/058-effectiveness-review.md).
 * The verification that closes a MOC sets its date in the same transaction (`reviewOnClosure`,
 * called by the verifier step); on that day the daily run asks the HSEQ department once and, while
 * it waits, reminds them at most once a day (`effectivenessReviewEmails`); one of them (or an admin)
 * answers it once (`answerEffectivenessReview`), an entry of the MOC's chain. Insight counts them
 * (`effectivenessFigures`, one statement).
 */
import { sql, type SQL } from "drizzle-orm";
import type { InsightsFigures } from "#db/insights-figures";
import { getDb, type Executor } from "~/utils/db.server";
import { Conflict, Invalid } from "~/utils/errors";
import { canAnswerEffectivenessReview, isHseq, type Actor } from "../authz/authz.server";
import { EFFECTIVENESS_RESULT_WORDS, EFFECTIVENESS_REVIEWED_ACTION, needsFollowUp } from "./effectiveness.constants";
import type { EffectivenessReviewInput } from "./effectiveness.schema";
import { findRecipients, queueEmails, type QueuedEmail } from "../messages/email.server";
import { changeMoc } from "./moc.server";
import { mocEmailName } from "./moc-names";
import { TITLE_SQL, VESSEL_LABEL_SQL } from "./moc-scope.server";
import { notifyAboutMoc } from "./moc-store.server";
import type { PublicUser } from "../people/user.server";
import { reviewJsonSql, type EffectivenessReview } from "./effectiveness-closure.server";

export type { EffectivenessReview };

/** One MOC's review, or null (not closed yet, or closed before reviews were asked). */
export async function effectivenessReviewOf(mocId: string, db: Executor = getDb()) {
  const [row] = await db.execute<{ review: EffectivenessReview | null }>(
    sql`select ${reviewJsonSql(sql`${mocId}::uuid`)} as review`,
  );
  return row?.review ?? null;
}

/**
 * POST /api/effectivenessReview and the page: answers the MOC's review once, with its entry in the
 * MOC's chain and a notice to the MOC's people. 409 when the MOC has no review or it is answered;
 * two answers at once answer once (the MOC is locked, the update is conditional).
 */
export async function answerEffectivenessReview(
  actor: PublicUser,
  input: EffectivenessReviewInput,
): Promise<EffectivenessReview> {
  const comment = input.comment?.trim() || null;
  if (needsFollowUp(input.result) && !comment) {
    throw new Invalid("A comment is required when the change was partly or not effective", [
      { path: "comment", message: "Say what did not work" },
    ]);
  }
  await changeMoc(
    actor,
    input.id,
    {
      may: (who) => canAnswerEffectivenessReview(who),
      forbidden: "Only the HSEQ department or an admin can answer an effectiveness review",
    },
    async (tx, moc) => {
      const answered = await tx.execute<{ moc_id: string }>(sql`
        update effectiveness_reviews set result = ${input.result}, comment = ${comment},
          reviewed_by = ${actor._id}, reviewed_at = now()
        where moc_id = ${input.id} and result is null
        returning moc_id`);
      if (answered.length === 0) {
        const [exists] = await tx.execute(sql`select 1 from effectiveness_reviews where moc_id = ${input.id}`);
        throw new Conflict(
          exists
            ? "This MOC's effectiveness review is already answered"
            : "This MOC has no effectiveness review: it is set when the verification closes the MOC",
        );
      }
      const words = EFFECTIVENESS_RESULT_WORDS[input.result];
      await notifyAboutMoc(
        tx,
        moc,
        { userIds: [moc.originatorId, moc.implementerId, moc.verifierId, moc.hseqId], except: actor._id },
        {
          event: `${actor.name} reviewed the change's effectiveness: ${words}.`,
          expectation: needsFollowUp(input.result)
            ? "A follow-up MOC can be raised from the MOC's page to finish what the change did not achieve."
            : null,
          details: comment ? [["Comment", comment]] : [],
        },
        { kind: "moc_decision" },
      );
      return { action: `${EFFECTIVENESS_REVIEWED_ACTION}: ${words}`, comment: comment ?? undefined };
    },
  );
  return (await effectivenessReviewOf(input.id))!;
}

// ---------------------------------------------------------------------------------------------
// Waiting on the HSEQ department

export type DueReview = { mocId: string; serial: string; title: string | null; dueOn: string };

/**
 * The reviews due (on or before `today`) and not answered, for an HSEQ person's "Waiting on me"
 * (the daily run asks the same department); nobody else's. Oldest due first, at most `limit`.
 */
export async function dueEffectivenessReviews(
  actor: Actor,
  today: string,
  limit = 20,
): Promise<{ reviews: DueReview[]; total: number }> {
  if (!isHseq(actor)) return { reviews: [], total: 0 };
  const rows = await getDb().execute<DueReview & { total: number }>(sql`
    select r.moc_id as "mocId", m.serial_num as serial, ${TITLE_SQL} as title, r.due_on::text as "dueOn",
      count(*) over ()::int as total
    from effectiveness_reviews r
      join mocs m on m.id = r.moc_id and not m.is_deleted
      left join moc_forms f on f.moc_id = m.id and f.kind = 'originator'
    where r.result is null and r.due_on <= ${today}::date
    order by r.due_on, m.serial_year, m.serial_count
    limit ${limit}`);
  return { reviews: rows.map(({ total: _t, ...r }) => r), total: rows[0]?.total ?? 0 };
}

// ---------------------------------------------------------------------------------------------
// The daily run

type ClaimedReview = {
  kind: "due" | "overdue";
  mocId: string;
  serial: string;
  title: string | null;
  vessel: string | null;
  dueOn: string;
};

/**
 * Claims the reviews of `day` in one statement: those come due and not yet asked (`notified_on`,
 * once), and those asked before today, still not answered and not reminded today (`reminded_on`,
 * at most once a day). The updates are conditional, so a second run the same day claims nothing.
 */
async function claimReviews(tx: Executor, day: string): Promise<ClaimedReview[]> {
  const rows = await tx.execute<ClaimedReview>(sql`
    with due as (
      update effectiveness_reviews set notified_on = ${day}::date
      where result is null and due_on <= ${day}::date and notified_on is null
      returning moc_id, due_on, 'due'::text as kind
    ),
    overdue as (
      update effectiveness_reviews set reminded_on = ${day}::date
      where result is null and due_on < ${day}::date and notified_on < ${day}::date
        and (reminded_on is null or reminded_on < ${day}::date)
      returning moc_id, due_on, 'overdue'::text as kind
    )
    select c.kind, c.moc_id as "mocId", m.serial_num as serial, ${TITLE_SQL} as title, ${VESSEL_LABEL_SQL} as vessel,
      c.due_on::text as "dueOn"
    from (select * from due union all select * from overdue) c
      join mocs m on m.id = c.moc_id and not m.is_deleted
      left join moc_forms f on f.moc_id = m.id and f.kind = 'originator'
    order by c.due_on, m.serial_year, m.serial_count`);
  return [...rows];
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const daysBetween = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);

/**
 * The daily run's effectiveness emails for `day`: for each review come due, one "your turn" email
 * to each person of the HSEQ department; for the reviews overdue, one reminder a day to each of
 * them listing all of those. Queued in the run's transaction. Returns how many reviews it claimed.
 */
export async function effectivenessReviewEmails(tx: Executor, day: string): Promise<{ due: number; overdue: number }> {
  const claimed = await claimReviews(tx, day);
  if (claimed.length === 0) return { due: 0, overdue: 0 };
  const hseq = await findRecipients(tx, { departments: ["hseq"] });
  const due = claimed.filter((r) => r.kind === "due");
  const overdue = claimed.filter((r) => r.kind === "overdue");
  const emails: QueuedEmail[] = [];
  for (const person of hseq) {
    const to = { id: person._id, name: person.name, email: person.email };
    for (const review of due) {
      const label = mocEmailName(review.serial, review.title, review.vessel);
      const late = daysBetween(review.dueOn, day);
      emails.push({
        to,
        kind: "step_waiting",
        record: { type: "moc", id: review.mocId },
        content: {
          record: { label, url: `/mocs/${review.mocId}/effectiveness` },
          subject: `Your turn: review the effectiveness of ${label}`,
          event: `The effectiveness review of ${label} is due ${late > 0 ? `since ${review.dueOn} (${plural(late, "day")} ago)` : "today"}.`,
          expectation:
            "Check whether the change worked as intended and answer effective, partly or not effective (with a comment); a follow-up MOC can be raised from a change that was not effective.",
          details: [
            ["Review due", review.dueOn],
            ["MOC", label],
          ],
        },
      });
    }
    if (overdue.length) {
      const first = overdue[0]!;
      const firstLabel = mocEmailName(first.serial, first.title, first.vessel);
      emails.push({
        to,
        kind: "reminder",
        ...(overdue.length === 1 ? { record: { type: "moc" as const, id: first.mocId } } : {}),
        content: {
          record:
            overdue.length === 1
              ? { label: firstLabel, url: `/mocs/${first.mocId}/effectiveness` }
              : { label: "Effectiveness reviews", url: "/" },
          subject:
            overdue.length === 1
              ? `Reminder: the effectiveness review of ${firstLabel} is overdue`
              : `Reminder: ${plural(overdue.length, "effectiveness review")} overdue`,
          event: `Your reminder for ${day}: ${overdue.length === 1 ? "an effectiveness review is" : `${plural(overdue.length, "effectiveness review")} are`} past the due date, not yet answered.`,
          expectation: "Answer each review: effective, partly or not effective, with a comment.",
          details: overdue.map((r): [string, string] => [
            mocEmailName(r.serial, r.title, r.vessel),
            `due ${r.dueOn} (${plural(daysBetween(r.dueOn, day), "day")} overdue)`,
          ]),
        },
      });
    }
  }
  await queueEmails(tx, emails);
  return { due: due.length, overdue: overdue.length };
}

// ---------------------------------------------------------------------------------------------
// Insight

/** Insight's `effectiveness` figure, as db/insights-figures.ts declares it. */
export type EffectivenessFigure = NonNullable<InsightsFigures["effectiveness"]>;

/** The results Insight counts that the management review pack lists the MOCs of. */
export const EFFECTIVENESS_LISTED = ["notEffective", "partly", "overdue", "effective"] as const;
export type EffectivenessListed = (typeof EFFECTIVENESS_LISTED)[number];

/**
 * The reviews due in the period (`from`..`to`) among the MOCs `mocs` (a table expression over
 * `mocs`' columns), answered and by result, and overdue on `asOf` (due in the period, not answered,
 * due before it). One statement. With `cap` (the management review pack, docs/decisions/059), the
 * same statement also lists at most `cap` MOC ids behind each result and overdue, latest due
 * first, by the predicate that counts it.
 */
export async function effectivenessFigures(
  db: Executor,
  b: { from: string; to: string; asOf: string; mocs: SQL; among: SQL },
  cap: number | null = null,
): Promise<{ figure: EffectivenessFigure; lists: { key: EffectivenessListed; ids: string[] }[] }> {
  const counted: Record<EffectivenessListed, SQL> = {
    effective: sql`r.result = 'effective'`,
    partly: sql`r.result = 'partly'`,
    notEffective: sql`r.result = 'not-effective'`,
    overdue: sql`r.result is null and r.due_on < ${b.asOf}::date`,
  };
  const listed =
    cap === null
      ? sql``
      : sql`, ${sql.join(
          EFFECTIVENESS_LISTED.map(
            (key) =>
              sql`(array_agg(m.id::text order by r.due_on desc, m.id) filter (where ${counted[key]}))[1:${cap}] as ${sql.identifier(`list_${key}`)}`,
          ),
          sql`, `,
        )}`;
  const [row] = await db.execute<EffectivenessFigure & Record<`list_${EffectivenessListed}`, string[] | null>>(sql`
    select count(*)::int as due,
      (count(*) filter (where r.result is not null))::int as answered,
      (count(*) filter (where ${counted.effective}))::int as effective,
      (count(*) filter (where ${counted.partly}))::int as partly,
      (count(*) filter (where ${counted.notEffective}))::int as "notEffective",
      (count(*) filter (where ${counted.overdue}))::int as overdue
      ${listed}
    from effectiveness_reviews r join ${b.mocs} m on m.id = r.moc_id
    where r.due_on between ${b.from}::date and ${b.to}::date and not m.is_deleted and ${b.among}`);
  const { due, answered, effective, partly, notEffective, overdue } = row!;
  return {
    figure: { due, answered, effective, partly, notEffective, overdue },
    lists: cap === null ? [] : EFFECTIVENESS_LISTED.map((key) => ({ key, ids: row![`list_${key}`] ?? [] })),
  };
}
