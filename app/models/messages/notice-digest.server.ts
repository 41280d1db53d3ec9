/**
 * The daily digest of optional notices (issue 38 item 8, docs/decisions/029-oidc-and-notifications.md):
 * a person who chose "in-app, and one email a day" for a kind gets its notices in the app at once
 * (email.server.ts writes them with `digest_pending`), and the daily run sends them one email
 * listing what came since the last one. Taking the notices and queueing the email are one
 * transaction (the daily run's), so a notice is listed once, and a run that fails lists nothing.
 */
import { sql } from "drizzle-orm";
import type { Executor } from "~/utils/db.server";
import { queueEmails } from "./email.server";

/** How many notices one digest lists by name; the rest are counted ("and 12 more"). */
export const DIGEST_LISTED = 50;

type Pending = { userId: string; name: string; email: string; notices: { subject: string; at: string }[]; n: number };

/**
 * Sends every digest due before `now`: one email per person with pending notices (an inactive
 * person's are cleared unsent). Returns how many digests were queued.
 */
export async function sendNoticeDigests(tx: Executor, now: Date): Promise<number> {
  const pending = await tx.execute<Pending & { active: boolean }>(sql`
    with taken as (
      update email_messages set digest_pending = false, updated_at = now()
      where digest_pending and created_at <= ${now.toISOString()}::timestamptz
      returning to_user_id, subject, created_at
    )
    select u.id as "userId", u.name, u.email, u.active, count(*)::int as n,
      (array_agg(json_build_object('subject', t.subject,
        'at', to_char(t.created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI "UTC"')) order by t.created_at))[1:${DIGEST_LISTED}]
        as notices
    from taken t join users u on u.id = t.to_user_id
    group by u.id, u.name, u.email, u.active`);
  const due = pending.filter((p) => p.active);
  const queued = await queueEmails(
    tx,
    due.map((p) => ({
      to: { id: p.userId, name: p.name, email: p.email },
      kind: "digest" as const,
      content: {
        record: { label: "Your notifications", url: "/notifications" },
        subject: `Your daily digest: ${p.n} ${p.n === 1 ? "notice" : "notices"}`,
        event: `${p.n} ${p.n === 1 ? "notice" : "notices"} since your last digest, also in the app.`,
        expectation: null,
        details: [
          ...p.notices.map((n): [string, string] => [n.at, n.subject]),
          ...(p.n > p.notices.length ? [["", `and ${p.n - p.notices.length} more`] as [string, string]] : []),
        ],
      },
    })),
  );
  // Its notices are in the app already: the digest itself is kept in the reader's list as read, so
  // it adds nothing to their unread count.
  if (queued.length) {
    await tx.execute(
      sql`update email_messages set read_at = now()
        where id in (select jsonb_array_elements_text(${JSON.stringify(queued.map((q) => q.id))}::jsonb)::uuid)`,
    );
  }
  return due.length;
}
